/**
 * The modules import specifiers resolve to inside extensions, whatever the extension's own
 * node_modules hold: pi's packages map to the compatibility modules here, TypeBox to toolsmith's
 * TypeBox, and `toolsmith-sdk` (and its old name `toolsmith`) to this very instance. They are handed to jiti as already-evaluated
 * modules, so every extension shares one instance (one mutation queue, one `Type`) and nothing is
 * re-evaluated per extension.
 */
import * as typebox from "@sinclair/typebox";
import * as toolsmith from "../../index.js";
import * as piAi from "./pi-ai.js";
import * as piCodingAgent from "./pi-coding-agent.js";
import * as piTui from "./pi-tui.js";
import { typeboxCompile, typeboxCompiler, typeboxValue } from "./typebox.js";

export { noteExtensionFiles, setCompatEnv, setCompatReporter } from "./_state.js";

export const VIRTUAL_MODULES: Readonly<Record<string, unknown>> = Object.freeze({
	"@mariozechner/pi-coding-agent": piCodingAgent,
	"@earendil-works/pi-coding-agent": piCodingAgent,
	"@mariozechner/pi-ai": piAi,
	"@mariozechner/pi-ai/compat": piAi,
	"@earendil-works/pi-ai": piAi,
	"@earendil-works/pi-ai/compat": piAi,
	"@mariozechner/pi-tui": piTui,
	"@earendil-works/pi-tui": piTui,
	"@sinclair/typebox": typebox,
	"@sinclair/typebox/compiler": typeboxCompiler,
	"@sinclair/typebox/compile": typeboxCompile,
	"@sinclair/typebox/value": typeboxValue,
	typebox,
	"typebox/compile": typeboxCompile,
	"typebox/value": typeboxValue,
	"toolsmith-sdk": toolsmith,
	// The name before the package was renamed, so extensions written against it keep loading.
	toolsmith,
});

/**
 * The modules import specifiers resolve to inside extensions, whatever the extension's own
 * node_modules hold: pi's packages map to the compatibility modules here, TypeBox to toolsmith's
 * TypeBox (the loader adds `toolsmith-sdk`, its old name `toolsmith` and the other entries, as the
 * Node entry provides them). They are handed to jiti as already-evaluated modules, so every
 * extension shares one instance (one mutation queue, one `Type`) and nothing is re-evaluated per
 * extension.
 */
import * as typebox from "@sinclair/typebox";
import { withStubs } from "./_stubs.js";
import * as piAi from "./pi-ai.js";
import * as piCodingAgent from "./pi-coding-agent.js";
import * as piTui from "./pi-tui.js";
import { typeboxCompile, typeboxCompiler, typeboxValue } from "./typebox.js";

export { noteExtensionFiles, setCompatEnv, setCompatReporter } from "./state.js";

// Every value export of the reference's modules resolves: what toolsmith does not implement is a
// stub that reports when used (see _stubs.ts). Each scope's package gets the same module.
const codingAgent = withStubs("pi-coding-agent", "pi-coding-agent", piCodingAgent);
const ai = withStubs("pi-ai", "pi-ai", piAi);
const tui = withStubs("pi-tui", "pi-tui", piTui);
const agentCore = withStubs("pi-agent-core", "pi-agent-core", {});
// TypeBox 1.x's names on top of toolsmith's TypeBox 0.34; `@sinclair/typebox` stays 0.34 as it is.
const typebox1 = withStubs("typebox", "typebox", typebox);
const typebox1Compile = withStubs("typebox/compile", "typebox/compile", typeboxCompile);
const typebox1Value = withStubs("typebox/value", "typebox/value", typeboxValue);

export const VIRTUAL_MODULES: Readonly<Record<string, unknown>> = Object.freeze({
	"@mariozechner/pi-coding-agent": codingAgent,
	"@earendil-works/pi-coding-agent": codingAgent,
	"@mariozechner/pi-ai": ai,
	"@mariozechner/pi-ai/compat": ai,
	"@earendil-works/pi-ai": ai,
	"@earendil-works/pi-ai/compat": ai,
	"@mariozechner/pi-tui": tui,
	"@earendil-works/pi-tui": tui,
	"@mariozechner/pi-agent-core": agentCore,
	"@earendil-works/pi-agent-core": agentCore,
	"@sinclair/typebox": typebox,
	"@sinclair/typebox/compiler": typeboxCompiler,
	"@sinclair/typebox/compile": typeboxCompile,
	"@sinclair/typebox/value": typeboxValue,
	typebox: typebox1,
	"typebox/compile": typebox1Compile,
	"typebox/value": typebox1Value,
});

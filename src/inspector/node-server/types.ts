/** What `startInspector` takes and gives: the host it shows, its options, the running server (Node only). */
import type { PathPolicy } from "../../contract/env.js";
import type { LoadedExtension } from "../../extensions/api.js";
import type { ExtensionHost } from "../../extensions/node-host.js";
import type { RegistrySnapshot } from "../../extensions/registry.js";
import type { ToolRendererSource } from "../../render/renderer.js";
import type { InspectorSession } from "../session.js";

/** What the inspector uses of an extension host (`toolsmith dev`'s host fits as it is). */
export interface InspectorHost extends Pick<ExtensionHost, "ready" | "buildToolsPrompt" | "on"> {
	/** The active tools; the callable ones too, when known, to draw nested calls of tools that are not active. */
	readonly registry: { snapshot(): Pick<RegistrySnapshot, "active"> & Partial<Pick<RegistrySnapshot, "callable">> };
	/** The extensions' tool renderers (`registerToolRenderer`), when the host has them. */
	readonly runtime?: ToolRendererSource;
	/** The loaded extensions, when the host has them: a tool's source is then the file that defines it. */
	extensions?(): readonly Pick<LoadedExtension, "path" | "modules">[];
}

export interface InspectorOptions {
	readonly host: InspectorHost;
	/** Runs (and records) the page's calls; its host is `host`'s executor. */
	readonly session: InspectorSession;
	/** The folder tools see; paths are shown relative to it, fixtures are saved under it. */
	readonly cwd: string;
	/** The env's kind, shown on the page. */
	readonly envKind: string;
	/** The extension paths loaded (absolute): a saved fixture names them so `toolsmith test` loads them. */
	readonly extensionPaths: readonly string[];
	/** Where "Save as fixture" writes. Default `<cwd>/test/fixtures`. */
	readonly fixturesDir?: string;
	/** The interface to bind. Default `127.0.0.1`; anything else needs `token`. */
	readonly hostname?: string;
	/** Default 0: a free port. */
	readonly port?: number;
	/** The session token; a random one by default. Required with a non-loopback `hostname`. */
	readonly token?: string;
	/** The built page (`index.html`, `app.js`, `app.css`). Default: `dist/inspector` of this package. */
	readonly assetsDir?: string;
	/** Tool names that are built-ins (an extension tool of one of these names is an override). */
	readonly builtinNames?: readonly string[];
	/**
	 * The path policy the host's tools run under (`--confine`, `--confine-reads`), if any. Then the
	 * model may have written any file in the working folder, so the Evals tab imports no code from
	 * there unless `allowEvalCode` says so, and the eval trials' Node worlds run under the same
	 * settings, each confined to its own folder.
	 */
	readonly policy?: PathPolicy;
	/**
	 * Under a `policy`, let the Evals tab import code anyway (`--allow-eval-code`): `*.eval.ts` and
	 * kin, a JSON scenario's `tools.extensions`, and `scripted:` model modules. Default false: those
	 * are listed but refused with the reason, while `.eval.json` scenarios and `.json` scripted
	 * models (data) run. Without a policy the tab imports code as it always has.
	 */
	readonly allowEvalCode?: boolean;
	/** Most event streams open at once; one more is refused with 503. Default 32. */
	readonly maxEventStreams?: number;
	/**
	 * Most bytes an event stream's client may leave unread beyond its largest event; a client past it
	 * is dropped (a last `dropped` event, then the stream ends). Default 1 MiB.
	 */
	readonly maxUnsentEventBytes?: number;
	/**
	 * Most bytes of JSON answers (over 64 KiB each) written and not yet taken by their clients; one
	 * more is refused with 503 while others wait. Default 64 MiB.
	 */
	readonly maxPendingAnswerBytes?: number;
	/** Time a client has to take such an answer before its connection is cut off. Default 60 s. */
	readonly answerTimeoutMs?: number;
}

export interface InspectorServer {
	/** The page's address, with the token: `http://127.0.0.1:41234/?token=…`. */
	readonly url: string;
	readonly port: number;
	readonly token: string;
	/** The clients following the event stream now. */
	eventStreams(): number;
	/** Abort the calls in flight, end the event streams, stop listening. Idempotent. */
	close(): Promise<void>;
}

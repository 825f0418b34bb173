/**
 * Types of the host the `dev` loop drives: the part of the extension host (`createExtensionHost`)
 * the loop uses, so tests can drive it with a fake. The host itself is imported by `_dev.ts` when
 * the command runs.
 */
import type { ExtensionHost, ExtensionHostOptions } from "../extensions/node-host.js";
import type { RegistrySnapshot } from "../extensions/registry.js";
import type { ExtensionRuntime } from "../extensions/runtime.js";

/**
 * What `toolsmith dev` uses of an `ExtensionHost` (`registry` and `runtime` narrowed to the one
 * method each it calls); the extension host is one as it is. Without `reload`, the loop's `reload`
 * command says the host cannot reload on demand.
 */
export interface DevHost
	extends Pick<ExtensionHost, "ready" | "execute" | "buildToolsPrompt" | "extensions" | "on" | "close">,
		Partial<Pick<ExtensionHost, "reload">> {
	/** The active tools with their source and definition (whose renderers show calls and results). */
	readonly registry: { snapshot(): Pick<RegistrySnapshot, "active"> };
	/** The `ctx` an extension's command runs with. */
	readonly runtime: Pick<ExtensionRuntime, "createContext">;
}

/** The host `toolsmith dev` asks for: its command line, resolved. */
export interface DevHostOptions extends Pick<ExtensionHostOptions, "paths" | "watch" | "log"> {
	/** `node`: the real disk and shell; `memory`: an empty in-memory env. */
	readonly env: "node" | "memory";
	/** The working folder tools see, absolute. */
	readonly cwd: string;
	/** Confine the env to `cwd` (`--confine`): a path policy with `cwd` as the only root, the shell sandboxed. */
	readonly confine?: boolean;
}

/** Starts the host for `toolsmith dev`. Rejects when the host cannot start at all. */
export type DevHostFactory = (options: DevHostOptions) => Promise<DevHost>;

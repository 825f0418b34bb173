/**
 * toolsmith-sdk/runtime: the plumbing a host builds its own extension loading on — the extension
 * runtime and the tool registry. Tool authors never need it; `toolsmith-sdk/node`'s extension host
 * is built from these parts. Runtime-neutral, like the main entry.
 */

export type { LoadedExtension } from "./extensions/api.js";
export {
	BUILTIN_SOURCE,
	createToolRegistry,
	type RegisterResult,
	type RegistryContextFactory,
	type RegistryContextInfo,
	type RegistrySnapshot,
	type SourceHandlers,
	type ToolDeclaration,
	type ToolEntry,
	type ToolRegistry,
	type ToolRegistryOptions,
	type ToolSource,
	validateToolDefinition,
} from "./extensions/registry.js";
export {
	type ActivateOptions,
	type ActivateResult,
	createExtensionRuntime,
	DEFAULT_LOAD_TIMEOUT_MS,
	type EmitOptions,
	type ExtensionRuntime,
	type ExtensionRuntimeOptions,
} from "./extensions/runtime.js";

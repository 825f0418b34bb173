/** toolsmith/node: the parts that need Node.js (the real disk and processes, the loader, the watcher). */
export { NodeExecutionEnv, type NodeExecutionEnvOptions } from "./env/node.js";
export {
	type DiscoveredExtension,
	type DiscoverOptions,
	type DiscoveryResult,
	discoverExtensions,
} from "./extensions/node-discovery.js";
export {
	createExtensionHost,
	DEFAULT_DEBOUNCE_MS,
	DEFAULT_SHUTDOWN_TIMEOUT_MS,
	type ExtensionDiagnosticListener,
	type ExtensionHost,
	type ExtensionHostExecuteOptions,
	type ExtensionHostOptions,
	type ExtensionHostReady,
	type ExtensionReloadEvent,
	type ExtensionReloadListener,
} from "./extensions/node-host.js";
export {
	type ImportExtensionResult,
	importExtension,
	type LoadExtensionResult,
	type LoadExtensionsOptions,
	type LoadExtensionsResult,
	loadExtension,
	loadExtensions,
} from "./extensions/node-loader.js";
export { type PiExtensionAPI, type ToPiExtensionOptions, toPiExtension } from "./extensions/node-pi-package.js";
export { checkEngines } from "./extensions/version.js";

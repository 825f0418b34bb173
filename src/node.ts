/**
 * toolsmith-sdk/node: the parts that need Node.js — the real disk and processes, finding and loading
 * extensions from disk, the extension host with hot reload, and serving an extension to pi. Every
 * export is named here and listed in docs/api.md.
 */
import { provideNodeProvisions } from "./extensions/node-provided.js";
// This entry's own namespace, handed to the extensions it loads as `toolsmith-sdk/node`.
import * as node from "./node.js";

export { NodeExecutionEnv, type NodeExecutionEnvOptions } from "./env/node.js";
export {
	connectSshEnv,
	SshError,
	type SshErrorCode,
	SshExecutionEnv,
	type SshExecutionEnvOptions,
} from "./env/node-ssh.js";
export { parseSshTarget, type SshTarget } from "./env/ssh-target.js";
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
	type ImportExtensionOptions,
	type ImportExtensionResult,
	importExtension,
	type LoadExtensionResult,
	type LoadExtensionsOptions,
	type LoadExtensionsResult,
	loadExtension,
	loadExtensions,
} from "./extensions/node-loader.js";
export { type PiExtensionAPI, type ToPiExtensionOptions, toPiExtension } from "./extensions/node-pi-package.js";
export { checkEngines } from "./extensions/node-version.js";
export {
	type LoadMcpToolsOptions,
	loadMcpTools,
	type McpDiagnostic,
	type McpHttpServer,
	type McpStdioServer,
	type McpToolDetails,
	type McpToolSet,
} from "./mcp/node-client.js";
export {
	DEFAULT_MCP_MAX_SESSIONS,
	DEFAULT_MCP_SESSION_IDLE_TIMEOUT_MS,
	MCP_HTTP_MAX_BODY_BYTES,
	MCP_HTTP_MAX_UNSENT_BYTES,
	type McpHttpEndpoint,
	type McpHttpServeOptions,
	serveMcpOverHttp,
} from "./mcp/node-http.js";
export {
	createMcpServer,
	DEFAULT_MCP_CLOSE_TIMEOUT_MS,
	MCP_DETAILS_META_KEY,
	MCP_NESTED_CALLS_META_KEY,
	type McpServedHost,
	type McpServerOptions,
	type McpServerTransport,
	type ToolsmithMcpServer,
} from "./mcp/node-server.js";
export {
	MCP_MAX_MESSAGE_BYTES,
	McpStdioTransport,
	type McpStdioTransportOptions,
} from "./mcp/node-stdio.js";
export {
	type McpSourceTool,
	type McpTool,
	type McpToolAnnotations,
	type McpToolConversion,
	type McpToolReport,
	toMcpTools,
} from "./mcp/tools.js";

// The extension loader and host get from here what they may not import themselves (an entry may
// import anything, nothing in a room imports one): this running instance of toolsmith, for the
// extensions they load, and the MCP client, for the servers those extensions register.
provideNodeProvisions({
	async entries() {
		const [main, runtime, render, providers] = await Promise.all([
			import("./index.js"),
			import("./runtime.js"),
			import("./render/index.js"),
			import("./providers/index.js"),
		]);
		return {
			"toolsmith-sdk": main,
			// The name before the package was renamed, so extensions written against it keep loading.
			toolsmith: main,
			"toolsmith-sdk/node": node,
			"toolsmith-sdk/runtime": runtime,
			"toolsmith-sdk/render": render,
			"toolsmith-sdk/providers": providers,
		};
	},
	async connectMcp(server) {
		const { loadMcpTools } = await import("./mcp/node-client.js");
		return loadMcpTools(server);
	},
});

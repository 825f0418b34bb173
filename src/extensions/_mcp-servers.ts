/**
 * The MCP servers extensions register (`api.registerMcpServer`): their names and configs checked,
 * who owns each name, and one change signal. Runtime-neutral: connecting them is the host's job.
 */
import { describeValue, ToolsmithError } from "../contract/errors.js";
import type { McpServerConfig, RegisteredMcpServer } from "./api.js";

const EXPOSURES = new Set(["codemode", "deferred", "direct", "hidden"]);

/** Letters, digits and `_`: what a server's name becomes in its tools' names. */
export function mcpNamespace(server: string): string {
	return server.replace(/[^A-Za-z0-9_]/g, "_");
}

/** The registry name of tool `tool` of server `server`: `mcp__<server>__<tool>`, as pi names it. */
export function mcpToolName(server: string, tool: string): string {
	return `mcp__${mcpNamespace(server)}__${tool.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringRecord(value: unknown): boolean {
	return isRecord(value) && Object.values(value).every((item) => typeof item === "string");
}

function exposure(value: unknown): string | undefined {
	// pi accepts `codemode-deferred` as another name for `codemode`.
	return value === "codemode-deferred" ? "codemode" : typeof value === "string" ? value : undefined;
}

/** A frozen copy of `raw` when it is a valid server config, else why it is not. */
export function validateMcpServerConfig(name: unknown, raw: unknown): McpServerConfig | string {
	if (typeof name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
		return `the server name ${describeValue(name)} must be 1 to 64 letters, digits, "_" or "-"`;
	}
	if (!isRecord(raw)) return `the config of server "${name}" must be an object, got ${describeValue(raw)}`;
	const where = `server "${name}"`;
	const hasCommand = raw.command !== undefined;
	const hasUrl = raw.url !== undefined;
	if (hasCommand === hasUrl)
		return `${where} needs either "command" (stdio) or "url" (HTTP), not ${hasUrl ? "both" : "neither"}`;
	if (hasCommand) {
		if (typeof raw.command !== "string" || raw.command.trim() === "")
			return `${where}: "command" must be a non-empty string`;
		if (raw.args !== undefined && !(Array.isArray(raw.args) && raw.args.every((a) => typeof a === "string"))) {
			return `${where}: "args" must be an array of strings`;
		}
		if (raw.env !== undefined && !stringRecord(raw.env)) return `${where}: "env" must map names to strings`;
		if (raw.cwd !== undefined && typeof raw.cwd !== "string") return `${where}: "cwd" must be a string`;
	} else {
		if (typeof raw.url !== "string" || !/^https?:\/\/[^\s]+$/i.test(raw.url)) {
			return `${where}: "url" must be an http or https URL`;
		}
		if (raw.headers !== undefined && !stringRecord(raw.headers)) return `${where}: "headers" must map names to strings`;
	}
	if (raw.enabled !== undefined && typeof raw.enabled !== "boolean") return `${where}: "enabled" must be a boolean`;
	if (raw.description !== undefined && typeof raw.description !== "string")
		return `${where}: "description" must be a string`;
	if (
		raw.timeout !== undefined &&
		!(typeof raw.timeout === "number" && raw.timeout > 0 && Number.isFinite(raw.timeout))
	) {
		return `${where}: "timeout" must be a positive number of seconds`;
	}
	const copy: Record<string, unknown> = structuredClone(raw);
	if (copy.exposure !== undefined) {
		copy.exposure = exposure(copy.exposure);
		if (!EXPOSURES.has(copy.exposure as string))
			return `${where}: "exposure" must be codemode, deferred, direct or hidden`;
	}
	if (copy.toolExposure !== undefined) {
		if (!isRecord(copy.toolExposure)) return `${where}: "toolExposure" must map tool names to exposures`;
		for (const [tool, value] of Object.entries(copy.toolExposure)) {
			copy.toolExposure[tool] = exposure(value);
			if (!EXPOSURES.has(copy.toolExposure[tool] as string)) {
				return `${where}: "toolExposure.${tool}" must be codemode, deferred, direct or hidden`;
			}
		}
	}
	return copy as unknown as McpServerConfig;
}

/** The servers of one runtime, in registration order. */
export interface McpServerTable {
	readonly servers: Map<string, RegisteredMcpServer>;
}

/**
 * Check a registration by `extensionPath` against the servers registered now (plus `pending`, the
 * ones the same version registered while loading). Returns the server to keep; throws a
 * `ToolsmithError` (`E_INVALID_MCP_SERVER`) as the reference throws.
 */
export function checkRegistration(
	table: McpServerTable,
	pending: ReadonlyMap<string, RegisteredMcpServer>,
	extensionPath: string,
	loading: boolean,
	name: unknown,
	config: unknown,
): RegisteredMcpServer {
	const validated = validateMcpServerConfig(name, config);
	if (typeof validated === "string") {
		throw new ToolsmithError(
			"E_INVALID_MCP_SERVER",
			`Invalid MCP server registered by ${extensionPath}: ${validated}.`,
		);
	}
	const serverName = name as string;
	const owner = table.servers.get(serverName)?.extensionPath;
	if (owner !== undefined && owner !== extensionPath) {
		throw new ToolsmithError("E_INVALID_MCP_SERVER", `MCP server "${serverName}" is already registered by ${owner}.`);
	}
	// Names that differ only in `-` and `_` would give the same tool names.
	// While loading, the table still holds the previous version's servers, which this version replaces.
	const live = [...table.servers.values()].filter((server) => !loading || server.extensionPath !== extensionPath);
	for (const other of [...live, ...pending.values()]) {
		if (other.name !== serverName && mcpNamespace(other.name) === mcpNamespace(serverName)) {
			throw new ToolsmithError(
				"E_INVALID_MCP_SERVER",
				`MCP server "${serverName}" conflicts with the registered server "${other.name}" (their tools would share names).`,
			);
		}
	}
	return { name: serverName, config: validated, extensionPath };
}

/** Copies of the registered servers, so no caller can change them. */
export function listServers(table: McpServerTable): RegisteredMcpServer[] {
	return [...table.servers.values()].map((server) => ({ ...server, config: structuredClone(server.config) }));
}

/**
 * Replace every server of `extensionPath` with `servers` (a version swapped in, or `[]` for one
 * removed). Returns whether the table changed.
 */
export function replaceServersOf(
	table: McpServerTable,
	extensionPath: string,
	servers: readonly RegisteredMcpServer[],
): boolean {
	const before = JSON.stringify(listServers(table));
	const previous = new Map([...table.servers.values()].map((server) => [server.name, server]));
	table.servers.clear();
	// A server that stays keeps its place; new ones go last.
	const next = new Map(servers.map((server) => [server.name, server]));
	for (const server of previous.values()) {
		if (server.extensionPath !== extensionPath) table.servers.set(server.name, server);
		else if (next.has(server.name)) table.servers.set(server.name, next.get(server.name) as RegisteredMcpServer);
	}
	for (const server of servers) if (!table.servers.has(server.name)) table.servers.set(server.name, server);
	return JSON.stringify(listServers(table)) !== before;
}

/**
 * `createMcpServer`: toolsmith tools served over the Model Context Protocol, on the SDK's low-level
 * `Server`. `tools/list` comes from the registry's active tools (converted by `toMcpTools`),
 * `tools/call` runs through the executor with the registry's hooks, `onUpdate` becomes progress
 * notifications, a cancelled request aborts its call, and a registry change that alters the list
 * sends `notifications/tools/list_changed`. Node-only (its default env is a NodeExecutionEnv).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TSchema } from "@sinclair/typebox";
import type { ToolCall, ToolResultContent, ToolResultMessage } from "../contract/content.js";
import type { ExecutionEnv } from "../contract/env.js";
import { errorMessage } from "../contract/errors.js";
import type { ToolExecutionEvent } from "../contract/events.js";
import type { ToolDefinition } from "../contract/tool.js";
import { NodeExecutionEnv } from "../env/node.js";
import { compiledOrUndefined } from "../exec/compiled-schema.js";
import { executeToolCalls } from "../exec/execute.js";
import type { ExecuteToolCallsResult } from "../exec/types.js";
import type { ExtensionHost } from "../extensions/node-host.js";
import type { RegistrySnapshot } from "../extensions/registry.js";
import { createExtensionRuntime } from "../extensions/runtime.js";
import { observer } from "../shared/listeners.js";
import { CallGate } from "./_call-gate.js";
import { mcpServerSdk } from "./_node-sdk.js";
import { type McpTool, type McpToolReport, toMcpTools } from "./tools.js";

/** The `_meta` key a result's `details` travel under. */
export const MCP_DETAILS_META_KEY = "toolsmith/details";

/** The `_meta` key the record of the calls a tool made through `ctx.executeTool` travels under. */
export const MCP_NESTED_CALLS_META_KEY = "toolsmith/nestedCalls";

/** Default bound, in milliseconds, for in-flight calls to settle after `close()` aborted them. */
export const DEFAULT_MCP_CLOSE_TIMEOUT_MS = 3_000;

/** What `createMcpServer` uses of a host: an `ExtensionHost` is one as it is. */
export interface McpServedHost extends Pick<ExtensionHost, "registry" | "execute"> {
	/** Settles once the tools are loaded; only waited for. */
	readonly ready: Promise<unknown>;
}

/** Options of `createMcpServer`: a host (hot reload) or a fixed list of tools, and how the server introduces itself. */
export interface McpServerOptions {
	/** Serve the active tools of this host (its hooks apply; reloads send `list_changed`). */
	readonly host?: McpServedHost;
	/** Or serve these tools, with no extensions; give one of `host` and `tools`. */
	readonly tools?: readonly ToolDefinition[];
	/** With `tools`: the env their `ctx` gets; a NodeExecutionEnv in `cwd` by default. */
	readonly env?: ExecutionEnv;
	/** With `tools`: the working folder; `env.cwd`, else `process.cwd()`, by default. */
	readonly cwd?: string;
	/** The server name clients see in `initialize`. Default `toolsmith`. */
	readonly name?: string;
	/** The server version clients see. Default `0.0.0`. */
	readonly version?: string;
	/** Text put before the tools' `promptGuidelines` in the server's `instructions`. */
	readonly instructions?: string;
	/** Bound for in-flight calls to settle once `close()` aborted them. Default 3 000 ms. */
	readonly closeTimeoutMs?: number;
	/** Hears what the server wants people to know (a tool left out of the list, say); never stdout. */
	readonly log?: (message: string) => void;
}

/**
 * What `connect` takes: an MCP SDK transport (`StdioServerTransport`, `InMemoryTransport`, …).
 * Spelled out here so that toolsmith's declarations never pull in the SDK's, which need DOM types
 * (`HeadersInit`) a Node project's tsconfig may lack.
 */
export interface McpServerTransport {
	start(): Promise<void>;
	send(...args: never[]): Promise<void>;
	close(): Promise<void>;
}

/** A toolsmith MCP server: the SDK `Server`, plus `connect` and a `close` that aborts in-flight calls. */
export interface ToolsmithMcpServer {
	/**
	 * The SDK server, for what this wrapper does not cover (more handlers, `onerror`): a `Server`
	 * of `@modelcontextprotocol/sdk/server/index.js` (typed loosely, see `McpServerTransport`).
	 */
	readonly server: object;
	/** Start serving on `transport` (a `StdioServerTransport`, an in-memory one in tests). */
	connect(transport: McpServerTransport): Promise<void>;
	/** The `tools/list` answer as of now, and the report of every active tool. */
	listTools(): { readonly tools: McpTool[]; readonly report: readonly McpToolReport[] };
	/** Close the connection, which aborts every call in flight, and wait for them to settle (bounded by `closeTimeoutMs`). Idempotent. */
	close(): Promise<void>;
}

type Execute = (
	calls: readonly ToolCall[],
	options: { signal: AbortSignal; passSignalThrough: true; onEvent?: (event: ToolExecutionEvent) => void },
) => Promise<ExecuteToolCallsResult>;

interface Source {
	readonly snapshot: () => RegistrySnapshot;
	readonly onChange: (listener: () => void) => () => void;
	readonly execute: Execute;
	readonly ready: Promise<unknown>;
}

function sourceOf(options: McpServerOptions): Source {
	if (options.host && options.tools) throw new Error("createMcpServer takes `host` or `tools`, not both.");
	const host = options.host;
	if (host) {
		return {
			snapshot: () => host.registry.snapshot(),
			onChange: (listener) => host.registry.onChange(listener),
			execute: (calls, execOptions) => host.execute(calls, execOptions),
			ready: host.ready,
		};
	}
	if (!options.tools) throw new Error("createMcpServer needs `host` (an extension host) or `tools` (a list).");
	const cwd = options.cwd ?? options.env?.cwd ?? process.cwd();
	const env = options.env ?? new NodeExecutionEnv({ cwd });
	const runtime = createExtensionRuntime({ env, cwd, builtins: [...options.tools] });
	const registry = runtime.registry;
	return {
		snapshot: () => registry.snapshot(),
		onChange: (listener) => registry.onChange(listener),
		execute: (calls, execOptions) => {
			const config = registry.snapshot().executorConfig();
			return executeToolCalls(calls, { ...config, ...execOptions });
		},
		ready: Promise.resolve(),
	};
}

/** A tool result's content as MCP content blocks. */
function mcpContent(content: readonly ToolResultContent[]): CallToolResult["content"] {
	return content.map((block) =>
		block.type === "image"
			? { type: "image", data: block.data, mimeType: block.mimeType }
			: { type: "text", text: block.text },
	);
}

function isJsonObject(value: unknown): boolean {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `details` as plain JSON, or undefined when there are none or they cannot be serialized. */
function jsonDetails(details: unknown): unknown {
	if (details === undefined) return undefined;
	try {
		const text = JSON.stringify(details);
		return text === undefined ? undefined : (JSON.parse(text) as unknown);
	} catch {
		return undefined;
	}
}

/** The text of a partial result, for a progress notification's `message`. */
function progressMessage(content: readonly ToolResultContent[] | undefined): string | undefined {
	if (!Array.isArray(content)) return undefined;
	const text = content
		.flatMap((block) => (block?.type === "text" && typeof block.text === "string" ? [block.text] : []))
		.join("\n");
	return text === "" ? undefined : text;
}

/** The server's `instructions`: the caller's text, then each active tool's guidelines (once each). */
function instructionsOf(snapshot: RegistrySnapshot, intro: string | undefined): string | undefined {
	const lines: string[] = [];
	const seen = new Set<string>();
	for (const entry of snapshot.active) {
		for (const guideline of entry.definition.promptGuidelines ?? []) {
			if (typeof guideline !== "string" || guideline.trim() === "" || seen.has(guideline)) continue;
			seen.add(guideline);
			lines.push(`- ${guideline.trim()}`);
		}
	}
	const parts = [
		...(intro && intro.trim() !== "" ? [intro.trim()] : []),
		...(lines.length > 0 ? [`Guidelines:\n${lines.join("\n")}`] : []),
	];
	return parts.length > 0 ? parts.join("\n\n") : undefined;
}

/** Why the structured result (`what` names it) does not fit the listed output schema, or undefined when it does. */
function outputProblem(schema: TSchema, structured: unknown, what: string): string | undefined {
	const [is, does] = what === "details" ? ["are", "do"] : ["is", "does"];
	if (typeof structured !== "object" || structured === null || Array.isArray(structured)) {
		return `its ${what} ${is} not a JSON object`;
	}
	const compiled = compiledOrUndefined(schema);
	if (!compiled) return undefined;
	if (compiled.checker.Check(structured)) return undefined;
	const first = compiled.checker.Errors(structured).First();
	return first
		? `its ${what} ${does} not match it at ${first.path || "/"}: ${first.message}`
		: `its ${what} ${does} not match it`;
}

// Whether a definition's outputSchema is listed, worked out once per definition.
const listedOutput = new WeakMap<ToolDefinition, boolean>();

/** The tool's output schema when `tools/list` gives it to clients, else undefined. */
function listedOutputSchema(definition: ToolDefinition | undefined): TSchema | undefined {
	if (!definition?.outputSchema) return undefined;
	let listed = listedOutput.get(definition);
	if (listed === undefined) {
		listed = toMcpTools([definition]).tools[0]?.outputSchema !== undefined;
		listedOutput.set(definition, listed);
	}
	return listed ? definition.outputSchema : undefined;
}

/**
 * The MCP result of a call. With an output schema, a successful result carries the tool's
 * `structuredContent` (pi 1.x), or its `details` when it set none (toolsmith's meaning of
 * `outputSchema` before 1.x); one that does not fit makes it an error result saying why (clients
 * reject a result whose structured content breaks the schema they were given). Without a listed
 * schema, a tool's JSON-object `structuredContent` is passed on as it is.
 */
function resultOf(message: ToolResultMessage | undefined, outputSchema: TSchema | undefined): CallToolResult {
	if (!message) {
		return { content: [{ type: "text", text: "The tool call produced no result." }], isError: true };
	}
	const details = jsonDetails(message.details);
	const metaFields = {
		...(details !== undefined ? { [MCP_DETAILS_META_KEY]: details } : {}),
		...(message.nestedCalls !== undefined ? { [MCP_NESTED_CALLS_META_KEY]: message.nestedCalls } : {}),
	};
	const meta = Object.keys(metaFields).length > 0 ? { _meta: metaFields } : {};
	const content = mcpContent(message.content);
	const own = message.structuredContent;
	if (message.isError || !outputSchema) {
		const passed = !message.isError && isJsonObject(own) ? { structuredContent: own as Record<string, unknown> } : {};
		return { content, ...(message.isError ? { isError: true } : {}), ...passed, ...meta };
	}
	const structured = own !== undefined ? own : details;
	const problem = outputProblem(outputSchema, structured, own !== undefined ? "structuredContent" : "details");
	if (problem !== undefined) {
		const text = `Tool ${message.toolName} declares an outputSchema, but ${problem}.`;
		return { content: [...content, { type: "text", text }], isError: true, ...meta };
	}
	return { content, structuredContent: structured as Record<string, unknown>, ...meta };
}

// One gate per host, shared by every server created for it.
const hostGates = new WeakMap<McpServedHost, CallGate>();

function gateOf(host: McpServedHost): CallGate {
	let gate = hostGates.get(host);
	if (!gate) {
		gate = new CallGate();
		hostGates.set(host, gate);
	}
	return gate;
}

/**
 * Create an MCP server for a host's tools (or a fixed list). Resolves once the host is ready, so
 * `instructions` hold the guidelines of the tools loaded at startup (MCP sends them once, at
 * `initialize`). Rejects when given neither or both of `host` and `tools`.
 */
export async function createMcpServer(options: McpServerOptions): Promise<ToolsmithMcpServer> {
	const source = sourceOf(options);
	const [{ Server, CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([mcpServerSdk(), source.ready]);
	const log = observer(options.log);
	const instructions = instructionsOf(source.snapshot(), options.instructions);
	const server = new Server(
		{ name: options.name ?? "toolsmith", version: options.version ?? "0.0.0" },
		{ capabilities: { tools: { listChanged: true } }, ...(instructions !== undefined ? { instructions } : {}) },
	);

	const listTools = () => {
		const snapshot = source.snapshot();
		// Every active tool (MCP has no declared-but-hidden tool: a client calls only what it was
		// listed), with the description the active tools' prepareLoadout hooks give it.
		const described = new Map(snapshot.declarations().map((d) => [d.name, d.description]));
		const conversion = toMcpTools(
			snapshot.active.map(({ name, definition }) => {
				const description = described.get(name);
				return description === undefined || description === definition.description
					? definition
					: { ...definition, description };
			}),
		);
		return { tools: conversion.tools, report: conversion.report };
	};

	// What the client was last told the list is; a change notification goes out only when it differs.
	let listed = JSON.stringify(listTools().tools);
	const reported = new Set<string>();
	const reportOmitted = (report: readonly McpToolReport[]): void => {
		for (const entry of report) {
			if (entry.ok) continue;
			const problems = [
				...(entry.nameVerdict.ok ? [] : [`its name ${entry.nameVerdict.problem ?? "breaks the MCP rule"}`]),
				...entry.errors.map((error) => `${error.path || "/"}: ${error.message}`),
			].join("; ");
			const line = `Tool ${entry.name} is not listed over MCP: ${problems}`;
			if (!reported.has(line)) {
				reported.add(line);
				log(line);
			}
		}
	};
	reportOmitted(listTools().report);

	let connected = false;
	let closed = false;
	const unsubscribe = source.onChange(() => {
		const now = listTools();
		reportOmitted(now.report);
		const text = JSON.stringify(now.tools);
		if (text === listed) return;
		listed = text;
		if (connected && !closed) {
			server.sendToolListChanged().catch((error: unknown) => {
				log(`Sending tools/list_changed failed: ${errorMessage(error)}`);
			});
		}
	});

	server.setRequestHandler(ListToolsRequestSchema, () => {
		const now = listTools();
		listed = JSON.stringify(now.tools);
		return { tools: now.tools };
	});

	const inFlight = new Set<Promise<unknown>>();
	// Each request is a batch of one; a sequential tool still runs alone, across requests, and
	// across every server of the same host (each HTTP session has its own): they share its tools.
	const gate = options.host ? gateOf(options.host) : new CallGate();

	server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
		// The request's own signal, made for this call alone (so the tools get it as it is): the SDK
		// aborts it on notifications/cancelled and when the connection closes (which `close()` does first).
		const signal = extra.signal;
		const toolCallId = `mcp-${String(extra.requestId)}`;
		const progressToken = request.params._meta?.progressToken;
		// Events are listened to only for progress the client asked for: without a listener the
		// executor builds none.
		let progress = 0;
		const onEvent =
			progressToken === undefined
				? undefined
				: (event: ToolExecutionEvent): void => {
						if (event.type !== "tool_execution_update" || event.toolCallId !== toolCallId || signal.aborted) return;
						progress += 1;
						const message = progressMessage(event.partialResult?.content);
						extra
							.sendNotification({
								method: "notifications/progress",
								params: { progressToken, progress, ...(message !== undefined ? { message } : {}) },
							})
							.catch(() => {
								// a client gone away; the call's result (or its abort) says the rest
							});
					};
		const call: ToolCall = {
			type: "toolCall",
			id: toolCallId,
			name: request.params.name,
			arguments: request.params.arguments ?? {},
		};
		const entry = source.snapshot().active.find((e) => e.definition.name === call.name);
		const running = gate.run(entry?.definition.executionMode === "sequential", () =>
			source.execute([call], { signal, passSignalThrough: true, onEvent }),
		);
		inFlight.add(running);
		try {
			const outcome = await running;
			return resultOf(outcome.results[0], listedOutputSchema(entry?.definition));
		} catch (error) {
			// The executor never rejects; a host that does is reported as an error result.
			return { content: [{ type: "text", text: `The tool call failed: ${errorMessage(error)}` }], isError: true };
		} finally {
			inFlight.delete(running);
		}
	});

	let closing: Promise<void> | undefined;
	return {
		server,
		listTools,
		async connect(transport) {
			await server.connect(transport as unknown as Transport);
			connected = true;
		},
		close() {
			closing ??= (async () => {
				closed = true;
				unsubscribe();
				// Closing the connection aborts every request's signal, so the calls in flight see it.
				const running = [...inFlight];
				try {
					await server.close();
				} catch (error) {
					log(`Closing the MCP server failed: ${errorMessage(error)}`);
				}
				if (running.length > 0) {
					let timer: ReturnType<typeof setTimeout> | undefined;
					await Promise.race([
						Promise.allSettled(running),
						new Promise<void>((resolve) => {
							timer = setTimeout(resolve, options.closeTimeoutMs ?? DEFAULT_MCP_CLOSE_TIMEOUT_MS);
						}),
					]);
					clearTimeout(timer);
				}
			})();
			return closing;
		},
	};
}

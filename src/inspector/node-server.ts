/**
 * The inspector's loopback server: the page (built into `dist/inspector/`), a small JSON API over
 * an extension host, and a Server-Sent Events stream of reloads, diagnostics and call updates.
 * Every request must carry the session token and come with this server's own `Host` (and, when a
 * browser sends one, `Origin`): a page on another site, or one reached through DNS rebinding, is
 * refused with 403. Nothing here runs a command except a registered tool, through the executor.
 * Node-only.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolResultMessage } from "../contract/content.js";
import { errorMessage } from "../contract/errors.js";
import type { ToolExecutionEvent } from "../contract/events.js";
import type { ToolDefinition } from "../contract/tool.js";
import { parseToolArguments, validateToolArguments } from "../exec/validate.js";
import type { ExtensionDiagnostic, LoadedExtension } from "../extensions/api.js";
import {
	displayPath,
	formatDiagnostic,
	formatReload,
	reloadToolFiles,
	toolFile,
} from "../extensions/node-event-lines.js";
import type { ExtensionHost, ExtensionHostReady, ExtensionReloadEvent } from "../extensions/node-host.js";
import type { RegistrySnapshot } from "../extensions/registry.js";
import { isLoopbackHostname } from "../mcp/loopback.js";
import { listen, RequestError, readJsonBody, sameSecret } from "../mcp/node-request.js";
import { compatibilityReport, type ProviderTool, toProviderTools } from "../providers/tools.js";
import { TOOL_PROVIDERS, type ToolProvider } from "../providers/types.js";
import {
	DEFAULT_OUTPUT_PAD,
	type RenderableTool,
	type RenderedBlock,
	renderToolCall,
	renderToolResult,
	shellLayout,
	type ToolRendererSource,
	toolRenderersFor,
} from "../render/renderer.js";
import { ansiTheme, plainTheme } from "../render/theme.js";
import { createBuiltinTools } from "../tools/builtins.js";
import type {
	CallStarted,
	FixtureResponse,
	InspectorCall,
	InspectorDiagnostic,
	InspectorEvent,
	InspectorNestedCall,
	InspectorReload,
	InspectorState,
	InspectorTool,
	InspectorToolsState,
	InspectorUpdate,
	Json,
	ProvidersResponse,
	ProviderView,
	RenderedView,
	ValidateResponse,
} from "./protocol.js";
import type { InspectorSession } from "./session.js";

/** Largest request body accepted, in bytes. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Reloads kept for the page. */
const MAX_RELOADS = 200;
/** Partial updates kept per call (the latest ones). */
const MAX_UPDATES = 500;
/** Nested calls kept per call (the first ones, as the `nestedCalls` record keeps them). */
const MAX_NESTED = 256;
/** Partial updates kept per nested call (the latest ones). */
const MAX_NESTED_UPDATES = 100;
/** Calls kept in the history. */
const MAX_CALLS = 500;
/** Columns renderers get when the page does not say (and for calls made at the `dev --ui` prompt). */
const DEFAULT_WIDTH = 100;

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
}

export interface InspectorServer {
	/** The page's address, with the token: `http://127.0.0.1:41234/?token=…`. */
	readonly url: string;
	readonly port: number;
	readonly token: string;
	/** Abort the calls in flight, end the event streams, stop listening. Idempotent. */
	close(): Promise<void>;
}

const SECURITY_HEADERS: Record<string, string> = {
	"content-security-policy":
		"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	"x-content-type-options": "nosniff",
	"x-frame-options": "DENY",
	"referrer-policy": "no-referrer",
	"cross-origin-resource-policy": "same-origin",
	"cross-origin-opener-policy": "same-origin",
	"cache-control": "no-store",
};

function send(res: ServerResponse, status: number, body: string | Buffer, type: string): void {
	if (res.headersSent) return;
	res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, "content-length": Buffer.byteLength(body) });
	res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
	send(res, status, JSON.stringify(value), "application/json; charset=utf-8");
}

/** The body as JSON, sent as `application/json`. */
function readJson(req: IncomingMessage): Promise<unknown> {
	// A JSON content type makes a cross-site request a preflighted one, which this server never answers.
	if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) {
		req.resume();
		return Promise.reject(new RequestError(415, "Send the body as JSON (content-type: application/json)."));
	}
	return readJsonBody(req, MAX_BODY_BYTES);
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` as JSON the page can show: functions and symbols dropped, cycles and bigints described. */
export function toJson(value: unknown): Json {
	const seen = new WeakSet<object>();
	const text = JSON.stringify(value, (_key, v: unknown) => {
		if (typeof v === "bigint") return `${v}n`;
		if (typeof v === "object" && v !== null) {
			if (seen.has(v)) return "[circular]";
			seen.add(v);
		}
		return v;
	});
	return text === undefined ? null : (JSON.parse(text) as Json);
}

/** The built page: next to this module once bundled (`dist/`), or `dist/inspector` of the repository when run from source. */
function defaultAssetsDir(): string {
	const here = dirname(fileURLToPath(import.meta.url));
	const candidates = [join(here, "inspector"), resolve(here, "../../dist/inspector")];
	const found = candidates.find((dir) => existsSync(join(dir, "index.html")));
	if (!found) {
		throw new Error(
			`The inspector page is not built (looked in ${candidates.join(" and ")}): run npm run build (or node scripts/build-inspector.mjs) in the toolsmith repository.`,
		);
	}
	return found;
}

function view(block: RenderedBlock): RenderedView {
	return block.error ? { lines: block.lines, error: block.error } : { lines: block.lines };
}

function diagnosticView(diagnostic: ExtensionDiagnostic, cwd: string): InspectorDiagnostic {
	return {
		severity: diagnostic.severity,
		message: diagnostic.message,
		...(diagnostic.code ? { code: diagnostic.code } : {}),
		...(diagnostic.path ? { path: diagnostic.path } : {}),
		...(diagnostic.line !== undefined ? { line: diagnostic.line } : {}),
		...(diagnostic.column !== undefined ? { column: diagnostic.column } : {}),
		text: formatDiagnostic(diagnostic, cwd, plainTheme),
	};
}

/** Problems of `args` for `tool` exactly as the executor finds them (`prepareArguments`, then validation with repair). */
export function validateForTool(tool: ToolDefinition, args: unknown): ValidateResponse {
	let value: unknown = args;
	if (typeof tool.prepareArguments === "function") {
		const copied = parseToolArguments(tool.name, args);
		if (!copied.ok) return { ok: false, message: copied.error.message, problems: [] };
		try {
			value = tool.prepareArguments(copied.value.value);
		} catch (error) {
			return {
				ok: false,
				message: `Could not prepare the arguments of tool ${tool.name}: ${errorMessage(error)}`,
				problems: [],
			};
		}
	}
	const validated = validateToolArguments(tool, value);
	if (validated.ok) return { ok: true, value: toJson(validated.value) };
	return {
		ok: false,
		message: validated.error.message,
		problems: validated.error.issues.map((issue) => ({ path: issue.path, message: issue.message })),
	};
}

function providerView(tool: ProviderTool, provider: ToolProvider): ProviderView {
	const [report] = compatibilityReport([tool], provider);
	const json = report?.ok ? toJson(toProviderTools([tool], provider, { invalid: "omit" })[0]) : undefined;
	return {
		provider,
		...(json !== undefined ? { json } : {}),
		rewrites: (report?.rewrites ?? []).map((r) => ({ path: r.path, kind: r.kind, message: r.message })),
		errors: (report?.errors ?? []).map((e) => ({ path: e.path, kind: e.kind, message: e.message })),
		nameOk: report?.nameVerdict.ok ?? false,
		...(report?.nameVerdict.problem ? { nameProblem: report.nameVerdict.problem } : {}),
	};
}

/** A file name from what the user typed: letters, digits, `.`, `_`, `-`. */
function safeFileName(name: string): string {
	const cleaned = name
		.trim()
		.replace(/\.json$/i, "")
		.replace(/[^A-Za-z0-9._-]+/g, "-")
		.replace(/^[.-]+|-+$/g, "");
	return cleaned === "" ? "inspector" : cleaned.slice(0, 100);
}

function timestampName(date: Date): string {
	const pad = (n: number) => String(n).padStart(2, "0");
	return `inspector-${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}-${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
}

function quoteArg(arg: string): string {
	return /^[\w./:@=+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Start the inspector on `hostname` (loopback by default) and a free port. Resolves once listening
 * and the host is ready. Rejects when the port cannot be bound, the page is not built, or a
 * non-loopback `hostname` comes without `token`.
 */
export async function startInspector(options: InspectorOptions): Promise<InspectorServer> {
	const hostname = options.hostname ?? "127.0.0.1";
	if (!isLoopbackHostname(hostname) && !options.token) {
		throw new Error(
			`Serving the inspector on ${hostname} lets other machines run your tools: give a token (--token) too, and keep it secret.`,
		);
	}
	const token = options.token ?? randomBytes(24).toString("hex");
	const { host, session, cwd } = options;
	const assetsDir = options.assetsDir ?? defaultAssetsDir();
	const indexHtml = readFileSync(join(assetsDir, "index.html"), "utf8").replaceAll("__TOKEN__", token);
	const assets = new Map<string, { body: Buffer; type: string }>([
		["/app.js", { body: readFileSync(join(assetsDir, "app.js")), type: "text/javascript; charset=utf-8" }],
		["/app.css", { body: readFileSync(join(assetsDir, "app.css")), type: "text/css; charset=utf-8" }],
	]);
	const builtinNames = new Set(options.builtinNames ?? createBuiltinTools().map((t) => t.name));
	const fixturesDir = resolve(cwd, options.fixturesDir ?? "test/fixtures");
	const ready: ExtensionHostReady = await host.ready;

	// What the page shows: the latest diagnostics of each file, the reloads, the calls.
	const diagnosticsByFile = new Map<string, ExtensionDiagnostic[]>();
	const loose: ExtensionDiagnostic[] = [];
	const remember = (diagnostic: ExtensionDiagnostic) => {
		if (!diagnostic.path) {
			loose.push(diagnostic);
			return;
		}
		const list = diagnosticsByFile.get(diagnostic.path) ?? [];
		if (!list.includes(diagnostic)) list.push(diagnostic);
		diagnosticsByFile.set(diagnostic.path, list);
	};
	for (const diagnostic of ready.diagnostics) remember(diagnostic);
	const reloads: InspectorReload[] = [];
	const calls: InspectorCall[] = [];
	/** How to abort each call that runs now, by its id on the page. */
	const running = new Map<string, () => void>();
	let callCounter = 0;

	const allDiagnostics = (): InspectorDiagnostic[] =>
		[...loose, ...[...diagnosticsByFile.values()].flat()].map((d) => diagnosticView(d, cwd));

	const toolView = (entry: RegistrySnapshot["active"][number]): InspectorTool => {
		const d = entry.definition;
		const path = entry.source.kind === "extension" ? entry.source.path : undefined;
		const file = toolFile(entry, host.extensions?.() ?? []) ?? path;
		return {
			name: entry.name,
			label: typeof d.label === "string" ? d.label : entry.name,
			description: typeof d.description === "string" ? d.description : "",
			kind: path === undefined ? "builtin" : builtinNames.has(entry.name) ? "override" : "extension",
			...(file !== undefined ? { source: displayPath(file, cwd) } : {}),
			mode: d.executionMode === "sequential" ? "sequential" : "parallel",
			parameters: toJson(d.parameters),
			...(typeof d.promptSnippet === "string" ? { promptSnippet: d.promptSnippet } : {}),
			...(Array.isArray(d.promptGuidelines) ? { promptGuidelines: d.promptGuidelines.map(String) } : {}),
			diagnostics: (path ? (diagnosticsByFile.get(path) ?? []) : []).map((x) => diagnosticView(x, cwd)),
		};
	};

	const toolsState = (): InspectorToolsState => {
		let prompt: string;
		try {
			prompt = host.buildToolsPrompt();
		} catch (error) {
			prompt = `(the prompt could not be built: ${errorMessage(error)})`;
		}
		return {
			cwd,
			env: options.envKind,
			tools: host.registry.snapshot().active.map(toolView),
			diagnostics: allDiagnostics(),
			prompt,
		};
	};
	const state = (): InspectorState => ({ ...toolsState(), reloads: [...reloads], calls: [...calls] });

	// The event streams.
	const streams = new Set<ServerResponse>();
	const broadcast = (event: InspectorEvent) => {
		const frame = `data: ${JSON.stringify(event)}\n\n`;
		for (const res of streams) res.write(frame);
	};
	const heartbeat = setInterval(() => {
		for (const res of streams) res.write(": keep-alive\n\n");
	}, 15_000);
	heartbeat.unref();

	const unsubscribe = [
		host.on("reload", (event: ExtensionReloadEvent) => {
			// A diagnostic of a module the extension imports (a syntax error in src/tools/x.ts) was
			// remembered under that module: this load of the extension replaces it too.
			const modules = host.extensions?.().find((e) => e.path === event.path)?.modules ?? [];
			for (const file of [...event.files, ...modules]) if (file !== event.path) diagnosticsByFile.delete(file);
			diagnosticsByFile.set(event.path, [...event.diagnostics]);
			if (event.kind === "unload" && event.diagnostics.length === 0) diagnosticsByFile.delete(event.path);
			const reload: InspectorReload = {
				at: Date.now(),
				path: event.path,
				kind: event.kind,
				ok: event.ok,
				durationMs: event.durationMs,
				added: [...event.added],
				removed: [...event.removed],
				changed: [...event.changed],
				lines: formatReload(
					event,
					cwd,
					ansiTheme,
					host.extensions
						? reloadToolFiles({ registry: host.registry, extensions: () => host.extensions?.() ?? [] }, event.path)
						: undefined,
				),
				diagnostics: event.diagnostics.map((d) => diagnosticView(d, cwd)),
			};
			reloads.push(reload);
			if (reloads.length > MAX_RELOADS) reloads.shift();
			broadcast({ type: "reload", reload, state: toolsState() });
		}),
		host.on("diagnostic", (diagnostic: ExtensionDiagnostic) => {
			remember(diagnostic);
			broadcast({ type: "diagnostic", diagnostic: diagnosticView(diagnostic, cwd), state: toolsState() });
		}),
	];

	const replaceCall = (call: InspectorCall) => {
		const index = calls.findIndex((c) => c.id === call.id);
		if (index >= 0) calls[index] = call;
		else {
			calls.push(call);
			if (calls.length > MAX_CALLS) calls.shift();
		}
		broadcast({ type: "call", call });
	};

	/**
	 * A call's life on the page: shown as running now, its updates as they come, its end. `id` is the
	 * page's; `toolCallId` the one the executor and the tool see.
	 */
	const activeDefinition = (name: string): ToolDefinition | undefined =>
		host.registry.snapshot().active.find((t) => t.name === name)?.definition;
	/** What draws calls to `name`: the extensions' tool renderers, then the tool's own. */
	const renderersOf = (name: string): RenderableTool | undefined =>
		toolRenderersFor(host.runtime, name, activeDefinition(name));

	/** The callable tools too: a tool may call one that is not active (a `codemode` tool, say). */
	const callableDefinition = (name: string): ToolDefinition | undefined => {
		const snapshot = host.registry.snapshot();
		return (snapshot.active.find((t) => t.name === name) ?? snapshot.callable?.find((t) => t.name === name))
			?.definition;
	};

	/**
	 * The calls the tool of `toolCallId` makes through `ctx.executeTool` (and theirs), drawn with the
	 * renderers of the tools they call; each change is broadcast as a `nested` or `nested-update` event of `id`.
	 */
	const trackNested = (id: string, toolCallId: string, width: number) => {
		const list: InspectorNestedCall[] = [];
		const byId = new Map<string, { index: number; started: number; updates: InspectorUpdate[] }>();
		const renderContext = (event: ToolExecutionEvent, args: Json) => ({
			toolCallId: event.toolCallId,
			cwd,
			args,
			width: width - 2,
		});
		const renderersOfNested = (name: string) => toolRenderersFor(host.runtime, name, callableDefinition(name));
		/** The running call in the state holds the list as it grows (a page that connects now sees it). */
		const keepInState = () => {
			const index = calls.findIndex((c) => c.id === id);
			const stored = calls[index];
			if (stored && stored.nested !== list) calls[index] = { ...stored, nested: list };
		};
		return {
			list,
			/** Whether `event` is one of a nested call of this call (then it is handled). */
			onEvent(event: ToolExecutionEvent): boolean {
				const parent = event.parentToolCallId;
				if (parent === undefined || !event.toolCallId.startsWith(`${toolCallId}/`)) return false;
				if (event.type === "tool_execution_start") {
					if (list.length >= MAX_NESTED || byId.has(event.toolCallId)) return true;
					const args = toJson(event.args);
					const call: InspectorNestedCall = {
						toolCallId: event.toolCallId,
						parentToolCallId: parent,
						tool: event.toolName,
						args,
						status: "running",
						renderedCall: view(
							renderToolCall(renderersOfNested(event.toolName), args, ansiTheme, width - 2, {
								...renderContext(event, args),
								name: event.toolName,
							}),
						),
						updates: [],
					};
					byId.set(event.toolCallId, { index: list.length, started: performance.now(), updates: [] });
					list.push(call);
					keepInState();
					broadcast({ type: "nested", id, call });
					return true;
				}
				const known = byId.get(event.toolCallId);
				const current = known ? list[known.index] : undefined;
				if (!known || !current) return true;
				const context = renderContext(event, current.args);
				if (event.type === "tool_execution_update") {
					const update: InspectorUpdate = {
						atMs: Math.round(performance.now() - known.started),
						rendered: view(
							renderToolResult(
								renderersOfNested(current.tool),
								event.partialResult,
								{ expanded: true, isPartial: true },
								ansiTheme,
								width - 2,
								context,
							),
						),
						partial: toJson(event.partialResult),
					};
					known.updates.push(update);
					if (known.updates.length > MAX_NESTED_UPDATES) known.updates.shift();
					list[known.index] = { ...current, updates: [...known.updates] };
					broadcast({ type: "nested-update", id, toolCallId: event.toolCallId, parentToolCallId: parent, update });
					return true;
				}
				const result = { content: event.result.content, details: event.result.details };
				const call: InspectorNestedCall = {
					...current,
					status: event.isError ? "error" : "ok",
					...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}),
					renderedResult: view(
						renderToolResult(
							renderersOfNested(current.tool),
							result,
							{ expanded: true, isPartial: false },
							ansiTheme,
							width - 2,
							{ ...context, isError: event.isError },
						),
					),
					result: toJson({ ...result, isError: event.isError }),
					updates: [...known.updates],
				};
				list[known.index] = call;
				broadcast({ type: "nested", id, call });
				return true;
			},
		};
	};

	const trackCall = (id: string, toolCallId: string, toolName: string, args: Json, width: number) => {
		const definition = renderersOf(toolName);
		// The result pane is inset under the call, unless the tool draws its own frame (renderShell "self").
		const resultWidth = shellLayout(definition, width, 2).width;
		const context = { toolCallId, cwd, args, width: resultWidth, outputPad: DEFAULT_OUTPUT_PAD };
		const base = {
			id,
			tool: toolName,
			args,
			startedAt: Date.now(),
			renderedCall: view(renderToolCall(definition, args, ansiTheme, width, { ...context, name: toolName })),
			recordable: session.recorder !== undefined,
		};
		const updates: InspectorUpdate[] = [];
		replaceCall({ ...base, status: "running", updates });
		const started = performance.now();
		const nested = trackNested(id, toolCallId, width);
		return {
			onEvent(event: ToolExecutionEvent) {
				if (nested.onEvent(event)) return;
				if (event.type !== "tool_execution_update" || event.toolCallId !== toolCallId) return;
				const update: InspectorUpdate = {
					atMs: Math.round(performance.now() - started),
					rendered: view(
						renderToolResult(
							definition,
							event.partialResult,
							{ expanded: true, isPartial: true },
							ansiTheme,
							resultWidth,
							context,
						),
					),
					partial: toJson(event.partialResult),
				};
				updates.push(update);
				if (updates.length > MAX_UPDATES) updates.shift();
				broadcast({ type: "update", id, update });
			},
			end(message: ToolResultMessage | undefined, failure: string | undefined, aborted: boolean) {
				const status = aborted ? "aborted" : message && !message.isError && !failure ? "ok" : "error";
				const result = message
					? { content: message.content, details: message.details }
					: {
							content: [{ type: "text" as const, text: failure ?? "the host returned no result" }],
							details: undefined,
						};
				replaceCall({
					...base,
					status,
					durationMs: Math.round(performance.now() - started),
					updates,
					...(nested.list.length > 0 ? { nested: [...nested.list] } : {}),
					renderedResult: view(
						renderToolResult(definition, result, { expanded: true, isPartial: false }, ansiTheme, resultWidth, {
							...context,
							isError: message?.isError ?? true,
						}),
					),
					result: toJson(message ?? { content: result.content, isError: true }),
					recordable: session.recorder !== undefined && !aborted && message !== undefined,
				});
			},
		};
	};

	const startCall = (toolName: string, args: Json, width: number): CallStarted => {
		const id = `call-${++callCounter}`;
		const tracked = trackCall(id, id, toolName, args, width);
		const controller = new AbortController();
		running.set(id, () => controller.abort());
		void (async () => {
			let message: ToolResultMessage | undefined;
			let failure: string | undefined;
			try {
				const outcome = await session.execute(
					[{ type: "toolCall", id, name: toolName, arguments: args }],
					{ signal: controller.signal, onEvent: tracked.onEvent },
					"page",
				);
				message = outcome.results[0];
			} catch (error) {
				failure = `the host failed to run the call: ${errorMessage(error)}`;
			}
			running.delete(id);
			tracked.end(message, failure, controller.signal.aborted);
		})();
		return { id };
	};

	// Calls made at the `dev --ui` prompt show in the history too; Abort on the page aborts their batch.
	let terminalCounter = 0;
	unsubscribe.push(
		session.onBatch((batch) => {
			if (batch.origin !== "terminal") return undefined;
			const tracked = batch.calls.map((call) => {
				const id = `terminal-${++terminalCounter}`;
				running.set(id, batch.abort);
				return { id, call, view: trackCall(id, call.id, call.name, toJson(call.arguments), DEFAULT_WIDTH) };
			});
			return {
				onEvent: (event) => {
					for (const t of tracked) t.view.onEvent(event);
				},
				end: (results, aborted) => {
					for (const t of tracked) {
						running.delete(t.id);
						const message = results.find((r) => r.toolCallId === t.call.id);
						t.view.end(message, message ? undefined : "the host returned no result", aborted);
					}
				},
			};
		}),
	);

	const saveFixture = async (name: string | undefined): Promise<FixtureResponse> => {
		if (!session.recorder) throw new RequestError(409, "This inspector does not record its calls.");
		if (session.recordedCalls() === 0) {
			throw new RequestError(409, "Nothing to save yet: make a call first (aborted calls are left out).");
		}
		const base = safeFileName(name && name.trim() !== "" ? name : timestampName(new Date()));
		let path = join(fixturesDir, `${base}.json`);
		for (let n = 2; existsSync(path); n++) path = join(fixturesDir, `${base}-${n}.json`);
		const folder = dirname(path);
		const extensions = options.extensionPaths.map((p) => {
			const rel = relative(folder, p).split(sep).join("/");
			return rel === "" ? "." : rel;
		});
		const { fixture, calls: count, warnings } = await session.fixture({ name: name?.trim() || base, extensions });
		await mkdir(folder, { recursive: true });
		await writeFile(path, `${JSON.stringify(fixture, null, "\t")}\n`, { flag: "wx" });
		const shown = displayPath(path, cwd);
		return { path, displayPath: shown, calls: count, warnings, command: `npx toolsmith test ${quoteArg(shown)}` };
	};

	const toolNamed = (name: unknown): ToolDefinition => {
		if (typeof name !== "string") throw new RequestError(400, "Name the tool: { tool: <name> }.");
		const definition = activeDefinition(name);
		if (!definition) throw new RequestError(404, `No active tool is named ${JSON.stringify(name)}.`);
		return definition;
	};

	const http = createServer();
	const { port, urlHost } = await listen(http, options.port ?? 0, hostname);
	const url = `http://${urlHost}:${port}/?token=${token}`;
	// DNS rebinding: a foreign page that resolves its own name to this address still sends its own
	// Host. On loopback only this machine's names for it are accepted. Bound to another interface,
	// the server is reached under names it cannot know (its LAN address, a host name): any Host
	// goes, the token guards it, and an Origin must still be the page's own.
	const loopback = isLoopbackHostname(hostname);
	const hosts = new Set(["127.0.0.1", "localhost", "[::1]", urlHost].map((h) => `${h}:${port}`));
	let closed = false;

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const target = new URL(req.url ?? "/", "http://localhost");
		const hostHeader = req.headers.host ?? "";
		if (loopback ? !hosts.has(hostHeader) : hostHeader === "") {
			throw new RequestError(403, `Forbidden: Host ${JSON.stringify(hostHeader)} is not this server.`);
		}
		const origin = req.headers.origin;
		if (origin !== undefined && origin !== `http://${hostHeader}`) {
			throw new RequestError(403, `Forbidden: Origin ${JSON.stringify(origin)} is not this server.`);
		}
		const header = req.headers["x-toolsmith-token"];
		const given = target.searchParams.get("token") ?? (Array.isArray(header) ? header[0] : header) ?? "";
		if (!sameSecret(given, token)) {
			throw new RequestError(403, "Forbidden: open the address toolsmith printed, with its token.");
		}
		if (closed) throw new RequestError(503, "The inspector is shutting down.");
		const route = `${req.method ?? "GET"} ${target.pathname}`;
		switch (route) {
			case "GET /":
			case "GET /index.html":
				return send(res, 200, indexHtml, "text/html; charset=utf-8");
			case "GET /app.js":
			case "GET /app.css": {
				const asset = assets.get(target.pathname)!;
				return send(res, 200, asset.body, asset.type);
			}
			case "GET /api/state":
				return sendJson(res, 200, state());
			case "GET /api/events": {
				res.writeHead(200, {
					...SECURITY_HEADERS,
					"content-type": "text/event-stream; charset=utf-8",
					connection: "keep-alive",
				});
				res.write(
					`retry: 1000\ndata: ${JSON.stringify({ type: "hello", state: state() } satisfies InspectorEvent)}\n\n`,
				);
				streams.add(res);
				req.on("close", () => streams.delete(res));
				return;
			}
			case "POST /api/validate": {
				const body = await readJson(req);
				if (!isRecord(body)) throw new RequestError(400, "Send { tool, args }.");
				return sendJson(res, 200, validateForTool(toolNamed(body.tool), body.args));
			}
			case "POST /api/call": {
				const body = await readJson(req);
				if (!isRecord(body) || typeof body.tool !== "string") throw new RequestError(400, "Send { tool, args }.");
				const width =
					typeof body.width === "number" && Number.isFinite(body.width)
						? Math.min(400, Math.max(20, Math.floor(body.width)))
						: DEFAULT_WIDTH;
				return sendJson(res, 200, startCall(body.tool, toJson(body.args ?? {}), width));
			}
			case "POST /api/abort": {
				const body = await readJson(req);
				const id = isRecord(body) && typeof body.id === "string" ? body.id : "";
				const abort = running.get(id);
				abort?.();
				return sendJson(res, 200, { aborted: abort !== undefined });
			}
			case "GET /api/providers": {
				const definition = toolNamed(target.searchParams.get("tool"));
				const tool: ProviderTool = {
					name: definition.name,
					description: definition.description,
					parameters: definition.parameters,
				};
				const providers = TOOL_PROVIDERS.map((p) => providerView(tool, p));
				return sendJson(res, 200, { tool: definition.name, providers } satisfies ProvidersResponse);
			}
			case "POST /api/fixture": {
				const body = await readJson(req);
				const name = isRecord(body) && typeof body.name === "string" ? body.name : undefined;
				return sendJson(res, 200, await saveFixture(name));
			}
			default:
				throw new RequestError(
					target.pathname.startsWith("/api/") || target.pathname === "/" ? 405 : 404,
					`No ${route} here.`,
				);
		}
	};

	http.on("request", (req: IncomingMessage, res: ServerResponse) => {
		handle(req, res).catch((error: unknown) => {
			const status = error instanceof RequestError ? error.status : 500;
			sendJson(res, status, { error: status === 500 ? `Internal error: ${errorMessage(error)}` : errorMessage(error) });
		});
	});

	let closing: Promise<void> | undefined;
	return {
		url,
		port,
		token,
		close() {
			closing ??= (async () => {
				closed = true;
				clearInterval(heartbeat);
				for (const off of unsubscribe) off();
				for (const abort of running.values()) abort();
				for (const res of streams) res.end();
				streams.clear();
				await new Promise<void>((resolvePromise) => {
					http.close(() => resolvePromise());
					http.closeAllConnections();
				});
			})();
			return closing;
		},
	};
}

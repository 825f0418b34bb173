/**
 * The `ExtensionAPI` one version of an extension receives: what each member does while the version
 * loads, once it is active, and after it was unloaded (replaced, removed or timed out).
 */

import type { ExecutionEnv } from "../contract/env.js";
import { describeValue, errorMessage, ToolsmithError } from "../contract/errors.js";
import type { ToolDefinition } from "../contract/tool.js";
import { checkRegistration, listServers, type McpServerTable, replaceServersOf } from "./_mcp-servers.js";
import { EMITTED_EVENTS, UNSUPPORTED_API_MEMBERS } from "./_pi-stubs.js";
import type {
	EventBus,
	ExtensionAPI,
	ExtensionDiagnostic,
	ExtensionEventMap,
	ExtensionExecOptions,
	ExtensionExecResult,
	ExtensionHandler,
	ExtensionState,
	LoadedExtension,
	RegisteredCommand,
	RegisteredFlag,
	RegisteredMcpServer,
	ToolRendererResolver,
} from "./api.js";
import type { SourceHandlers, ToolRegistry } from "./registry.js";

type State = "loading" | "active" | "disposed";

/** One version of one extension, as the runtime keeps it. */
export interface Instance {
	readonly path: string;
	state: State;
	readonly tools: Map<string, ToolDefinition>;
	readonly handlers: Map<string, ExtensionHandler<keyof ExtensionEventMap>[]>;
	readonly commands: Map<string, RegisteredCommand>;
	readonly flags: Map<string, RegisteredFlag>;
	readonly reported: Set<string>;
	/** Its `api.events` listeners, removed when it is unloaded so an old version hears nothing more. */
	readonly subscriptions: Set<() => void>;
	/** Its `registerToolRenderer` resolvers, in registration order. */
	readonly toolRenderers: ToolRendererResolver[];
	/** The MCP servers it registered (while loading: not yet in the runtime's table). */
	readonly mcpServers: Map<string, RegisteredMcpServer>;
	record?: LoadedExtension;
}

/** What the APIs of all extensions of one runtime share. */
export interface ApiScope {
	readonly registry: ToolRegistry;
	readonly bus: EventBus;
	readonly env: ExecutionEnv;
	readonly cwd: string;
	/** The active versions, in load order (a live list: `getCommands` reads it). */
	readonly active: readonly Instance[];
	/** `api.state` of each extension, by path: outlives its versions. */
	readonly kept: Map<string, Map<string, unknown>>;
	/** Flag values the host was given, by flag name (`getFlag` answers these before defaults). */
	readonly flagValues: ReadonlyMap<string, boolean | string>;
	/** The MCP servers every active version registered. */
	readonly mcpTable: McpServerTable;
	/** Called after the MCP table changed. */
	mcpChanged(): void;
	/** Raise a diagnostic. */
	report(diagnostic: ExtensionDiagnostic): void;
	/** Raise the diagnostics of a registry call, when the registry does not report to the runtime's listener itself. */
	relay(diagnostics: readonly ExtensionDiagnostic[]): void;
}

/** Quote for a POSIX shell: nothing inside single quotes is interpreted. */
function shellQuote(value: string): string {
	if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
	return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The words of `api.exec(command, args)` as strings, or why they cannot be: numbers and booleans
 * are written out, anything else (an object, a Proxy, an `args` that is not an array) is refused
 * with a message naming the argument, so a hostile value never reaches `String()`.
 */
function execParts(command: unknown, args: unknown): string[] | string {
	let parts: unknown[];
	try {
		// Array.isArray throws for a revoked Proxy, the spread for a Proxy whose traps throw
		if (args !== undefined && !Array.isArray(args)) {
			return `api.exec: args must be an array of strings, got ${describeValue(args)}`;
		}
		parts = [command, ...((args as unknown[] | undefined) ?? [])];
	} catch (error) {
		return `api.exec: args cannot be read (${errorMessage(error)}); pass an array of strings`;
	}
	const words: string[] = [];
	for (const [index, part] of parts.entries()) {
		if (typeof part === "string") words.push(part);
		else if (typeof part === "number" || typeof part === "boolean" || typeof part === "bigint")
			words.push(String(part));
		else {
			const what = index === 0 ? "command" : `args[${index - 1}]`;
			return `api.exec: ${what} must be a string, got ${describeValue(part)}`;
		}
	}
	return words;
}

/** `api.state` of the extension at `path`, kept in `kept`. */
function stateOf(kept: ApiScope["kept"], path: string): ExtensionState {
	const values = (): Map<string, unknown> => {
		let map = kept.get(path);
		if (!map) {
			map = new Map();
			kept.set(path, map);
		}
		return map;
	};
	return {
		keep<T>(key: string, init: () => T): T {
			const map = values();
			if (!map.has(key)) map.set(key, init());
			return map.get(key) as T;
		},
		set(key, value) {
			values().set(key, value);
		},
		delete: (key) => kept.get(path)?.delete(key) ?? false,
	};
}

/** The `tool_call` and `tool_result` handlers of a version, for the registry. */
export function sourceHandlers(instance: Instance): SourceHandlers {
	return {
		tool_call: (instance.handlers.get("tool_call") ?? []) as ExtensionHandler<"tool_call">[],
		tool_result: (instance.handlers.get("tool_result") ?? []) as ExtensionHandler<"tool_result">[],
	};
}

/** Mark a version unloaded: later calls of its API are ignored, its bus listeners removed. */
export function dispose(instance: Instance): void {
	instance.state = "disposed";
	for (const subscription of [...instance.subscriptions]) subscription();
}

/** The API the factory of `instance` receives. */
export function createExtensionAPI(instance: Instance, scope: ApiScope): ExtensionAPI {
	const { registry, bus, env, cwd, active, kept, flagValues, report, relay, mcpTable } = scope;

	const reportOnce = (key: string, diagnostic: ExtensionDiagnostic): void => {
		if (instance.reported.has(key)) return;
		instance.reported.add(key);
		report(diagnostic);
	};

	/** Registration after this version was replaced, removed or timed out: ignored, reported once. */
	const late = (member: string): boolean => {
		if (instance.state !== "disposed") return false;
		reportOnce("late", {
			severity: "warning",
			code: "W_LATE_CALL",
			message: `${instance.path} called api.${member}() after it was unloaded (replaced, removed or timed out); the call was ignored.`,
			path: instance.path,
		});
		return true;
	};

	const notReady = (member: string): void => {
		if (instance.state === "loading") {
			throw new ToolsmithError(
				"E_NOT_READY",
				`api.${member}() is not available while ${instance.path} is loading: call it from an event handler (session_start), a tool or a command instead.`,
			);
		}
	};

	const runExec = async (
		command: string,
		args: readonly string[],
		execOptions: ExtensionExecOptions | undefined,
	): Promise<ExtensionExecResult> => {
		const parts = execParts(command, args);
		if (typeof parts === "string") return { stdout: "", stderr: parts, code: 1, killed: false };
		const line = parts.map(shellQuote).join(" ");
		const timeout =
			execOptions?.timeout !== undefined && execOptions.timeout > 0 ? execOptions.timeout / 1000 : undefined;
		const result = await env.exec(line, {
			cwd: execOptions?.cwd ?? cwd,
			...(execOptions?.signal ? { signal: execOptions.signal } : {}),
			...(timeout !== undefined ? { timeout } : {}),
			captureOutput: true,
		});
		if (result.ok) {
			return {
				stdout: result.value.stdout,
				stderr: result.value.stderr,
				code: result.value.exitCode,
				killed: false,
			};
		}
		const killed = result.error.code === "timeout" || result.error.code === "aborted";
		return { stdout: "", stderr: result.error.message, code: 1, killed };
	};

	const path = instance.path;
	const api: ExtensionAPI & Record<string, unknown> = {
		registerTool(def: ToolDefinition) {
			if (late("registerTool")) return;
			const name = typeof def?.name === "string" ? def.name : "";
			instance.tools.set(name, def);
			if (instance.state === "active") {
				const result = registry.register(def, { kind: "extension", path });
				relay(result.diagnostics);
				if (!result.accepted) instance.tools.delete(name);
			}
		},
		unregisterTool(name) {
			if (late("unregisterTool")) return;
			if (!instance.tools.delete(name)) return;
			if (instance.state === "active") registry.unregister(name, { kind: "extension", path });
		},
		on(event, handler) {
			if (late("on")) return () => {};
			if (typeof handler !== "function") return () => {};
			const list = instance.handlers.get(event) ?? [];
			// One entry per call, so removing it (the function \`on\` returns, as in pi 1.x) removes
			// this registration only, even when the same handler was registered twice.
			const registered = ((...args: Parameters<typeof handler>) => handler(...args)) as unknown as ExtensionHandler<
				keyof ExtensionEventMap
			>;
			list.push(registered);
			instance.handlers.set(event, list);
			if (!EMITTED_EVENTS.has(event)) {
				reportOnce(`event:${event}`, {
					severity: "info",
					code: "I_EVENT_NOT_EMITTED",
					message: `${path} listens to "${event}", which toolsmith never emits; the handler will not run.`,
					path,
				});
			}
			const sync = (): void => {
				if (instance.state === "active" && (event === "tool_call" || event === "tool_result")) {
					registry.setHandlers(path, sourceHandlers(instance));
				}
			};
			sync();
			return () => {
				const handlers = instance.handlers.get(event);
				const index = handlers?.indexOf(registered) ?? -1;
				if (!handlers || index < 0) return;
				handlers.splice(index, 1);
				if (handlers.length === 0) instance.handlers.delete(event);
				sync();
			};
		},
		events: {
			emit: (channel, data) => bus.emit(channel, data),
			on(channel, handler) {
				if (late("events.on")) return () => {};
				const off = bus.on(channel, handler);
				const subscription = () => {
					instance.subscriptions.delete(subscription);
					off();
				};
				instance.subscriptions.add(subscription);
				return subscription;
			},
		},
		exec(command, args, execOptions?: ExtensionExecOptions): Promise<ExtensionExecResult> {
			notReady("exec");
			return runExec(command, args, execOptions);
		},
		getAllTools() {
			notReady("getAllTools");
			return registry.infos();
		},
		getActiveTools() {
			notReady("getActiveTools");
			return registry.getActiveTools();
		},
		setActiveTools(names) {
			notReady("setActiveTools");
			for (const diagnostic of registry.setActiveTools([...names])) {
				report({ ...diagnostic, path });
			}
		},
		registerCommand(name, commandOptions) {
			if (late("registerCommand")) return;
			const command: RegisteredCommand = { ...commandOptions, name, path };
			instance.commands.set(name, command);
		},
		registerFlag(name, flagOptions) {
			if (late("registerFlag")) return;
			instance.flags.set(name, { ...flagOptions, name, path });
		},
		getFlag(name) {
			const flag = instance.flags.get(name);
			if (!flag) return undefined;
			return flagValues.has(name) ? flagValues.get(name) : flag.default;
		},
		state: stateOf(kept, path),
		registerToolRenderer(resolver) {
			if (late("registerToolRenderer")) return;
			if (typeof resolver !== "function") {
				throw new ToolsmithError(
					"E_INVALID_TOOL",
					`api.registerToolRenderer() takes a function (toolName, next) => renderers, got ${describeValue(resolver)}.`,
				);
			}
			instance.toolRenderers.push(resolver);
		},
		registerMcpServer(name, config) {
			if (late("registerMcpServer")) return;
			const loading = instance.state === "loading";
			const server = checkRegistration(mcpTable, instance.mcpServers, path, loading, name, config);
			instance.mcpServers.set(server.name, server);
			if (!loading && replaceServersOf(mcpTable, path, [...instance.mcpServers.values()])) scope.mcpChanged();
		},
		unregisterMcpServer(name) {
			if (late("unregisterMcpServer")) return;
			if (!instance.mcpServers.delete(name)) return;
			if (instance.state === "active" && replaceServersOf(mcpTable, path, [...instance.mcpServers.values()])) {
				scope.mcpChanged();
			}
		},
		getMcpServers() {
			return listServers(mcpTable);
		},
		getCommands() {
			return active.flatMap((other) =>
				[...other.commands.values()].map((command) => ({
					name: command.name,
					description: command.description,
					source: "extension",
					path: command.path,
				})),
			);
		},
	};
	for (const [member, answer] of Object.entries(UNSUPPORTED_API_MEMBERS)) {
		api[member] = () => {
			reportOnce(`member:${member}`, {
				severity: "warning",
				code: "W_UNSUPPORTED_API",
				message: `${path} called api.${member}(), which toolsmith does not implement (it has no sessions, models or UI); the call does nothing.`,
				path,
			});
			return answer();
		};
	}
	return api;
}

/**
 * A DevHost over a fixed list of definitions (`greet` from an extension with a `/hello` command, the
 * others built-ins), the real executor and a MemoryExecutionEnv.
 */
import { PassThrough } from "node:stream";
import type { DevHost } from "../../../src/cli/_dev-host.js";
import type { CliIO } from "../../../src/command/node-io.js";
import { type ToolContext, type ToolDefinition, wrapToolDefinitions } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { ExtensionDiagnostic, LoadedExtension } from "../../../src/extensions/api.js";
import type {
	ExtensionDiagnosticListener,
	ExtensionReloadEvent,
	ExtensionReloadListener,
} from "../../../src/extensions/node-host.js";
import type { ToolEntry } from "../../../src/extensions/registry.js";

/** The extension `greet` and `/hello` come from. */
const GREET = "/project/tools/greet.ts";

/**
 * A diagnostic as the tests write it: with a code only where the line they check shows one (a real
 * host always sets one; the loop prints it when there is one).
 */
export type TestDiagnostic = Omit<ExtensionDiagnostic, "code"> & Partial<Pick<ExtensionDiagnostic, "code">>;

/**
 * A reload event as the tests write it: `kind` is `reload`, `ok` whether no diagnostic is an error,
 * `trigger` `watch` and `files` `[path]` unless given.
 */
export type TestReloadEvent = Omit<ExtensionReloadEvent, "kind" | "ok" | "trigger" | "files" | "diagnostics"> &
	Partial<Pick<ExtensionReloadEvent, "kind" | "ok" | "trigger" | "files">> & {
		readonly diagnostics: readonly TestDiagnostic[];
	};

export interface FakeHost extends DevHost {
	emitReload(event: TestReloadEvent): void;
	emitDiagnostic(diagnostic: TestDiagnostic): void;
	closed: number;
}

export function fakeHost(definitions: ToolDefinition[], log: string[] = []): FakeHost {
	const env = new MemoryExecutionEnv({ cwd: "/project" });
	const reloadListeners = new Set<ExtensionReloadListener>();
	const diagnosticListeners = new Set<ExtensionDiagnosticListener>();
	const toolContext = (signal?: AbortSignal): ToolContext => ({
		env,
		cwd: env.cwd,
		hasUI: false,
		ui: {
			select: async () => undefined,
			confirm: async () => false,
			input: async () => undefined,
			notify: () => {},
		},
		...(signal ? { signal } : {}),
	});
	const entries: ToolEntry[] = definitions.map((definition) => ({
		name: definition.name,
		definition,
		source: definition.name === "greet" ? { kind: "extension", path: GREET } : { kind: "builtin" },
	}));
	const greetExtension: LoadedExtension = {
		path: GREET,
		root: "/project/tools",
		modules: [GREET],
		engines: undefined,
		loadDurationMs: 0,
		tools: entries.filter((entry) => entry.source.kind === "extension").map((entry) => entry.name),
		commands: [
			{
				name: "hello",
				description: "Say hello",
				path: GREET,
				handler: async (args) => {
					if (args === "fail") throw new Error("the handler broke");
					log.push(`hello(${args})`);
				},
			},
		],
		flags: [],
		events: [],
	};
	// The tests' diagnostics may lack a code (see TestDiagnostic); the loop never relies on one.
	const asDiagnostic = (diagnostic: TestDiagnostic) => diagnostic as ExtensionDiagnostic;
	const host: FakeHost = {
		closed: 0,
		ready: Promise.resolve({ extensions: [greetExtension], diagnostics: [], watching: false }),
		registry: { snapshot: () => ({ active: entries }) },
		runtime: {
			createContext: (path, signal) => ({ ...toolContext(signal), extension: { path: path ?? "builtin" } }),
		},
		extensions: () => [greetExtension],
		execute: (toolCalls, { ctxFactory, ...options } = {}) =>
			executeToolCalls(toolCalls, {
				tools: wrapToolDefinitions(definitions, ctxFactory ?? (({ signal }) => toolContext(signal))),
				...options,
			}),
		on(event: "reload" | "diagnostic", listener: ExtensionReloadListener | ExtensionDiagnosticListener) {
			const set = (event === "reload" ? reloadListeners : diagnosticListeners) as Set<typeof listener>;
			set.add(listener);
			return () => {
				set.delete(listener);
			};
		},
		buildToolsPrompt: () => `Available tools:\n${definitions.map((d) => `- ${d.name}: ${d.description}`).join("\n")}`,
		close: async () => {
			host.closed++;
		},
		emitReload: ({ kind, ok, trigger, files, diagnostics, ...event }) => {
			const full: ExtensionReloadEvent = {
				...event,
				kind: kind ?? "reload",
				ok: ok ?? !diagnostics.some((d) => d.severity === "error"),
				trigger: trigger ?? "watch",
				files: files ?? [event.path],
				diagnostics: diagnostics.map(asDiagnostic),
			};
			for (const listener of reloadListeners) listener(full);
		},
		emitDiagnostic: (diagnostic) => {
			for (const listener of diagnosticListeners) listener(asDiagnostic(diagnostic));
		},
	};
	return host;
}

export interface FakeIO extends CliIO {
	readonly stdin: PassThrough;
	out(): string;
	err(): string;
	interrupt(): void;
}

export function fakeIO(env: Record<string, string> = {}): FakeIO {
	let out = "";
	let err = "";
	const handlers = new Set<() => void>();
	return {
		stdin: new PassThrough(),
		stdout: { write: (chunk: string) => (out += chunk) },
		stderr: { write: (chunk: string) => (err += chunk) },
		env,
		cwd: "/project",
		onInterrupt(handler) {
			handlers.add(handler);
			return () => handlers.delete(handler);
		},
		out: () => out,
		err: () => err,
		interrupt: () => {
			for (const handler of handlers) handler();
		},
	};
}

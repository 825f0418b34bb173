/** A DevHost over a fixed list of definitions, the real executor and a MemoryExecutionEnv. */
import { PassThrough } from "node:stream";
import type { DevDiagnostic, DevHost, DevReloadEvent } from "../../../src/cli/_host.js";
import type { CliIO } from "../../../src/cli/_io.js";
import { type ToolDefinition, wrapToolDefinitions } from "../../../src/contract/index.js";
import { MemoryExecutionEnv } from "../../../src/env/index.js";
import { executeToolCalls } from "../../../src/exec/index.js";

export interface FakeHost extends DevHost {
	emitReload(event: DevReloadEvent): void;
	emitDiagnostic(diagnostic: DevDiagnostic): void;
	closed: number;
}

export function fakeHost(definitions: ToolDefinition[], log: string[] = []): FakeHost {
	const env = new MemoryExecutionEnv({ cwd: "/project" });
	const reloadListeners = new Set<(event: DevReloadEvent) => void>();
	const diagnosticListeners = new Set<(diagnostic: DevDiagnostic) => void>();
	const host: FakeHost = {
		closed: 0,
		tools: () =>
			definitions.map((definition) => ({
				name: definition.name,
				source: definition.name === "greet" ? "/project/tools/greet.ts" : "builtin",
				executionMode: definition.executionMode ?? "parallel",
				parameters: definition.parameters,
				definition,
			})),
		execute: (toolCalls, options) =>
			executeToolCalls(toolCalls, {
				tools: wrapToolDefinitions(definitions, ({ signal }) => ({
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
				})),
				...options,
			}),
		on(event: "reload" | "diagnostic", listener: (value: never) => void) {
			const set = (event === "reload" ? reloadListeners : diagnosticListeners) as Set<typeof listener>;
			set.add(listener);
			return () => set.delete(listener);
		},
		commands: () => [{ name: "hello", description: "Say hello", source: "/project/tools/greet.ts" }],
		async runCommand(name, args) {
			if (args === "fail") throw new Error("the handler broke");
			log.push(`${name}(${args})`);
		},
		buildToolsPrompt: () => `Available tools:\n${definitions.map((d) => `- ${d.name}: ${d.description}`).join("\n")}`,
		close: async () => {
			host.closed++;
		},
		emitReload: (event) => {
			for (const listener of reloadListeners) listener(event);
		},
		emitDiagnostic: (diagnostic) => {
			for (const listener of diagnosticListeners) listener(diagnostic);
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

/**
 * Type tests: compiled, never run. The package test type-checks this file in a fresh project that
 * installed the packed tarball; the repository's own `tsc` checks it against the sources. Every
 * `@ts-expect-error` must meet an error, so a type that silently widens (to `unknown`, or through a
 * declaration that does not resolve) fails the check.
 */

import {
	createReadTool,
	defineTool,
	type ExecutionEnv,
	type ExtensionAPI,
	MemoryExecutionEnv,
	type ReadToolDetails,
	type readToolParameters,
	type Static,
	Type,
} from "toolsmith-sdk";
import { createTestHarness, type TestHarness } from "toolsmith-sdk/harness";

// --- Parameter schemas keep their static type ----------------------------------------------------

type ReadArgs = Static<typeof readToolParameters>;
export const readArgs: ReadArgs = { path: "a.txt", offset: 2 };
// @ts-expect-error `path` is a string
export const wrongPath: ReadArgs = { path: 1 };
// @ts-expect-error unknown keys are not read arguments
export const unknownKey: ReadArgs = { path: "a.txt", zzz: 2 };
// @ts-expect-error `path` is required
export const missingPath: ReadArgs = { offset: 1 };

// --- defineTool: params from `parameters`, details from `execute` --------------------------------

interface Tally {
	readonly count: number;
	readonly label: string;
}

export const counter = defineTool({
	name: "counter",
	label: "Counter",
	description: "Count to n.",
	parameters: Type.Object({ n: Type.Integer(), label: Type.Optional(Type.String()) }),
	async execute(_toolCallId, params, _signal, onUpdate) {
		const n: number = params.n;
		const label: string | undefined = params.label;
		// @ts-expect-error `params` has no `m`
		params.m;
		onUpdate?.({ content: [], details: { count: 0, label: label ?? "" } });
		const details: Tally = { count: n, label: label ?? "" };
		return { content: [{ type: "text", text: String(n) }], details };
	},
	renderCall(args) {
		// @ts-expect-error `n` is a number
		const text: string = args.n;
		return text;
	},
	renderResult(result) {
		// `details` is what `execute` returns, although `execute` takes `onUpdate`.
		const tally: Tally = result.details;
		// @ts-expect-error `Tally` has no `total`
		result.details.total;
		return `${tally.label}${tally.count}`;
	},
});

// The definition keeps its types for whoever uses it later.
export const counterName: "counter" = counter.name;
export async function runCounter(env: ExecutionEnv): Promise<Tally> {
	const ui = { select: async () => undefined, confirm: async () => false, input: async () => undefined, notify() {} };
	const result = await counter.execute("id", { n: 3 }, undefined, undefined, { env, cwd: env.cwd, hasUI: false, ui });
	// @ts-expect-error `n` is a number
	await counter.execute("id", { n: "3" }, undefined, undefined, { env, cwd: env.cwd, hasUI: false, ui });
	return result.details;
}

export const withoutUpdates = defineTool({
	name: "plain",
	label: "Plain",
	description: "Return a fixed shape.",
	parameters: Type.Object({}),
	async execute() {
		return { content: [], details: { ok: true } };
	},
	renderResult(result) {
		const ok: boolean = result.details.ok;
		// @ts-expect-error `ok` is a boolean
		const wrong: string = result.details.ok;
		return String(ok) + wrong;
	},
});

// A definition written inline in `registerTool` is typed the same way.
export function register(api: ExtensionAPI): void {
	api.registerTool({
		name: "inline",
		label: "Inline",
		description: "An inline definition.",
		parameters: Type.Object({ word: Type.String() }),
		async execute(_toolCallId, { word }, _signal, onUpdate) {
			onUpdate?.({ content: [], details: { length: 0 } });
			return { content: [], details: { length: word.length } };
		},
		renderResult(result) {
			const length: number = result.details.length;
			// @ts-expect-error `length` is a number
			const text: string = result.details.length;
			return `${length}${text}`;
		},
	});
}

// A wrapped built-in keeps the built-in's details.
export const guardedRead = defineTool({
	...createReadTool(),
	async execute(toolCallId, params, signal, onUpdate, ctx) {
		// @ts-expect-error read arguments have no `file`
		params.file;
		return createReadTool().execute(toolCallId, params, signal, onUpdate, ctx);
	},
	renderResult(result) {
		const details: ReadToolDetails = result.details;
		// @ts-expect-error read details have no `lines`
		result.details.lines;
		return details.truncation ? "truncated" : "whole";
	},
});

// Tools of different parameters and details, registered together: a module's tools through
// `Object.values` (as a project's entry registers `src/tools/`) give a union of definitions.
const tools = { counter, withoutUpdates, guardedRead };
export function registerAll(api: ExtensionAPI): void {
	for (const tool of Object.values(tools)) api.registerTool(tool);
	const some: readonly (typeof counter | typeof withoutUpdates)[] = [counter, withoutUpdates];
	for (const tool of some) api.registerTool(tool);
	// @ts-expect-error a definition needs `execute`
	api.registerTool({ name: "broken", label: "Broken", description: "No execute.", parameters: Type.Object({}) });
}

// --- harness.call checks arguments of the tools it knows -------------------------------------------

export async function harnessCalls(): Promise<void> {
	const harness = await createTestHarness({ tools: [counter], extensions: ["./extension.ts"] });
	await harness.call("read", { path: "a.txt", limit: 10 });
	// @ts-expect-error `path` is a string
	await harness.call("read", { path: 1 });
	// @ts-expect-error read arguments have no `zzz`
	await harness.call("read", { path: "a.txt", zzz: 1 });
	await harness.call("counter", { n: 2 });
	// @ts-expect-error `n` is a number
	await harness.call("counter", { n: "2" });
	// A tool only an extension registers: the types cannot know its schema.
	await harness.call("from_extension", { anything: [1, 2] });
	const name: string = "read";
	await harness.call(name, { path: 1 });
	// A typed harness still fits where a plain one is expected.
	const plain: TestHarness = harness;
	await plain.call("read", { path: 1 });

	// A tool in `tools` replaces the built-in of the same name, for the types too.
	const byPage = defineTool({
		name: "read",
		label: "Read",
		description: "Read one page of a file.",
		parameters: Type.Object({ file: Type.String(), page: Type.Integer() }),
		async execute(_toolCallId, { file, page }) {
			return { content: [{ type: "text", text: `${file}#${page}` }], details: {} };
		},
	});
	const replaced = await createTestHarness({ tools: [byPage] });
	await replaced.call("read", { file: "a.txt", page: 2 });
	// @ts-expect-error this `read` takes `file` and `page`
	await replaced.call("read", { path: "a.txt" });

	// Without the built-ins, `read` is an unknown name like any other.
	const bare = await createTestHarness({ builtins: false, tools: [counter] });
	await bare.call("read", { path: 1 });
	// @ts-expect-error `n` is required
	await bare.call("counter", {});
}

// --- env.exists answers a boolean, and a forgotten await is an error -------------------------------

export async function exists(env: MemoryExecutionEnv = new MemoryExecutionEnv()): Promise<string> {
	const path = "a.txt";
	// @ts-expect-error TS2801: a promise is always truthy; `await` it
	if (env.exists(path)) return "always";
	if (await env.exists(path)) return "there";
	return "missing";
}

// --- The runtime subpath: a host's own registry over the built-ins ---------------------------------

import { createBuiltinTools } from "toolsmith-sdk";
import { createToolRegistry, type ToolRegistry } from "toolsmith-sdk/runtime";

export const registry: ToolRegistry = createToolRegistry({ builtins: createBuiltinTools() });
// @ts-expect-error the runtime plumbing is not on the main entry
export { createExtensionRuntime } from "toolsmith-sdk";

// --- The render and providers subpaths: what hosts draw and send ----------------------------------

import { type OpenAIChatTool, type ProviderTool, toOpenAIChatTools } from "toolsmith-sdk/providers";
import { plainTheme, renderToolCall, visibleWidth } from "toolsmith-sdk/render";
import { executeToolCalls, type ToolCall } from "toolsmith-sdk/runtime";

export const drawn: number = visibleWidth(
	renderToolCall(createBuiltinTools()[0], { path: "a" }, plainTheme, 80).lines.join("\n"),
);
export const sent: readonly ProviderTool[] = createBuiltinTools();
export const wire: OpenAIChatTool[] = toOpenAIChatTools(sent);
export const calls: ToolCall[] = [{ type: "toolCall", id: "1", name: "read", arguments: { path: "a" } }];
export const run: ReturnType<typeof executeToolCalls> = executeToolCalls(calls, { tools: [] });
// @ts-expect-error the themes moved to toolsmith-sdk/render (docs/migration.md)
export { ansiTheme } from "toolsmith-sdk";

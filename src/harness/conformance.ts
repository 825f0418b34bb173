/**
 * Conformance checks for one tool definition: static checks of what providers and prompts will
 * see, and behavioral checks on a MemoryExecutionEnv with arguments generated from the schema.
 * Each check passes, fails, or is skipped with a reason. Runtime-neutral.
 */
import type { ToolCall, ToolResultMessage } from "../contract/content.js";
import { describeValue, errorMessage } from "../contract/errors.js";
import type { AgentToolResult, ToolDefinition } from "../contract/tool.js";
import { wrapToolDefinition } from "../contract/tool.js";
import { MemoryExecutionEnv, type MemorySeedFile, type ScriptedCommand } from "../env/memory.js";
import { executeToolCalls } from "../exec/execute.js";
import { checkToolName } from "../providers/names.js";
import { compileToolSchema } from "../providers/schema.js";
import type { ToolProvider } from "../providers/types.js";
import { plainTheme } from "../render/theme.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "../tools/truncate.js";
import { headlessContextFactory } from "./_context.js";
import { nearMisses, sampleValue } from "./_samples.js";
import {
	type CheckStatus,
	CONFORMANCE_CHECKS,
	type ConformanceCheck,
	type ConformanceCheckId,
	type ToolConformanceReport,
} from "./conformance-checks.js";

/** Options for `checkTool`: the memory world its behavioral checks run in and argument samples of your own. */
export interface CheckToolOptions {
	/** Files of the memory env the behavioral checks run in. */
	readonly files?: Readonly<Record<string, MemorySeedFile>>;
	/** Its scripted shell. */
	readonly commands?: readonly ScriptedCommand[];
	readonly cwd?: string;
	/** Your own valid argument samples, run before the generated ones. */
	readonly samples?: readonly unknown[];
	/** How many samples to generate (default 3). */
	readonly generatedSamples?: number;
	/** Skip the determinism check (for tools whose output depends on time or randomness). */
	readonly nondeterministic?: boolean;
	/** The tool's output budget, when it is larger than the built-ins' 2000 lines / 50 KB. */
	readonly budget?: { readonly maxLines?: number; readonly maxBytes?: number };
	/** How long `execute` may take to settle after its signal aborts (default 1000 ms). */
	readonly abortWithinMs?: number;
	/** Description length bounds (default 10 to 4096 characters). */
	readonly descriptionLength?: { readonly min?: number; readonly max?: number };
	/**
	 * Never call the tool: only the static checks run, and every behavioral one is skipped with this
	 * reason. For tools that act on the real world rather than on the env, such as an MCP server's.
	 */
	readonly skipCalls?: string;
}

interface SampleRun {
	readonly args: unknown;
	readonly message: ToolResultMessage;
	readonly updates: AgentToolResult<unknown>[];
	/**
	 * What `execute` itself did (seen through the wrapper): `outcome` says whether it returned or
	 * threw, since the value alone cannot (a tool may throw `undefined`); unset when it never ran.
	 */
	readonly raw: { outcome?: "returned" | "threw"; returned?: unknown; threw?: unknown };
}

const encoder = new TextEncoder();
const PROVIDERS: readonly [ConformanceCheckId, ToolProvider, string][] = [
	["schema-openai", "openai-chat", "OpenAI"],
	["schema-anthropic", "anthropic", "Anthropic"],
	["schema-google", "google", "Google"],
];

function title(id: ConformanceCheckId): string {
	return CONFORMANCE_CHECKS.find((check) => check.id === id)?.title ?? id;
}

function check(
	id: ConformanceCheckId,
	status: CheckStatus,
	message: string,
	details: readonly string[] = [],
): ConformanceCheck {
	return { id, title: title(id), status, message, details };
}

/** Why a result's content is malformed, or undefined. */
function contentProblem(content: unknown): string | undefined {
	if (!Array.isArray(content)) return "content is not an array";
	for (let i = 0; i < content.length; i++) {
		const block = content[i] as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown } | null;
		if (typeof block !== "object" || block === null) return `content[${i}] is not an object`;
		if (block.type === "text") {
			if (typeof block.text !== "string") return `content[${i}].text is not a string`;
		} else if (block.type === "image") {
			if (typeof block.data !== "string" || typeof block.mimeType !== "string") {
				return `content[${i}] is an image without string data and mimeType`;
			}
		} else return `content[${i}] has unknown type ${short(block.type)}`;
	}
	return undefined;
}

function textOf(content: readonly { type: string; text?: string }[]): string {
	return content
		.filter((block) => block.type === "text")
		.map((block) => block.text ?? "")
		.join("\n");
}

function code(message: ToolResultMessage): string | undefined {
	const details = message.details as { code?: unknown } | undefined;
	return typeof details?.code === "string" ? details.code : undefined;
}

function short(value: unknown): string {
	// a string JSON-quoted, anything else described: never throws (a cyclic or revoked value from a tool)
	if (typeof value !== "string") return describeValue(value, 120);
	const json = JSON.stringify(value);
	return json.length > 120 ? `${json.slice(0, 120)}…` : json;
}

/**
 * The `content` skip when no sample returned: what each did instead (the same counts the `throws`
 * check sees), what the first failures said, and how to give the tool a world it succeeds in.
 */
function noResultSkip(runs: readonly SampleRun[]): ConformanceCheck {
	const threw = runs.filter((run) => run.raw.outcome === "threw");
	const rejected = runs.length - threw.length;
	const what = [
		...(threw.length > 0 ? [`${threw.length} threw`] : []),
		...(rejected > 0 ? [`${rejected} ${rejected === 1 ? "was" : "were"} rejected before execute`] : []),
	];
	return check(
		"content",
		"skip",
		`no sample returned a result (${what.join(", ") || "none ran"}); give the tool files and samples it succeeds on (toolsmith check --files, --sample, --fixtures; the files and samples options)`,
		runs.slice(0, 3).map((run) => `${short(run.args)}: ${firstLine(textOf(run.message.content))}`),
	);
}

function firstLine(text: string): string {
	const line = text.split("\n")[0] ?? "";
	return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

class Checker {
	constructor(
		private readonly definition: ToolDefinition,
		private readonly options: CheckToolOptions,
	) {}

	freshEnv(): MemoryExecutionEnv {
		return new MemoryExecutionEnv({
			cwd: this.options.cwd ?? "/project",
			clock: () => 0,
			...(this.options.files ? { files: this.options.files } : {}),
			...(this.options.commands ? { commands: this.options.commands } : {}),
		});
	}

	/** One call through the executor on a fresh env, watching what `execute` does. */
	async run(args: unknown, env = this.freshEnv()): Promise<SampleRun> {
		const raw: SampleRun["raw"] = {};
		const updates: AgentToolResult<unknown>[] = [];
		const definition = this.definition;
		const watched: ToolDefinition = {
			...definition,
			execute: async (id, params, signal, onUpdate, ctx) => {
				try {
					const returned = await definition.execute(id, params, signal, onUpdate, ctx);
					raw.outcome = "returned";
					raw.returned = returned;
					return returned;
				} catch (error) {
					raw.outcome = "threw";
					raw.threw = error;
					throw error;
				}
			},
		};
		const tool = wrapToolDefinition(watched, headlessContextFactory(env));
		const call: ToolCall = { type: "toolCall", id: "conformance", name: definition.name, arguments: args };
		const { results } = await executeToolCalls([call], {
			tools: [tool],
			onEvent: (event) => {
				if (event.type === "tool_execution_update") updates.push(event.partialResult);
			},
		});
		return { args, message: results[0]!, updates, raw };
	}

	staticChecks(): ConformanceCheck[] {
		const d = this.definition;
		const out: ConformanceCheck[] = [];
		const names = checkToolName(typeof d.name === "string" ? d.name : "");
		const failing = (["openai", "anthropic", "google"] as const).filter((p) => !names[p].ok);
		out.push(
			failing.length === 0
				? check("name-valid", "pass", `${short(d.name)} is accepted by OpenAI, Anthropic and Google`)
				: check(
						"name-valid",
						"fail",
						`${short(d.name)} is rejected by ${failing.join(", ")}`,
						failing.map((p) => `${p}: ${names[p].problem ?? names[p].rule}`),
					),
		);
		const min = this.options.descriptionLength?.min ?? 10;
		const max = this.options.descriptionLength?.max ?? 4096;
		const description = typeof d.description === "string" ? d.description.trim() : "";
		out.push(
			description.length === 0
				? check("description", "fail", "the description is missing or empty; the model reads it to decide when to call")
				: description.length < min
					? check(
							"description",
							"fail",
							`the description has ${description.length} characters; say what the tool does (at least ${min})`,
						)
					: description.length > max
						? check(
								"description",
								"fail",
								`the description has ${description.length} characters, over ${max}; it costs context on every turn`,
							)
						: check("description", "pass", `${description.length} characters`),
		);
		out.push(
			typeof d.label === "string" && d.label.trim() !== ""
				? check("label", "pass", short(d.label))
				: check("label", "fail", "the label is missing or empty; UIs show it"),
		);
		const parameters = d.parameters as { type?: unknown } | undefined;
		const isObject = typeof parameters === "object" && parameters !== null && parameters.type === "object";
		out.push(
			isObject
				? check("parameters-object", "pass", "an object schema")
				: check(
						"parameters-object",
						"fail",
						`parameters must be an object schema (Type.Object), got ${short(parameters)}`,
					),
		);
		for (const [id, provider, label] of PROVIDERS) {
			if (!isObject) {
				out.push(check(id, "skip", "parameters are not an object schema"));
				continue;
			}
			const compiled = compileToolSchema(d.parameters, provider);
			const rewrites = compiled.rewrites.map((r) => `rewrite ${r.path || "(root)"}: ${r.message}`);
			out.push(
				compiled.errors.length === 0
					? check(id, "pass", `${compiled.rewrites.length} rewrite(s)`, rewrites)
					: check(id, "fail", `${label} cannot take the schema: ${compiled.errors.length} error(s)`, [
							...compiled.errors.map((e) => `error ${e.path || "(root)"}: ${e.message}`),
							...rewrites,
						]),
			);
		}
		if (d.promptSnippet === undefined)
			out.push(check("prompt-snippet", "skip", "no promptSnippet (the description's first sentence is used)"));
		else if (typeof d.promptSnippet !== "string" || d.promptSnippet.trim() === "" || /[\r\n]/.test(d.promptSnippet)) {
			out.push(
				check("prompt-snippet", "fail", `promptSnippet must be one non-empty line, got ${short(d.promptSnippet)}`),
			);
		} else out.push(check("prompt-snippet", "pass", "one line"));
		if (d.promptGuidelines === undefined) out.push(check("prompt-guidelines", "skip", "no promptGuidelines"));
		else {
			const guidelines: unknown = d.promptGuidelines;
			const bad = Array.isArray(guidelines)
				? guidelines
						.map((g, i) =>
							typeof g === "string" && g.trim() !== "" ? undefined : `promptGuidelines[${i}] is ${short(g)}`,
						)
						.filter((x): x is string => x !== undefined)
				: ["promptGuidelines is not an array"];
			out.push(
				bad.length === 0
					? check("prompt-guidelines", "pass", `${(guidelines as unknown[]).length} bullet(s)`)
					: check("prompt-guidelines", "fail", "promptGuidelines must be non-empty strings", bad),
			);
		}
		return out;
	}

	samples(): unknown[] {
		const count = this.options.generatedSamples ?? 3;
		const generated = Array.from({ length: count }, (_, i) => sampleValue(this.definition.parameters, i));
		const all = [...(this.options.samples ?? []), ...generated];
		const seen = new Set<string>();
		return all.filter((sample) => {
			// A sample that is not JSON (a BigInt, a cycle) is kept as is: the run reports what it does.
			let key: string;
			try {
				key = JSON.stringify(sample);
			} catch {
				return true;
			}
			if (seen.has(key)) return false;
			seen.add(key);
			return true;
		});
	}

	async behavioralChecks(): Promise<ConformanceCheck[]> {
		const out: ConformanceCheck[] = [];
		const samples = this.samples();
		const runs: SampleRun[] = [];
		const problems: string[] = [];
		for (const args of samples) {
			try {
				const run = await this.run(args);
				runs.push(run);
				const c = code(run.message);
				if (c === "E_INVALID_ARGS" || c === "E_PREPARE_FAILED") {
					problems.push(`${short(args)} was rejected (${c}): ${textOf(run.message.content).split("\n")[0]}`);
				} else if (c === "E_BAD_RESULT") {
					problems.push(`${short(args)}: ${textOf(run.message.content).split("\n")[0]}`);
				}
			} catch (error) {
				problems.push(`${short(args)}: the executor rejected: ${errorMessage(error)}`);
			}
		}
		const ranAll = runs.filter((r) => r.raw.outcome !== undefined).length;
		out.push(
			problems.length === 0
				? check("valid-samples", "pass", `${samples.length} sample(s), ${ranAll} reached execute`)
				: check(
						"valid-samples",
						"fail",
						`${problems.length} of ${samples.length} valid sample(s) went wrong`,
						problems,
					),
		);

		out.push(await this.invalidSamplesCheck(samples[0]));
		out.push(await this.abortCheck(samples[0]));
		out.push(this.contentCheck(runs));
		out.push(await this.throwsCheck(runs, samples));
		out.push(this.updatesCheck(runs));
		out.push(this.renderCheck(runs));
		out.push(await this.determinismCheck(samples[0]));
		return out;
	}

	async invalidSamplesCheck(valid: unknown): Promise<ConformanceCheck> {
		const misses = nearMisses(this.definition.parameters, valid);
		if (misses.length === 0) return check("invalid-samples", "skip", "the schema has no field a near miss can break");
		const problems: string[] = [];
		for (const miss of misses) {
			const run = await this.run(miss.args);
			const text = textOf(run.message.content);
			if (!run.message.isError) problems.push(`${miss.kind} ${miss.field}: accepted (${short(miss.args)})`);
			else if (run.raw.outcome !== undefined) {
				problems.push(`${miss.kind} ${miss.field}: reached execute instead of being rejected by validation`);
			} else if (!text.includes(miss.key))
				problems.push(`${miss.kind} ${miss.field}: the error does not name the field: ${short(text)}`);
		}
		return problems.length === 0
			? check(
					"invalid-samples",
					"pass",
					`${misses.length} near miss(es) rejected: ${misses.map((m) => m.kind).join(", ")}`,
				)
			: check("invalid-samples", "fail", `${problems.length} near miss(es) handled wrongly`, problems);
	}

	async abortCheck(args: unknown): Promise<ConformanceCheck> {
		const limit = this.options.abortWithinMs ?? 1000;
		const env = this.freshEnv();
		const controller = new AbortController();
		const ctx = headlessContextFactory(env)({
			toolCallId: "abort",
			toolName: this.definition.name,
			signal: controller.signal,
		});
		let timer: ReturnType<typeof setTimeout> | undefined;
		const started = Date.now();
		try {
			const execution = Promise.resolve()
				.then(() => this.definition.execute("abort", args as never, controller.signal, () => {}, ctx))
				.then(
					() => "settled",
					() => "settled",
				);
			setTimeout(() => controller.abort(), 0);
			const outcome = await Promise.race([
				execution,
				new Promise<string>((resolve) => {
					timer = setTimeout(() => resolve("timeout"), limit + 50);
				}),
			]);
			if (outcome === "timeout") {
				return check(
					"abort",
					"fail",
					`execute did not settle within ${limit} ms of its signal aborting; listen to the signal`,
				);
			}
			return check("abort", "pass", `settled ${Date.now() - started} ms after the call`);
		} finally {
			if (timer !== undefined) clearTimeout(timer);
		}
	}

	contentCheck(runs: readonly SampleRun[]): ConformanceCheck {
		const maxLines = this.options.budget?.maxLines ?? DEFAULT_MAX_LINES;
		const maxBytes = this.options.budget?.maxBytes ?? DEFAULT_MAX_BYTES;
		// A continuation notice may follow a full page: allow a little over the budget for it.
		const slackBytes = 1024;
		const slackLines = 4;
		const problems: string[] = [];
		let checked = 0;
		for (const run of runs) {
			if (run.raw.outcome !== "returned") continue;
			checked++;
			const returned = run.raw.returned as { content?: unknown; isError?: unknown } | null | undefined;
			const problem =
				typeof returned === "object" && returned !== null
					? contentProblem(returned.content)
					: "the result is not an object";
			if (problem) {
				problems.push(`${short(run.args)}: ${problem}`);
				continue;
			}
			const text = textOf((returned as { content: { type: string }[] }).content);
			const bytes = encoder.encode(text).length;
			const lines = text.split("\n").length;
			if (bytes > maxBytes + slackBytes)
				problems.push(`${short(run.args)}: ${bytes} bytes of text, over the ${maxBytes}-byte budget`);
			if (lines > maxLines + slackLines)
				problems.push(`${short(run.args)}: ${lines} lines of text, over the ${maxLines}-line budget`);
		}
		if (checked === 0) return noResultSkip(runs);
		return problems.length === 0
			? check("content", "pass", `${checked} result(s) checked`)
			: check("content", "fail", `${problems.length} result(s) malformed or over budget`, problems);
	}

	async throwsCheck(runs: readonly SampleRun[], samples: readonly unknown[]): Promise<ConformanceCheck> {
		const problems: string[] = [];
		// A failure is thrown, or returned with `isError: true` (pi 1.x); any other `isError` counts as success.
		const reported = (run: SampleRun): boolean =>
			run.raw.outcome === "threw" ||
			(run.raw.outcome === "returned" && (run.raw.returned as { isError?: unknown } | undefined)?.isError === true);
		for (const run of runs) {
			const returned =
				run.raw.outcome === "returned" && typeof run.raw.returned === "object" && run.raw.returned !== null
					? (run.raw.returned as { isError?: unknown })
					: undefined;
			if (returned && "isError" in returned && typeof returned.isError !== "boolean") {
				problems.push(
					`${short(run.args)}: returned isError ${short(returned.isError)}, which counts as success; return true or false, or throw`,
				);
			}
			if (returned?.isError === true && !run.message.isError)
				problems.push(`${short(run.args)}: returned isError: true but the result is not an error`);
			if (run.raw.outcome === "threw") {
				const message = errorMessage(run.raw.threw);
				if (!run.message.isError) problems.push(`${short(run.args)}: threw but the result is not an error`);
				else if (message && !textOf(run.message.content).includes(message.slice(0, 200))) {
					problems.push(`${short(run.args)}: the error result does not carry the thrown message`);
				}
			}
		}
		// A world where every file and command fails: a tool that touches it should report failure.
		const broken = new MemoryExecutionEnv({
			cwd: this.options.cwd ?? "/project",
			clock: () => 0,
			commands: [{ match: () => true, stderr: "conformance: failing command\n", exitCode: 1 }],
		});
		let failed = runs.filter(reported).length;
		for (const args of samples.slice(0, 2)) {
			const run = await this.run(args, broken);
			if (reported(run)) failed++;
		}
		if (problems.length > 0)
			return check("throws", "fail", "failures are not reported by throwing or isError: true", problems);
		if (failed === 0) return check("throws", "skip", "no sample made the tool fail, so nothing to check");
		return check("throws", "pass", `${failed} reported failure(s) became error results`);
	}

	updatesCheck(runs: readonly SampleRun[]): ConformanceCheck {
		const updates = runs.flatMap((run) => run.updates.map((update) => ({ args: run.args, update })));
		if (updates.length === 0) return check("updates", "skip", "no sample sent partial updates");
		const problems = updates
			.map(({ args, update }) => {
				const problem =
					typeof update === "object" && update !== null
						? contentProblem(update.content)
						: "the update is not an object";
				return problem ? `${short(args)}: ${problem}` : undefined;
			})
			.filter((x): x is string => x !== undefined);
		return problems.length === 0
			? check("updates", "pass", `${updates.length} update(s) well formed`)
			: check("updates", "fail", `${problems.length} malformed update(s)`, problems.slice(0, 10));
	}

	renderCheck(runs: readonly SampleRun[]): ConformanceCheck {
		const d = this.definition;
		if (!d.renderCall && !d.renderResult) return check("render", "skip", "no renderCall or renderResult");
		const problems: string[] = [];
		for (const run of runs) {
			try {
				d.renderCall?.(run.args as never, plainTheme, { toolCallId: "conformance" });
			} catch (error) {
				problems.push(`renderCall(${short(run.args)}) threw: ${errorMessage(error)}`);
			}
			const result = (run.raw.outcome === "returned" ? (run.raw.returned as AgentToolResult<unknown>) : undefined) ?? {
				content: run.message.content,
				details: run.message.details,
			};
			for (const options of [
				{ expanded: false, isPartial: false },
				{ expanded: true, isPartial: false },
			]) {
				try {
					d.renderResult?.(result as never, options, plainTheme, { args: run.args, isError: run.message.isError });
				} catch (error) {
					problems.push(
						`renderResult(${options.expanded ? "expanded" : "collapsed"}) for ${short(run.args)} threw: ${errorMessage(error)}`,
					);
				}
			}
			for (const update of run.updates) {
				try {
					d.renderResult?.(update as never, { expanded: false, isPartial: true }, plainTheme, { args: run.args });
				} catch (error) {
					problems.push(`renderResult(partial) for ${short(run.args)} threw: ${errorMessage(error)}`);
					break;
				}
			}
		}
		return problems.length === 0
			? check("render", "pass", `${runs.length} sample(s) rendered`)
			: check("render", "fail", `${problems.length} render call(s) threw`, problems);
	}

	async determinismCheck(args: unknown): Promise<ConformanceCheck> {
		const declared = this.definition.nondeterministic === true;
		if (this.options.nondeterministic || declared) {
			return check("deterministic", "skip", "the tool is declared nondeterministic");
		}
		const first = await this.run(args);
		const second = await this.run(args);
		const a = JSON.stringify({ isError: first.message.isError, content: first.message.content });
		const b = JSON.stringify({ isError: second.message.isError, content: second.message.content });
		return a === b
			? check("deterministic", "pass", "equal results")
			: check(
					"deterministic",
					"fail",
					"two fresh envs gave different results; declare the tool nondeterministic if that is intended",
					[`first:  ${short(first.message.content)}`, `second: ${short(second.message.content)}`],
				);
	}
}

/**
 * Run every conformance check on `definition`. Never rejects: a check that cannot run is a
 * failure or a skip with the reason.
 */
export async function checkTool(
	definition: ToolDefinition,
	options: CheckToolOptions = {},
): Promise<ToolConformanceReport> {
	const checker = new Checker(definition, options);
	const checks = checker.staticChecks();
	const parametersOk = checks.find((c) => c.id === "parameters-object")?.status === "pass";
	const executable = typeof definition.execute === "function";
	if (parametersOk && executable && options.skipCalls === undefined) {
		try {
			checks.push(...(await checker.behavioralChecks()));
		} catch (error) {
			checks.push(check("valid-samples", "fail", `the checks themselves failed: ${errorMessage(error)}`));
		}
	}
	const ran = new Set(checks.map((c) => c.id));
	for (const { id } of CONFORMANCE_CHECKS) {
		if (!ran.has(id)) {
			const reason = !executable
				? "execute is not a function"
				: !parametersOk
					? "parameters are not an object schema"
					: (options.skipCalls ?? "not run");
			checks.push(check(id, "skip", reason));
		}
	}
	const order = new Map<string, number>(CONFORMANCE_CHECKS.map((c, i) => [c.id, i]));
	checks.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
	return { tool: describeValue(definition.name), checks, pass: checks.every((c) => c.status !== "fail") };
}

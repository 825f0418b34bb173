/**
 * `constrainedSampling` against pi-ai 1.6.0's own converters (run under the Node the release needs,
 * test/compat/_constrained-sampling.mjs): for the same tools, toolsmith's converters declare what pi
 * sends: strict tools for OpenAI, Anthropic and Google, grammar (custom) tools for OpenAI, plain
 * tools where the model takes neither, and a refusal where pi refuses. Skips when
 * `npm run compat:setup` has not installed the release.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import type { ConstrainedSamplingConfig } from "../../../src/contract/tool.js";
import { compileToolSchema } from "../../../src/providers/schema.js";
import {
	type ConvertToolsOptions,
	type ProviderTool,
	toAnthropicTools,
	toGoogleTools,
	toOpenAIChatTools,
	toOpenAIResponsesTools,
} from "../../../src/providers/tools.js";
import type { ToolProvider } from "../../../src/providers/types.js";
import { findRelease, nodeFor } from "../../compat/_reference.js";

const release = findRelease("@earendil-works", "1.6.0");
const piAi = release ? join(release.dir, "..", "pi-ai") : undefined;
const available = piAi !== undefined && existsSync(join(piAi, "package.json"));
const script = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "compat", "_constrained-sampling.mjs");

interface Run {
	readonly provider: ToolProvider;
	readonly strictTools?: boolean;
	readonly grammarTools?: boolean;
}

type Outcome = { readonly tools: unknown } | { readonly error: string };

/** pi's output for each run, from one child process. */
function reference(tools: readonly ProviderTool[], runs: readonly Run[]): Outcome[] {
	if (!release || !piAi) throw new Error("the 1.6.0 release is not installed");
	const child = spawnSync(nodeFor(release), [script, piAi], {
		input: JSON.stringify({ tools, runs }),
		encoding: "utf8",
		timeout: 60_000,
	});
	if (child.status !== 0) throw new Error(`the reference script failed: ${child.stderr}`);
	return JSON.parse(child.stdout) as Outcome[];
}

/** toolsmith's output for a run, or the error it throws. */
function ours(tools: readonly ProviderTool[], run: Run): Outcome {
	const options: ConvertToolsOptions = {
		...(run.strictTools === undefined ? {} : { strictTools: run.strictTools }),
		...(run.grammarTools === undefined ? {} : { grammarTools: run.grammarTools }),
	};
	try {
		if (run.provider === "openai-chat") return { tools: toOpenAIChatTools(tools, options) };
		if (run.provider === "openai-responses") return { tools: toOpenAIResponsesTools(tools, options) };
		if (run.provider === "anthropic") return { tools: toAnthropicTools(tools, options) };
		return { tools: toGoogleTools(tools, options) };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

/**
 * pi's Google declarations in toolsmith's Google dialect: pi sends `anyOf: [T, null]` and
 * `additionalProperties` as they are, toolsmith's converter writes Gemini's `nullable` and leaves
 * out what Gemini's schema subset lacks. The strict transformation is what is compared.
 */
function inGoogleDialect(outcome: Outcome): Outcome {
	if (!("tools" in outcome)) return outcome;
	const entries = outcome.tools as { functionDeclarations: { parameters: Record<string, unknown> }[] }[];
	return {
		tools: entries.map((entry) => ({
			functionDeclarations: entry.functionDeclarations.map((declaration) => ({
				...declaration,
				parameters: compileToolSchema(declaration.parameters, "google").schema,
			})),
		})),
	};
}

const tool = (name: string, parameters: ProviderTool["parameters"], sampling?: ConstrainedSamplingConfig) => ({
	name,
	description: `The ${name} tool.`,
	parameters: JSON.parse(JSON.stringify(parameters)) as Record<string, unknown>,
	...(sampling ? { constrainedSampling: sampling } : {}),
});

const prefer = { type: "json_schema", strict: "prefer" } as const;
const require = { type: "json_schema", strict: "require" } as const;

/** Tools every run can take (no refusal): each case of strict and grammar sampling that goes through. */
const accepted: ProviderTool[] = [
	tool("plain", Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer()) })),
	tool(
		"nested",
		Type.Object({
			path: Type.String({ description: "Where" }),
			// StringEnum's form: toolsmith writes a union of literals as an enum for every provider (a
			// documented rewrite), which pi sends as the union it is.
			mode: Type.Optional(Type.Unsafe<string>({ type: "string", enum: ["a", "b"] })),
			options: Type.Optional(
				Type.Object({ depth: Type.Optional(Type.Integer()), follow: Type.Boolean() }, { description: "More" }),
			),
			tags: Type.Optional(Type.Array(Type.String())),
			note: Type.Optional(Type.Union([Type.String(), Type.Null()])),
		}),
		prefer,
	),
	tool("needs_strict", Type.Object({ query: Type.String(), max: Type.Optional(Type.Number()) }), require),
	// Anthropic's strict tools refuse `minimum`: sent plain there, strict elsewhere.
	tool("bounded", Type.Object({ count: Type.Integer({ minimum: 1 }), label: Type.Optional(Type.String()) }), prefer),
	// A map cannot be strict anywhere: sent plain.
	tool("env", Type.Object({ env: Type.Record(Type.String(), Type.String()) }), prefer),
	tool("patch", Type.Object({ input: Type.String() }), {
		type: "grammar",
		variants: { openai_lark: "start: /[a-z]+/" },
	}),
	tool("pattern", Type.Object({ text: Type.String() }), {
		type: "grammar",
		variants: { openai_regex: "^[0-9]+$", openai_lark: "" },
	}),
	tool("both", Type.Object({ input: Type.String() }), {
		type: "grammar",
		variants: { openai_lark: 'start: "x"', openai_regex: "^x$" },
	}),
];

/** Tools pi refuses (the whole request fails): toolsmith refuses them too. */
const refused: { readonly tool: ProviderTool; readonly runs: readonly Run[] }[] = [
	{
		tool: tool("strict_map", Type.Object({ env: Type.Record(Type.String(), Type.String()) }), require),
		runs: [{ provider: "openai-responses" }, { provider: "anthropic" }, { provider: "google" }],
	},
	{
		tool: tool("strict_bounded", Type.Object({ count: Type.Integer({ minimum: 1 }) }), require),
		runs: [{ provider: "anthropic" }],
	},
	{
		tool: tool("strict_unsupported", Type.Object({ q: Type.String() }), require),
		runs: [
			{ provider: "anthropic", strictTools: false },
			{ provider: "google", strictTools: false },
		],
	},
	{
		tool: tool("no_grammar", Type.Object({ input: Type.String() }), { type: "grammar", variants: {} }),
		runs: [
			{ provider: "openai-responses", grammarTools: true },
			{ provider: "openai-chat", grammarTools: true },
		],
	},
	{
		tool: tool("two_inputs", Type.Object({ a: Type.String(), b: Type.String() }), {
			type: "grammar",
			variants: { openai_lark: "start: /a/" },
		}),
		runs: [{ provider: "openai-responses", grammarTools: true }],
	},
];

const runs: readonly Run[] = [
	{ provider: "openai-chat", grammarTools: true },
	{ provider: "openai-responses", grammarTools: true },
	{ provider: "openai-responses", grammarTools: false },
	{ provider: "anthropic" },
	{ provider: "anthropic", strictTools: false },
	{ provider: "google" },
	{ provider: "google", strictTools: false },
];

describe.runIf(available)("constrainedSampling: toolsmith's converters against pi-ai 1.6.0's", () => {
	it("declare the same tools for every provider and model capability", () => {
		// pi's Chat Completions converter adds `strict: false` to every function tool of a model that
		// takes strict mode; toolsmith's only to tools that ask (the option or constrainedSampling).
		const changed: Record<string, boolean> = {};
		for (const run of runs) {
			const label = `${run.provider} ${JSON.stringify(run)}`;
			// A model without strict tools refuses "require" tools (see the refusals below).
			const tools = accepted.filter(
				(t) =>
					!(run.strictTools === false && t.constrainedSampling === require) &&
					!(run.provider === "openai-chat" && !t.constrainedSampling) &&
					// Gemini's schema subset has no maps: toolsmith refuses them for Google, strict or not.
					!(run.provider === "google" && t.name === "env"),
			);
			const [theirs] = reference(tools, [run]);
			let expected = theirs as Outcome;
			if (run.provider === "openai-chat" && "tools" in expected) {
				expected = {
					tools: (expected.tools as { function?: { name: string } }[]).filter((t) => t.function?.name !== "plain"),
				};
			}
			if (run.provider === "google") expected = inGoogleDialect(expected);
			const actual = ours(tools, run);
			expect(actual, label).toEqual(expected);
			// What constrainedSampling changed: the same tools without it, converted the same way.
			const without = ours(
				tools.map(({ constrainedSampling: _, ...rest }) => rest),
				run,
			);
			changed[label] = JSON.stringify(actual) !== JSON.stringify(without);
			if (run.grammarTools === true) expect(JSON.stringify(expected), label).toContain('"type":"custom"');
		}
		// Not vacuous: constrainedSampling changed what was compared, except where the model takes none of it.
		expect(
			Object.entries(changed)
				.filter(([, yes]) => !yes)
				.map(([label]) => label),
		).toEqual([
			'anthropic {"provider":"anthropic","strictTools":false}',
			'google {"provider":"google","strictTools":false}',
		]);
	});

	it("refuse what pi refuses", () => {
		for (const { tool: refusedTool, runs: refusedRuns } of refused) {
			const theirs = reference([refusedTool], refusedRuns);
			refusedRuns.forEach((run, index) => {
				const label = `${refusedTool.name} ${JSON.stringify(run)}`;
				expect(theirs[index], label).toHaveProperty("error");
				expect(ours([refusedTool], run), label).toHaveProperty("error");
			});
		}
	});
});

it.runIf(!available)("the constrainedSampling differential needs the 1.6.0 release", (context) => {
	context.skip("the 1.6.0 release is not installed (npm run compat:setup)");
});

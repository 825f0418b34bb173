/**
 * Replay fixtures: a JSON description of files, a scripted shell and batches of tool calls with
 * what each call must return. The schema below is the single source of truth; the package ships
 * it as `schema/replay-fixture.schema.json` for editors (a test keeps the two equal).
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { errorMessage } from "../contract/errors.js";
import { compileLinearPattern } from "./linear-regex.js";

const TextMatch = Type.Object(
	{
		equals: Type.Optional(Type.String({ description: "The whole text, exactly." })),
		contains: Type.Optional(
			Type.Union([Type.String(), Type.Array(Type.String())], {
				description: "Text (or texts) that must occur somewhere.",
			}),
		),
		notContains: Type.Optional(
			Type.Union([Type.String(), Type.Array(Type.String())], { description: "Text (or texts) that must not occur." }),
		),
		matches: Type.Optional(
			Type.String({
				description:
					"A regular expression the text must match (JavaScript escapes; run in linear time, so no backreferences or lookaround).",
			}),
		),
		flags: Type.Optional(Type.String({ description: "Flags for `matches`, such as `i` or `s`." })),
	},
	{ additionalProperties: false },
);

const TextExpectation = Type.Union([Type.String({ description: "The whole text, exactly." }), TextMatch], {
	description: "What the result's text content (text blocks joined with newlines) must be.",
});

const NestedCallExpectation = Type.Object(
	{
		id: Type.Optional(Type.String({ description: "Its id, `<calling id>/<n>`." })),
		tool: Type.String({ minLength: 1, description: "The tool it called." }),
		status: Type.Optional(
			Type.Union([Type.Literal("ok"), Type.Literal("error"), Type.Literal("unfinished")], {
				description: "How it ended (`unfinished`: the calling call ended first).",
			}),
		),
		args: Type.Optional(
			Type.Unknown({
				description: "A subset of the arguments it was called with (compared as `details` is).",
			}),
		),
	},
	{ additionalProperties: false },
);

const CallExpectation = Type.Object(
	{
		isError: Type.Optional(Type.Boolean({ description: "Whether the result is an error result." })),
		text: Type.Optional(TextExpectation),
		details: Type.Optional(
			Type.Unknown({
				description:
					"A subset of `details`: every key given must be present with an equal value (objects compared key by key, arrays element by element).",
			}),
		),
		nestedCalls: Type.Optional(
			Type.Array(NestedCallExpectation, {
				description:
					"The calls the tool made through `ctx.executeTool` (and the calls those made), in the order they started, as the result's `nestedCalls` record lists them: as many, each as described.",
			}),
		),
	},
	{ additionalProperties: false },
);

const FixtureCall = Type.Object(
	{
		id: Type.Optional(Type.String({ description: "The tool call id (default: generated from the position)." })),
		tool: Type.String({ minLength: 1, description: "The tool's name." }),
		args: Type.Optional(Type.Unknown({ description: "The arguments, as a model would send them." })),
		expect: Type.Optional(CallExpectation),
	},
	{ additionalProperties: false },
);

const FileExpectation = Type.Union(
	[
		Type.String({ description: "The whole content, exactly." }),
		Type.Null({ description: "The file must not exist." }),
		TextMatch,
	],
	{ description: "What a file must hold after the step." },
);

const StepExpectation = Type.Object(
	{
		files: Type.Optional(
			Type.Record(Type.String(), FileExpectation, {
				description: "Files after the step, by path relative to cwd. Files not named are not checked.",
			}),
		),
		commands: Type.Optional(
			Type.Array(Type.String(), {
				description: "The exact commands run during the step, in order.",
			}),
		),
	},
	{ additionalProperties: false },
);

const ToolExecution = Type.Union([Type.Literal("parallel"), Type.Literal("sequential")]);

const FixtureStep = Type.Object(
	{
		name: Type.Optional(Type.String()),
		calls: Type.Array(FixtureCall, { minItems: 1, description: "The calls of one batch (one assistant message)." }),
		toolExecution: Type.Optional(ToolExecution),
		expect: Type.Optional(StepExpectation),
	},
	{ additionalProperties: false },
);

const FixtureCommand = Type.Object(
	{
		match: Type.String({ description: "The command, exactly (after trimming), or a pattern with `regex: true`." }),
		regex: Type.Optional(Type.Boolean({ description: "Treat `match` as a regular expression." })),
		stdout: Type.Optional(Type.String()),
		stderr: Type.Optional(Type.String()),
		chunks: Type.Optional(
			Type.Array(
				Type.Object(
					{
						stream: Type.Union([Type.Literal("stdout"), Type.Literal("stderr")]),
						data: Type.String(),
					},
					{ additionalProperties: false },
				),
				{ description: "Output pieces in the order they are written, before `stdout` and `stderr`." },
			),
		),
		exitCode: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
		once: Type.Optional(Type.Boolean({ description: "Answer only the first matching run." })),
	},
	{ additionalProperties: false },
);

/** The TypeBox schema of a replay fixture file; `replayFixtureJsonSchema()` gives it as plain JSON Schema. */
export const ReplayFixtureSchema = Type.Object(
	{
		$schema: Type.Optional(Type.String()),
		name: Type.Optional(Type.String()),
		description: Type.Optional(Type.String()),
		cwd: Type.Optional(Type.String({ description: "Absolute working folder of the memory env (default /project)." })),
		files: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Initial files: path → content." })),
		commands: Type.Optional(Type.Array(FixtureCommand, { description: "The scripted shell, tried in order." })),
		toolExecution: Type.Optional(ToolExecution),
		extensions: Type.Optional(
			Type.Array(Type.String({ minLength: 1 }), {
				description:
					"Extension files or folders the fixture needs, relative to the fixture file; loaded next to the built-ins (and to any extensions the runner is given).",
			}),
		),
		steps: Type.Array(FixtureStep, { minItems: 1 }),
	},
	{ additionalProperties: false },
);

/** A replay fixture, as `parseReplayFixture` returns it: the world (files, commands, cwd) and the steps to run in it. */
export type ReplayFixture = Static<typeof ReplayFixtureSchema>;
/** One step of a fixture: a batch of tool calls run together, and the files and commands expected after it. */
export type FixtureStep = Static<typeof FixtureStep>;
/** One tool call of a fixture step: the tool, its arguments, and what its result must be. */
export type FixtureCall = Static<typeof FixtureCall>;
/** A scripted shell command of a fixture: what it matches and what it prints, exits with or changes. */
export type FixtureCommand = Static<typeof FixtureCommand>;
/** What one fixture call's result must be: error or not, its text, its details. */
export type CallExpectation = Static<typeof CallExpectation>;
/** What a result's text must be: the whole text exactly, or a part it contains or a pattern it matches. */
export type TextExpectation = Static<typeof TextExpectation>;
/** What a file must hold after a step: its exact content, a text it contains or matches, or that it does not exist. */
export type FileExpectation = Static<typeof FileExpectation>;

/** The JSON Schema of replay fixtures, as shipped in `schema/replay-fixture.schema.json`. */
export function replayFixtureJsonSchema(): Record<string, unknown> {
	// JSON round trip: drops TypeBox's symbol-keyed metadata, leaving plain JSON Schema.
	const plain = JSON.parse(JSON.stringify(ReplayFixtureSchema)) as Record<string, unknown>;
	return {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		$id: "https://toolsmith.dev/schema/replay-fixture.schema.json",
		title: "toolsmith replay fixture",
		...plain,
	};
}

/** One problem in a fixture that does not follow the schema. */
export interface FixtureIssue {
	/** Where, as a JavaScript-style path: `steps[2].calls[0].expect.text` (`(root)` for the whole). */
	readonly path: string;
	readonly message: string;
}

/** A fixture that does not follow the schema. `issues` lists every problem with its JSON path. */
export class ReplayFixtureError extends Error {
	override readonly name = "ReplayFixtureError";
	readonly issues: readonly FixtureIssue[];
	/** The first issue's path. */
	readonly path: string;

	constructor(issues: readonly FixtureIssue[], source?: string) {
		const where = source ? ` ${source}` : "";
		const first = issues[0] ?? { path: "(root)", message: "invalid" };
		const rest = issues.slice(1, 20).map((issue) => `\n  ${issue.path}: ${issue.message}`);
		const more = issues.length > 20 ? `\n  … and ${issues.length - 20} more` : "";
		super(`Invalid replay fixture${where}: ${first.path}: ${first.message}${rest.join("")}${more}`);
		this.issues = issues;
		this.path = first.path;
	}
}

/** `/steps/2/calls/0/expect/text` → `steps[2].calls[0].expect.text`. */
export function jsonPointerToPath(pointer: string): string {
	if (pointer === "" || pointer === "/") return "(root)";
	let out = "";
	for (const raw of pointer.split("/").slice(1)) {
		const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
		if (/^\d+$/.test(segment)) out += `[${segment}]`;
		else if (/^[A-Za-z_$][\w$]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
		else out += `[${JSON.stringify(segment)}]`;
	}
	return out;
}

function describeType(schema: TSchema): string {
	if (schema.anyOf) return (schema.anyOf as TSchema[]).map(describeType).join(" or ");
	if (schema.const !== undefined) return JSON.stringify(schema.const);
	if (schema.type === "object") return "an object";
	if (schema.type === "array") return "an array";
	if (schema.type === "null") return "null";
	if (typeof schema.type === "string") return `a ${schema.type}`;
	return "a valid value";
}

function schemaIssues(value: unknown): FixtureIssue[] {
	const issues: FixtureIssue[] = [];
	const seen = new Set<string>();
	for (const error of Value.Errors(ReplayFixtureSchema, value)) {
		const path = jsonPointerToPath(error.path);
		// A union reports one error per branch; one line naming the accepted forms says it better.
		const message = error.schema.anyOf ? `expected ${describeType(error.schema)}` : error.message;
		const key = `${path}\u0000${message}`;
		if (seen.has(key)) continue;
		seen.add(key);
		issues.push({ path, message });
	}
	return issues;
}

function regexIssue(path: string, source: string, flags: string | undefined): FixtureIssue | undefined {
	try {
		compileLinearPattern(source, flags);
		return undefined;
	} catch (error) {
		return {
			path,
			message: `not a supported regular expression: ${errorMessage(error)}`,
		};
	}
}

function textMatchIssues(path: string, expectation: unknown): FixtureIssue[] {
	if (typeof expectation !== "object" || expectation === null) return [];
	const match = expectation as { matches?: string; flags?: string };
	if (match.matches === undefined) return [];
	const issue = regexIssue(`${path}.matches`, match.matches, match.flags);
	return issue ? [issue] : [];
}

/** Checks the schema cannot express: an absolute cwd, regular expressions compile, call ids are unique per step. */
function semanticIssues(fixture: ReplayFixture): FixtureIssue[] {
	const issues: FixtureIssue[] = [];
	if (fixture.cwd !== undefined && !fixture.cwd.startsWith("/")) {
		issues.push({
			path: "cwd",
			message: `must be an absolute path (starting with /), got ${JSON.stringify(fixture.cwd)}`,
		});
	}
	fixture.commands?.forEach((command, i) => {
		if (!command.regex) return;
		const issue = regexIssue(`commands[${i}].match`, command.match, undefined);
		if (issue) issues.push(issue);
	});
	fixture.steps.forEach((step, s) => {
		const ids = new Set<string>();
		step.calls.forEach((call, c) => {
			if (call.id !== undefined) {
				if (ids.has(call.id))
					issues.push({ path: `steps[${s}].calls[${c}].id`, message: `duplicate id ${JSON.stringify(call.id)}` });
				ids.add(call.id);
			}
			issues.push(...textMatchIssues(`steps[${s}].calls[${c}].expect.text`, call.expect?.text));
		});
		for (const [file, expectation] of Object.entries(step.expect?.files ?? {})) {
			issues.push(...textMatchIssues(`steps[${s}].expect.files[${JSON.stringify(file)}]`, expectation));
		}
	});
	return issues;
}

/**
 * Check that `value` is a replay fixture and return it typed. Throws a `ReplayFixtureError` that
 * names the JSON path of every problem (`steps[2].calls[0].expect.text: …`).
 */
export function parseReplayFixture(value: unknown, source?: string): ReplayFixture {
	const issues = schemaIssues(value);
	if (issues.length > 0) throw new ReplayFixtureError(issues, source);
	const fixture = value as ReplayFixture;
	const semantic = semanticIssues(fixture);
	if (semantic.length > 0) throw new ReplayFixtureError(semantic, source);
	return fixture;
}

/** Parse fixture JSON text; a syntax error is a `ReplayFixtureError` at `(root)`. */
export function parseReplayFixtureText(text: string, source?: string): ReplayFixture {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		throw new ReplayFixtureError([{ path: "(root)", message: `not valid JSON: ${errorMessage(error)}` }], source);
	}
	return parseReplayFixture(value, source);
}

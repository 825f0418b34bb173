/**
 * Argument coercion, toolsmith against the reference: a probe grid of values × schema kinds, each
 * value checked by both validators, and the "Differences from the reference" table of
 * docs/executor.md, parsed so tests can check every row against both implementations and find
 * differences the table lacks. The reference is only called (its validation through
 * `@mariozechner/pi-ai`, its schemas built with its own `Type`), never copied.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Type as OurType, type TSchema } from "../../src/contract/schema.js";
import { validateToolArguments as ourValidate } from "../../src/exec/validate.js";
import { importPeer, peersDir } from "../bench/_peer.js";

/** The `Type` builder calls the grid uses; both TypeBox versions (ours and the reference's) have them. */
export interface TypeBuilder {
	Number(): unknown;
	Integer(): unknown;
	Boolean(): unknown;
	String(): unknown;
	Null(): unknown;
	Array(items: unknown): unknown;
	Object(properties: Record<string, unknown>): unknown;
	Literal(value: string | number | boolean): unknown;
	Union(members: unknown[]): unknown;
	Optional(schema: unknown): unknown;
}

/** A tool call as the reference's validation takes it. */
export interface ReferenceToolCall {
	readonly type: "toolCall";
	readonly id: string;
	readonly name: string;
	readonly arguments: Record<string, unknown>;
}

/** What the tests use of `@mariozechner/pi-ai`. */
export interface ReferenceAi {
	/** The release, as the table's "Against" column names it (`0.73.1`). */
	readonly release?: string;
	readonly Type: TypeBuilder;
	validateToolArguments(tool: { name: string; parameters: unknown }, call: ReferenceToolCall): unknown;
}

/** The reference's pi-ai, or undefined when the benchmark peers are not installed. */
export async function loadReferenceAi(): Promise<ReferenceAi | undefined> {
	try {
		const ai = await importPeer<ReferenceAi>("@mariozechner/pi-ai");
		const manifest = JSON.parse(
			readFileSync(join(peersDir, "node_modules", "@mariozechner", "pi-ai", "package.json"), "utf8"),
		) as { version: string };
		return { Type: ai.Type, validateToolArguments: ai.validateToolArguments, release: manifest.version };
	} catch {
		return undefined;
	}
}

/** The outcomes of reference `ai` over the table's rows and the probe grid: what `_coercion-1x.ts` prints. */
export interface CoercionProbe {
	readonly release: string;
	/** The reference's outcome for each row of the table, in order. */
	readonly rows: readonly Outcome[];
	readonly grid: { cells: number; differences: ProbedDifference[] };
}

export function probeReference(ai: ReferenceAi, release: string): CoercionProbe {
	return {
		release,
		rows: documentedDifferences().map((row) => referenceOutcome(ai, row.kind, row.input)),
		grid: probeGrid(ai),
	};
}

/** A field's schema kind, by the name the table uses. */
const BASE_KINDS: Record<string, (t: TypeBuilder) => unknown> = {
	Number: (t) => t.Number(),
	Integer: (t) => t.Integer(),
	Boolean: (t) => t.Boolean(),
	String: (t) => t.String(),
	Null: (t) => t.Null(),
	"Array(Number)": (t) => t.Array(t.Number()),
	"Object({ a: Number })": (t) => t.Object({ a: t.Number() }),
	"Literal(2)": (t) => t.Literal(2),
	'Literal("a")': (t) => t.Literal("a"),
	"Literal(true)": (t) => t.Literal(true),
	"Union([Number, String])": (t) => t.Union([t.Number(), t.String()]),
	"Union([String, Null])": (t) => t.Union([t.String(), t.Null()]),
};

/** Every kind of the grid: each base kind as a required field, and as `Optional(kind)`. */
export const GRID_KINDS: readonly string[] = Object.keys(BASE_KINDS).flatMap((kind) => [kind, `Optional(${kind})`]);

/** The values the grid sends in a field of each kind (JSON values, as a model sends them). */
export const GRID_VALUES: readonly unknown[] = [
	"",
	" ",
	"5",
	" 5 ",
	"5.0",
	"2.5",
	"-2.5",
	"-3",
	"+4",
	".5",
	"1e3",
	"1.5e1",
	"0x10",
	"0b11",
	"0o7",
	"5px",
	"Infinity",
	"NaN",
	"abc",
	"true",
	"false",
	"TRUE",
	" true ",
	"yes",
	"1",
	"0",
	"null",
	"[1,2]",
	'{"a":1}',
	0,
	1,
	2,
	-1,
	0.5,
	3.5,
	-2.5,
	1e21,
	true,
	false,
	null,
	[],
	[1],
	["2"],
	{},
	{ a: "1" },
];

/** The field's schema for one kind name, built with `t`. */
export function kindSchema(t: TypeBuilder, kind: string): unknown {
	const optional = /^Optional\((.*)\)$/.exec(kind);
	const base = BASE_KINDS[optional ? (optional[1] as string) : kind];
	if (!base) throw new Error(`unknown schema kind ${kind}`);
	return optional ? t.Optional(base(t)) : base(t);
}

/**
 * What a validator made of a field: `invalid` (the call is refused), `dropped` (the field is gone
 * from the arguments the tool gets), or the JSON of the value the tool gets.
 */
export type Outcome = string;

const INVALID = "invalid";
const DROPPED = "dropped";

function fieldOutcome(args: unknown): Outcome {
	if (typeof args !== "object" || args === null || !Object.hasOwn(args, "v")) return DROPPED;
	return JSON.stringify((args as { v: unknown }).v) ?? "undefined";
}

const referenceSchemas = new Map<string, unknown>();
const ourSchemas = new Map<string, TSchema>();

/** The reference's outcome for `{ v: value }` with `v` of `kind`. */
export function referenceOutcome(ai: ReferenceAi, kind: string, value: unknown): Outcome {
	let parameters = referenceSchemas.get(kind);
	if (!parameters) {
		parameters = ai.Type.Object({ v: kindSchema(ai.Type, kind) });
		referenceSchemas.set(kind, parameters);
	}
	try {
		const call: ReferenceToolCall = { type: "toolCall", id: "probe", name: "probe", arguments: { v: value } };
		return fieldOutcome(ai.validateToolArguments({ name: "probe", parameters }, call));
	} catch {
		return INVALID;
	}
}

/** toolsmith's outcome for `{ v: value }` with `v` of `kind`. */
export function toolsmithOutcome(kind: string, value: unknown): Outcome {
	let parameters = ourSchemas.get(kind);
	if (!parameters) {
		const t = OurType as unknown as TypeBuilder;
		parameters = t.Object({ v: kindSchema(t, kind) }) as TSchema;
		ourSchemas.set(kind, parameters);
	}
	const checked = ourValidate({ name: "probe", parameters }, { v: value });
	return checked.ok ? fieldOutcome(checked.value) : INVALID;
}

/** One cell of a table row: an input in a field of one kind, and what each implementation makes of it. */
export interface DocumentedDifference {
	readonly input: unknown;
	readonly kind: string;
	readonly reference: Outcome;
	readonly toolsmith: Outcome;
	/**
	 * The releases of the reference (pi-agent-core and pi-ai) whose outcome is `reference`; in the
	 * others the outcome is toolsmith's, so the cell is no difference there.
	 */
	readonly releases: readonly string[];
	/** The row's line in docs/executor.md (1-based), for messages. */
	readonly line: number;
}

export const executorDoc = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "executor.md");

/** The text between the backticks of each code span of a table cell. */
function codeSpans(cell: string): string[] {
	return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
}

/**
 * A result cell as one outcome per input: `invalid`, `dropped`, `as sent` (the input itself), one
 * code span for every input, or one code span per input.
 */
function outcomes(cell: string, inputs: readonly unknown[], where: string): Outcome[] {
	const word = cell.trim();
	if (word === INVALID || word === DROPPED) return inputs.map(() => word);
	if (word === "as sent") return inputs.map((input) => JSON.stringify(input));
	const spans = codeSpans(cell).map((span) => JSON.stringify(JSON.parse(span)));
	if (spans.length === 1) return inputs.map(() => spans[0] as string);
	if (spans.length !== inputs.length) {
		throw new Error(`${where}: ${spans.length} results for ${inputs.length} inputs`);
	}
	return spans;
}

/**
 * The rows of the "Differences from the reference" table in `markdown`, one entry per input and
 * schema kind. Columns: input(s), schema kind(s), reference result, toolsmith result, the releases
 * of the reference the row holds against (`0.73.1, 1.6.0`), reason.
 * Throws when the table is missing or a row cannot be read.
 */
export function parseDifferencesTable(markdown: string): DocumentedDifference[] {
	const lines = markdown.split("\n");
	const heading = lines.findIndex((line) => /^#+ Differences from the reference\s*$/.test(line));
	if (heading < 0) throw new Error('docs/executor.md has no "Differences from the reference" section');
	const rows: DocumentedDifference[] = [];
	let inTable = false;
	for (let index = heading + 1; index < lines.length; index++) {
		const line = lines[index] as string;
		if (/^#+ /.test(line)) break;
		if (!line.startsWith("|")) {
			if (inTable) break;
			continue;
		}
		const cells = line.split("|").slice(1, -1);
		if (!inTable) {
			inTable = true;
			// The header and its rule.
			index++;
			continue;
		}
		const where = `docs/executor.md:${index + 1}`;
		if (cells.length !== 6) throw new Error(`${where}: expected 6 cells, found ${cells.length}`);
		const [inputCell, kindCell, referenceCell, toolsmithCell, releasesCell, reasonCell] = cells as [
			string,
			string,
			string,
			string,
			string,
			string,
		];
		const releases = releasesCell.split(",").map((release) => release.trim());
		if (!releases.every((release) => /^\d+\.\d+\.\d+$/.test(release)))
			throw new Error(`${where}: the releases cell must list versions such as "0.73.1, 1.6.0"`);
		const inputs = codeSpans(inputCell).map((span) => JSON.parse(span) as unknown);
		const kinds = codeSpans(kindCell);
		if (inputs.length === 0 || kinds.length === 0) throw new Error(`${where}: no input or no schema kind`);
		if (reasonCell.trim() === "") throw new Error(`${where}: no reason given`);
		for (const kind of kinds) if (!GRID_KINDS.includes(kind)) throw new Error(`${where}: unknown schema kind ${kind}`);
		const theirs = outcomes(referenceCell, inputs, where);
		const ours = outcomes(toolsmithCell, inputs, where);
		inputs.forEach((input, i) => {
			for (const kind of kinds) {
				rows.push({
					input,
					kind,
					reference: theirs[i] as Outcome,
					toolsmith: ours[i] as Outcome,
					releases,
					line: index + 1,
				});
			}
		});
	}
	if (rows.length === 0) throw new Error('the "Differences from the reference" table of docs/executor.md is empty');
	return rows;
}

/** The table of docs/executor.md, parsed. */
export function documentedDifferences(): DocumentedDifference[] {
	return parseDifferencesTable(readFileSync(executorDoc, "utf8"));
}

/** A key for one (kind, input) cell. */
export function cellKey(kind: string, input: unknown): string {
	return `${kind} ${JSON.stringify(input)}`;
}

/**
 * The documented difference for one cell, if the table has it; with `release`, only the rows that
 * hold against that release (in the others the cell is no difference).
 */
export function differenceIndex(
	rows: readonly DocumentedDifference[],
	release?: string,
): Map<string, DocumentedDifference> {
	return new Map(
		rows
			.filter((row) => release === undefined || row.releases.includes(release))
			.map((row) => [cellKey(row.kind, row.input), row]),
	);
}

/** A cell of the grid where the two implementations disagree. */
export interface ProbedDifference {
	readonly kind: string;
	readonly input: unknown;
	readonly reference: Outcome;
	readonly toolsmith: Outcome;
}

/** Every cell of the grid (kinds × values) where the reference and toolsmith disagree. */
export function probeGrid(ai: ReferenceAi): { cells: number; differences: ProbedDifference[] } {
	const differences: ProbedDifference[] = [];
	let cells = 0;
	for (const kind of GRID_KINDS) {
		for (const input of GRID_VALUES) {
			cells++;
			const reference = referenceOutcome(ai, kind, input);
			const toolsmith = toolsmithOutcome(kind, input);
			if (reference !== toolsmith) differences.push({ kind, input, reference, toolsmith });
		}
	}
	return { cells, differences };
}

/**
 * The coercion table of docs/executor.md ("Differences from the reference") cannot go stale: each
 * of its rows is checked against the installed reference (`validateToolArguments` of pi-ai) and
 * against toolsmith, and every difference the probe grid (values × schema kinds) finds must be a
 * row of the table. Needs the benchmark peers (`npm run bench:setup`); skips without them, and fails
 * instead when `TOOLSMITH_REQUIRE_PEERS=1` (`npm run compat:pi`).
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import {
	cellKey,
	differenceIndex,
	documentedDifferences,
	executorDoc,
	GRID_KINDS,
	GRID_VALUES,
	loadReferenceAi,
	parseDifferencesTable,
	probeGrid,
	type ReferenceAi,
	referenceOutcome,
	toolsmithOutcome,
} from "../../compat/_coercion-differences.js";

const peersRequired = process.env.TOOLSMITH_REQUIRE_PEERS === "1";
const rows = documentedDifferences();

describe("the table of coercion differences in docs/executor.md", () => {
	let ai: ReferenceAi | undefined;
	beforeAll(async () => {
		ai = await loadReferenceAi();
	});

	const needReference = (context: { skip: (note?: string) => void }): ReferenceAi => {
		if (!ai) {
			if (peersRequired)
				expect.fail("the reference package is not installed in test/bench/peers; run `npm run bench:setup`");
			context.skip("the benchmark peers are not installed (npm run bench:setup)");
		}
		return ai as ReferenceAi;
	};

	it("parses, names only schema kinds of the grid, and lists each cell once", () => {
		expect(rows.length).toBeGreaterThan(0);
		const keys = rows.map((row) => cellKey(row.kind, row.input));
		expect(new Set(keys).size).toBe(keys.length);
		for (const row of rows) {
			expect(GRID_KINDS).toContain(row.kind);
			// A row whose two results are the same is no difference.
			expect(row.reference, `docs/executor.md:${row.line}`).not.toBe(row.toolsmith);
		}
	});

	it("states the size of the probe grid", () => {
		const text = readFileSync(executorDoc, "utf8");
		expect(text).toContain(`${GRID_VALUES.length} values × ${GRID_KINDS.length} schema kinds`);
	});

	it("refuses a malformed table: a row with results that do not pair up with its inputs", () => {
		const table = (row: string) =>
			`## Differences from the reference\n\n| Input | Schema kind | Reference | toolsmith | Why |\n| --- | --- | --- | --- | --- |\n${row}\n`;
		expect(() => parseDifferencesTable(table("| `1`, `2` | `Number` | `1`, `2`, `3` | invalid | x |"))).toThrow(
			/3 results for 2 inputs/,
		);
		expect(() => parseDifferencesTable(table("| `1` | `Nope` | `1` | invalid | x |"))).toThrow(/unknown schema kind/);
		expect(() => parseDifferencesTable(table("| `1` | `Number` | `1` | invalid |  |"))).toThrow(/no reason/);
		expect(parseDifferencesTable(table("| `1`, `2` | `Number` | `3` | as sent | x |"))).toMatchObject([
			{ input: 1, kind: "Number", reference: "3", toolsmith: "1" },
			{ input: 2, kind: "Number", reference: "3", toolsmith: "2" },
		]);
	});

	it("gives toolsmith's result for every row", () => {
		const wrong = rows
			.filter((row) => toolsmithOutcome(row.kind, row.input) !== row.toolsmith)
			.map(
				(row) =>
					`docs/executor.md:${row.line}: ${JSON.stringify(row.input)} in ${row.kind} gives ${toolsmithOutcome(row.kind, row.input)}, the table says ${row.toolsmith}`,
			);
		expect(wrong).toEqual([]);
	});

	it("gives the reference's result for every row", (context) => {
		const reference = needReference(context);
		const wrong = rows
			.filter((row) => referenceOutcome(reference, row.kind, row.input) !== row.reference)
			.map(
				(row) =>
					`docs/executor.md:${row.line}: ${JSON.stringify(row.input)} in ${row.kind} gives ${referenceOutcome(reference, row.kind, row.input)} in the reference, the table says ${row.reference}`,
			);
		expect(wrong).toEqual([]);
	});

	it("has a row for every difference over the probe grid", (context) => {
		const reference = needReference(context);
		const index = differenceIndex(rows);
		const { cells, differences } = probeGrid(reference);
		expect(cells).toBe(GRID_KINDS.length * GRID_VALUES.length);
		const missing = differences
			.filter((d) => !index.has(cellKey(d.kind, d.input)))
			.map((d) => `${JSON.stringify(d.input)} in ${d.kind}: reference ${d.reference}, toolsmith ${d.toolsmith}`);
		expect(missing).toEqual([]);
		// The grid does find the differences (the probe is not blind).
		expect(differences.length).toBeGreaterThan(100);
	});
});

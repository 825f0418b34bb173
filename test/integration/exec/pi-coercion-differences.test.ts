/**
 * The coercion table of docs/executor.md ("Differences from the reference") cannot go stale: each
 * of its rows is checked against the installed reference (`validateToolArguments` of pi-ai) and
 * against toolsmith, and every difference the probe grid (values × schema kinds) finds must be a
 * row of the table. Per release: 0.73.1 from the benchmark peers (`npm run bench:setup`; skips
 * without them, and fails instead when `TOOLSMITH_REQUIRE_PEERS=1`, as in `npm run compat:pi`), and
 * 1.6.0 under Node 22 in a child process (test/compat/_coercion-1x.ts; skips unless
 * `npm run compat:setup` installed it). A row holds against the releases its "Against" column
 * lists; in the others the reference's outcome must be toolsmith's.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
	type CoercionProbe,
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
import { compatDir, listReleases } from "../../compat/_releases.js";

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
			`## Differences from the reference\n\n| Input | Schema kind | Reference | toolsmith | Against | Why |\n| --- | --- | --- | --- | --- | --- |\n${row}\n`;
		expect(() =>
			parseDifferencesTable(table("| `1`, `2` | `Number` | `1`, `2`, `3` | invalid | 0.73.1 | x |")),
		).toThrow(/3 results for 2 inputs/);
		expect(() => parseDifferencesTable(table("| `1` | `Nope` | `1` | invalid | 0.73.1 | x |"))).toThrow(
			/unknown schema kind/,
		);
		expect(() => parseDifferencesTable(table("| `1` | `Number` | `1` | invalid | 0.73.1 |  |"))).toThrow(/no reason/);
		expect(() => parseDifferencesTable(table("| `1` | `Number` | `1` | invalid | latest | x |"))).toThrow(
			/releases cell/,
		);
		expect(() => parseDifferencesTable(table("| `1` | `Number` | `1` | invalid | x |"))).toThrow(/expected 6 cells/);
		expect(parseDifferencesTable(table("| `1`, `2` | `Number` | `3` | as sent | 0.73.1, 1.6.0 | x |"))).toMatchObject([
			{ input: 1, kind: "Number", reference: "3", toolsmith: "1", releases: ["0.73.1", "1.6.0"] },
			{ input: 2, kind: "Number", reference: "3", toolsmith: "2", releases: ["0.73.1", "1.6.0"] },
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

	it("gives the reference 0.73.1's result for every row", (context) => {
		const reference = needReference(context);
		expectRows({
			release: reference.release as string,
			rows: rows.map((row) => referenceOutcome(reference, row.kind, row.input)),
			grid: { cells: 0, differences: [] },
		});
	});

	it("has a row for every difference from 0.73.1 over the probe grid", (context) => {
		const reference = needReference(context);
		expectGrid(reference.release as string, probeGrid(reference));
	});

	const release1x = listReleases().find((r) => r.spec === "@earendil-works/pi-coding-agent@1.6.0");
	const usable1x = release1x?.installed === true && release1x.node !== undefined;
	let probe1x: CoercionProbe | undefined;
	const need1x = (context: { skip: (note?: string) => void }): CoercionProbe => {
		if (!usable1x) context.skip("the reference 1.6.0 is not installed (npm run compat:setup)");
		if (!probe1x) {
			const release = release1x as { packageDir: string; node: string };
			const modules = dirname(dirname(release.packageDir));
			const jiti = join(compatDir, "..", "..", "node_modules", "jiti", "lib", "jiti-cli.mjs");
			const output = execFileSync(release.node, [jiti, join(compatDir, "_coercion-1x.ts"), modules], {
				encoding: "utf8",
				timeout: 120_000,
			});
			probe1x = JSON.parse(output) as CoercionProbe;
		}
		return probe1x;
	};

	it("gives the reference 1.6.0's result for every row (toolsmith's where the row does not hold for it)", (context) => {
		const probe = need1x(context);
		expect(probe.release).toBe("1.6.0");
		expectRows(probe);
		// Some rows hold against 0.73.1 only: 1.6.0 repairs those cells as toolsmith does.
		expect(rows.some((row) => !row.releases.includes("1.6.0"))).toBe(true);
	}, 120_000);

	it("has a row for every difference from 1.6.0 over the probe grid", (context) => {
		const probe = need1x(context);
		expectGrid(probe.release, probe.grid);
	}, 120_000);
});

/** Each row's outcome in `probe.release`: the table's reference result where the row holds against it, else toolsmith's. */
function expectRows(probe: CoercionProbe): void {
	expect(probe.rows.length).toBe(rows.length);
	const wrong = rows.flatMap((row, i) => {
		const expected = row.releases.includes(probe.release) ? row.reference : row.toolsmith;
		const got = probe.rows[i];
		return got === expected
			? []
			: [
					`docs/executor.md:${row.line}: ${JSON.stringify(row.input)} in ${row.kind} gives ${got} in the reference ${probe.release}, the table says ${expected} (against ${row.releases.join(", ")})`,
				];
	});
	expect(wrong).toEqual([]);
}

/** Every difference the grid finds is a row that holds against `release`. */
function expectGrid(release: string, grid: CoercionProbe["grid"]): void {
	const index = differenceIndex(rows, release);
	expect(grid.cells).toBe(GRID_KINDS.length * GRID_VALUES.length);
	const missing = grid.differences
		.filter((d) => !index.has(cellKey(d.kind, d.input)))
		.map(
			(d) => `${JSON.stringify(d.input)} in ${d.kind}: reference ${release} ${d.reference}, toolsmith ${d.toolsmith}`,
		);
	expect(missing).toEqual([]);
	// The grid does find the differences (the probe is not blind).
	expect(grid.differences.length).toBeGreaterThan(100);
}

/**
 * The executor against the reference's agent loop (`Agent` of pi-agent-core, driven by pi-ai's
 * scripted model) on 300 seeded random batches, about a thousand calls: the results given to the
 * model, what the tools received, the sequential veto, overlap, start, update and end events, and
 * the terminate rule must agree, or differ only as docs/executor.md documents. Set
 * `TOOLSMITH_DIFF_SEED` to replay a seed. Needs the benchmark peers (`npm run bench:setup`); skips
 * without them, and fails instead when `TOOLSMITH_REQUIRE_PEERS=1` (`npm run compat:pi`).
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
	BEHAVIOR_DIFFERENCES,
	type DifferentialReport,
	formatReport,
	generateBatches,
	loadReference,
	PROPERTIES,
	type Reference,
	runDifferential,
	seedFromEnv,
	undocumentedLabels,
} from "../../compat/_executor-differential.js";

const peersRequired = process.env.TOOLSMITH_REQUIRE_PEERS === "1";
// A fresh seed each run unless one is given: the seed is printed when the run fails.
const seed = seedFromEnv(Math.floor(Math.random() * 2 ** 31));

describe("executeToolCalls against the reference's agent loop", () => {
	let reference: Reference | undefined;
	let report: DifferentialReport | undefined;
	beforeAll(async () => {
		reference = await loadReference();
		if (reference) report = await runDifferential(reference, seed, 300);
	}, 120_000);

	const needReport = (context: { skip: (note?: string) => void }): DifferentialReport => {
		if (!reference) {
			if (peersRequired)
				expect.fail("the reference package is not installed in test/bench/peers; run `npm run bench:setup`");
			context.skip("the benchmark peers are not installed (npm run bench:setup)");
		}
		return report as DifferentialReport;
	};

	it("generates the same batches from the same seed, with every kind of call", () => {
		const batches = generateBatches(seed, 300);
		expect(JSON.stringify(generateBatches(seed, 300))).toBe(JSON.stringify(batches));
		const calls = batches.flatMap((b) => b.calls);
		expect(calls.length).toBeGreaterThan(800);
		const variations = new Set(calls.map((c) => c.variation));
		for (const v of [
			"valid",
			"coercible",
			"documented coercion",
			"missing required",
			"extra property",
			"wrong type",
			"unknown tool",
		]) {
			expect(variations, v).toContain(v);
		}
		const names = new Set(calls.map((c) => c.name));
		for (const name of ["echo", "boom", "seq", "stop", "progress", "progress_now"]) expect(names, name).toContain(name);
		expect(batches.some((b) => b.sequentialConfig)).toBe(true);
		expect(batches.some((b) => b.calls.every((c) => c.name === "stop"))).toBe(true);
	});

	it("documents every behavior difference it accepts", () => {
		expect(undocumentedLabels()).toEqual([]);
		expect(Object.values(BEHAVIOR_DIFFERENCES)).toContain("Coercion");
	});

	it(`agrees with the reference, or differs only as documented (seed ${seed})`, (context) => {
		const r = needReport(context);
		const summary = formatReport(r).join("\n");
		expect(r.ok, `seed ${seed} (replay with TOOLSMITH_DIFF_SEED=${seed}):\n${summary}`).toBe(true);
		for (const property of PROPERTIES) {
			const p = r.properties[property];
			expect(p.agree + p.batchesDocumented, property).toBe(r.batches);
		}
		// The properties no documented difference can touch agree on every batch.
		for (const property of ["results order", "sequential veto"] as const) {
			expect(r.properties[property].agree, `${property}, seed ${seed}`).toBe(r.batches);
		}
	});
});

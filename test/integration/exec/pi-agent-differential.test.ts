/**
 * The executor against the reference's agent loop (`Agent` of pi-agent-core, driven by pi-ai's
 * scripted model) on 300 seeded random batches, about a thousand calls, against both lines of the
 * reference: 0.73.1 in this process (the benchmark peers, `npm run bench:setup`) and 1.6.0 under
 * Node 22 in a child process (`npm run compat:setup`), the two at once. The results given to the
 * model, what the tools received, the sequential veto, overlap, start, update and end events, and
 * the terminate rule must agree, or differ only as docs/executor.md documents for that release.
 * The suite runs all 300 batches against each (about ten seconds each), as `npm run compat --
 * executor` does. Set `TOOLSMITH_DIFF_SEED` to replay a seed. Each release skips when it is not
 * installed; 0.73.1 fails instead when `TOOLSMITH_REQUIRE_PEERS=1` (`npm run compat:pi`).
 */
import { dirname } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
	BEHAVIOR_DIFFERENCES,
	type DifferentialReport,
	documentedReleases,
	formatReport,
	generateBatches,
	loadReference,
	PROPERTIES,
	runDifferential,
	runDifferentialIn1x,
	seedFromEnv,
	undocumentedLabels,
} from "../../compat/_executor-differential.js";
import { listReleases } from "../../compat/_releases.js";

const BATCHES = 300;
const peersRequired = process.env.TOOLSMITH_REQUIRE_PEERS === "1";
// A fresh seed each run unless one is given: the seed is printed when the run fails.
const seed = seedFromEnv(Math.floor(Math.random() * 2 ** 31));
const release1x = listReleases().find((r) => r.spec === "@earendil-works/pi-coding-agent@1.6.0");
const usable1x = release1x?.installed === true && release1x.node !== undefined;

describe("executeToolCalls against the reference's agent loop", () => {
	let report073: DifferentialReport | undefined;
	let report1x: DifferentialReport | undefined;
	beforeAll(async () => {
		const reference = await loadReference();
		const child = usable1x
			? runDifferentialIn1x(release1x?.node as string, dirname(dirname(release1x?.packageDir as string)), seed, BATCHES)
			: undefined;
		if (reference) report073 = await runDifferential(reference, seed, BATCHES);
		report1x = await child;
	}, 300_000);

	it("generates the same batches from the same seed, with every kind of call", () => {
		const batches = generateBatches(seed, BATCHES);
		expect(JSON.stringify(generateBatches(seed, BATCHES))).toBe(JSON.stringify(batches));
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
		for (const name of ["echo", "boom", "seq", "stop", "progress", "progress_now", "fails"])
			expect(names, name).toContain(name);
		expect(batches.some((b) => b.sequentialConfig)).toBe(true);
		expect(batches.some((b) => b.calls.every((c) => c.name === "stop"))).toBe(true);
		expect(calls.some((c) => c.block?.terminate === true)).toBe(true);
		expect(calls.some((c) => c.block?.terminate === false)).toBe(true);
	});

	it("documents every behavior difference it accepts, with the releases it holds for", () => {
		expect(undocumentedLabels()).toEqual([]);
		expect(Object.values(BEHAVIOR_DIFFERENCES)).toContain("Coercion");
		const releases = documentedReleases();
		expect(releases.get(BEHAVIOR_DIFFERENCES.coercion)).toBeUndefined();
		expect(releases.get(BEHAVIOR_DIFFERENCES.returnedErrors)).toEqual(["0.73.1"]);
		expect(releases.get(BEHAVIOR_DIFFERENCES.blockedTerminate)).toEqual(["0.73.1"]);
		expect(
			documentedReleases(
				"## Differences from the reference\n\n**Returned errors.** Against 0.73.1 and 1.0.3 only: x\n\n**Coercion.** y",
			).get("Returned errors"),
		).toEqual(["0.73.1", "1.0.3"]);
	});

	const check = (r: DifferentialReport): void => {
		const summary = formatReport(r).join("\n");
		expect(r.ok, `seed ${seed} (replay with TOOLSMITH_DIFF_SEED=${seed}):\n${summary}`).toBe(true);
		expect(r.batches).toBe(BATCHES);
		for (const property of PROPERTIES) {
			const p = r.properties[property];
			expect(p.agree + p.batchesDocumented, property).toBe(r.batches);
		}
		// The properties no documented difference can touch agree on every batch.
		for (const property of ["results order", "sequential veto"] as const) {
			expect(r.properties[property].agree, `${property}, seed ${seed}`).toBe(r.batches);
		}
		expect(r.fullyAgreeing).toBeGreaterThan(0);
	};

	it(`agrees with the reference 0.73.1, or differs only as documented for it (seed ${seed})`, (context) => {
		if (!report073) {
			if (peersRequired)
				expect.fail("the reference package is not installed in test/bench/peers; run `npm run bench:setup`");
			context.skip("the benchmark peers are not installed (npm run bench:setup)");
		}
		const r = report073 as DifferentialReport;
		expect(r.release).toBe("0.73.1");
		check(r);
		// 0.73.1 ignores a returned isError and a blocked call's terminate; the batches show both.
		expect(r.differenceBatches[BEHAVIOR_DIFFERENCES.returnedErrors]).toBeGreaterThan(0);
		expect(r.differenceBatches[BEHAVIOR_DIFFERENCES.blockedTerminate]).toBeGreaterThan(0);
	});

	it(`agrees with the reference 1.6.0, or differs only as documented for it (seed ${seed})`, (context) => {
		if (!usable1x) context.skip("the reference 1.6.0 is not installed (npm run compat:setup)");
		const r = report1x as DifferentialReport;
		expect(r.release).toBe("1.6.0");
		check(r);
		// 1.6.0 behaves as toolsmith does there: the batches that exercise it agree.
		expect(r.differenceBatches[BEHAVIOR_DIFFERENCES.returnedErrors]).toBeUndefined();
		expect(r.differenceBatches[BEHAVIOR_DIFFERENCES.blockedTerminate]).toBeUndefined();
	});
});

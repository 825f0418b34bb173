/** The eval scenarios of `evals/`, run against the scripted model: no key, no network. */
import { fileURLToPath } from "node:url";
import { runEvals, scriptedModel } from "toolsmith-sdk/eval";
import { expect, it } from "vitest";
import scenario from "../evals/{{toolFile}}.eval.js";
import script from "../evals/scripted-model.js";

it("passes the eval scenarios with the scripted model", async () => {
	// Extension paths in a scenario are relative to its file.
	const dir = fileURLToPath(new URL("../evals/", import.meta.url));
	const report = await runEvals([{ ...scenario, dir }], { model: scriptedModel(script) });
	const failures = report.scenarios.flatMap((s) => s.results.flatMap((r) => r.failures.map((f) => f.message)));
	expect(failures).toEqual([]);
	expect(report.ok).toBe(true);
});

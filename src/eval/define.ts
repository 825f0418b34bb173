/**
 * `defineEval`: a scenario as written, checked at once so a mistake is reported where the scenario
 * is defined (no expectations, a pass rate outside 0..1, an unknown order…). Runtime-neutral.
 */
import { CALL_ORDERS } from "./matchers.js";
import type { EvalScenario } from "./types.js";

/** A scenario that does not make sense: the message says which field and why. */
export class EvalScenarioError extends Error {
	override readonly name = "EvalScenarioError";
}

const EXPECTATION_KEYS = ["calls", "forbid", "maxCalls", "maxTurns", "files", "answer"] as const;

function positiveInteger(value: unknown): boolean {
	return typeof value === "number" && Number.isInteger(value) && value >= 1;
}

/**
 * Why `path` cannot name a file of the world (undefined when it can): the keys of `world.files`
 * and `expect.files` are paths relative to the world's folder that stay inside it.
 */
export function worldPathProblem(path: string): string | undefined {
	if (path === "") return "an empty path names no file";
	if (path.includes("\0")) return "holds a NUL byte, which no file name may hold";
	if (/^(?:[/\\]|[A-Za-z]:)/.test(path)) {
		return "must be a path relative to the world's folder, not an absolute one (the world is a fresh folder of its own)";
	}
	if (path.split(/[/\\]/).includes("..")) {
		return 'must stay inside the world\'s folder: a relative path without ".." segments';
	}
	return undefined;
}

function isTextMatcher(value: unknown): boolean {
	return typeof value === "string" || value instanceof RegExp || typeof value === "function";
}

/** Every problem of `scenario`, one line each (empty: it is valid). */
export function scenarioProblems(scenario: unknown): string[] {
	if (typeof scenario !== "object" || scenario === null) return ["a scenario must be an object"];
	const s = scenario as Partial<EvalScenario> & Record<string, unknown>;
	const problems: string[] = [];
	if (typeof s.name !== "string" || s.name.trim() === "") problems.push("name: a non-empty string is required");
	if (typeof s.prompt !== "string" || s.prompt.trim() === "") problems.push("prompt: a non-empty string is required");
	if (s.system !== undefined && typeof s.system !== "string") problems.push("system: must be a string");
	const expect = s.expect as Record<string, unknown> | undefined;
	if (typeof expect !== "object" || expect === null) {
		problems.push("expect: required, with at least one of calls, forbid, maxCalls, maxTurns, files, answer");
	} else {
		if (!EXPECTATION_KEYS.some((key) => expect[key] !== undefined)) {
			problems.push(
				"expect: no expectation given; name at least one of calls, forbid, maxCalls, maxTurns, files, answer",
			);
		}
		for (const key of Object.keys(expect)) {
			if (key !== "order" && !(EXPECTATION_KEYS as readonly string[]).includes(key)) {
				problems.push(`expect.${key}: unknown expectation (known: ${EXPECTATION_KEYS.join(", ")}, order)`);
			}
		}
		if (expect.calls !== undefined) {
			if (!Array.isArray(expect.calls)) problems.push("expect.calls: must be a list of { tool, args? }");
			else {
				expect.calls.forEach((call: unknown, index) => {
					const c = call as { tool?: unknown; args?: unknown } | null;
					if (typeof c !== "object" || c === null || typeof c.tool !== "string" || c.tool === "") {
						problems.push(`expect.calls[${index}]: needs a tool name ({ tool: "name", args?: {…} })`);
					} else if (c.args !== undefined && (typeof c.args !== "object" || c.args === null || Array.isArray(c.args))) {
						problems.push(`expect.calls[${index}].args: must be an object of expected argument values`);
					}
				});
			}
		}
		if (expect.order !== undefined) {
			if (!CALL_ORDERS.includes(expect.order as never)) {
				problems.push(`expect.order: unknown order ${JSON.stringify(expect.order)} (use ${CALL_ORDERS.join(", ")})`);
			} else if (expect.calls === undefined) {
				problems.push("expect.order: applies to expect.calls, which is missing");
			}
		}
		if (
			expect.forbid !== undefined &&
			(!Array.isArray(expect.forbid) || expect.forbid.some((t) => typeof t !== "string"))
		) {
			problems.push("expect.forbid: must be a list of tool names");
		}
		for (const key of ["maxCalls", "maxTurns"] as const) {
			const value = expect[key];
			if (value !== undefined && !(typeof value === "number" && Number.isInteger(value) && value >= 0)) {
				problems.push(`expect.${key}: must be a whole number ≥ 0, got ${JSON.stringify(value)}`);
			}
		}
		if (expect.files !== undefined) {
			if (typeof expect.files !== "object" || expect.files === null)
				problems.push("expect.files: must be an object of path → content");
			else {
				for (const [path, matcher] of Object.entries(expect.files)) {
					const where = worldPathProblem(path);
					if (where !== undefined) problems.push(`expect.files[${JSON.stringify(path)}]: ${where}`);
					if (matcher !== null && !isTextMatcher(matcher)) {
						problems.push(`expect.files[${JSON.stringify(path)}]: must be a string, a RegExp, a predicate or null`);
					}
				}
			}
		}
		if (expect.answer !== undefined && !isTextMatcher(expect.answer)) {
			problems.push("expect.answer: must be a string, a RegExp or a predicate");
		}
	}
	if (s.passRate !== undefined && !(typeof s.passRate === "number" && s.passRate >= 0 && s.passRate <= 1)) {
		problems.push(`passRate: must be between 0 and 1 (a share of trials), got ${JSON.stringify(s.passRate)}`);
	}
	if (s.trials !== undefined && !positiveInteger(s.trials)) {
		problems.push(`trials: must be a whole number ≥ 1, got ${JSON.stringify(s.trials)}`);
	}
	if (s.turnLimit !== undefined && !positiveInteger(s.turnLimit)) {
		problems.push(`turnLimit: must be a whole number ≥ 1, got ${JSON.stringify(s.turnLimit)}`);
	}
	const world = s.world as Record<string, unknown> | undefined;
	if (world !== undefined) {
		if (world.env !== undefined && world.env !== "memory" && world.env !== "node") {
			problems.push(`world.env: "memory" or "node", got ${JSON.stringify(world.env)}`);
		}
		if (world.files !== undefined) {
			const files = world.files as Record<string, unknown>;
			if (typeof files !== "object" || files === null) problems.push("world.files: must be an object of path → text");
			else {
				for (const [path, text] of Object.entries(files)) {
					const where = worldPathProblem(path);
					if (where !== undefined) problems.push(`world.files[${JSON.stringify(path)}]: ${where}`);
					if (typeof text !== "string") problems.push(`world.files[${JSON.stringify(path)}]: must be a string`);
				}
			}
		}
	}
	const tools = s.tools as Record<string, unknown> | undefined;
	if (tools !== undefined) {
		if (
			tools.extensions !== undefined &&
			(!Array.isArray(tools.extensions) || tools.extensions.some((p) => typeof p !== "string"))
		) {
			problems.push("tools.extensions: must be a list of paths (relative to the scenario file)");
		}
		if (tools.definitions !== undefined && !Array.isArray(tools.definitions)) {
			problems.push("tools.definitions: must be a list of tool definitions");
		}
		const builtins = tools.builtins;
		if (
			builtins !== undefined &&
			typeof builtins !== "boolean" &&
			!(Array.isArray(builtins) && builtins.every((b) => typeof b === "string"))
		) {
			problems.push("tools.builtins: true, false or a list of built-in tool names");
		}
	}
	return problems;
}

/**
 * Check a scenario and give it back as it is (the identity, typed). Throws an
 * {@link EvalScenarioError} listing every problem, prefixed by the scenario's name.
 */
export function defineEval(scenario: EvalScenario): EvalScenario {
	const problems = scenarioProblems(scenario);
	if (problems.length > 0) {
		const name = typeof (scenario as { name?: unknown })?.name === "string" ? `"${scenario.name}"` : "(unnamed)";
		throw new EvalScenarioError(`Eval scenario ${name} is not valid:\n  - ${problems.join("\n  - ")}`);
	}
	return scenario;
}

/**
 * The checks of a trial against a scenario's expectations: expected calls against the actual ones
 * (deep-subset arguments, the four orders of agentevals' trajectory match), forbidden tools, call and
 * turn limits, end-state files and the final answer. Every failure says what was expected beside
 * what the model did. Runtime-neutral.
 */
import type { ToolCall } from "../contract/content.js";
import { dataPatternText } from "./patterns.js";
import type { CallOrder, EvalExpectations, ExpectationFailure, ExpectedCall, TextMatcher } from "./types.js";

/** The orders a scenario may name. */
export const CALL_ORDERS: readonly CallOrder[] = ["strict", "unordered", "subset", "superset"];

/** What a value looks like in a message: short JSON, functions and patterns by their source. */
export function describeValue(value: unknown): string {
	if (value instanceof RegExp) return String(value);
	const pattern = dataPatternText(value);
	if (pattern !== undefined) return pattern;
	if (typeof value === "function") return `<predicate ${value.name || "anonymous"}>`;
	if (value === undefined) return "undefined";
	try {
		const text = JSON.stringify(value, (_key, inner: unknown) => {
			if (inner instanceof RegExp) return String(inner);
			if (dataPatternText(inner) !== undefined) return dataPatternText(inner);
			if (typeof inner === "function") return `<predicate ${(inner as { name?: string }).name || "anonymous"}>`;
			return inner;
		});
		return text.length > 200 ? `${text.slice(0, 199)}…` : text;
	} catch {
		return String(value);
	}
}

/**
 * Where `actual` fails `expected` (an empty list when it matches), each as `path: expected …,
 * got …`. An expected `RegExp` wants a string it matches; a function is a predicate (a throw is a
 * mismatch); a plain object is a deep subset (every key given must be there and match, other keys
 * are ignored); an array matches element by element with the same length; anything else must be
 * equal (`Object.is`, so `NaN` matches `NaN`).
 */
export function valueMismatches(expected: unknown, actual: unknown, path = ""): string[] {
	const at = path === "" ? "(value)" : path;
	if (expected instanceof RegExp) {
		if (typeof actual !== "string")
			return [`${at}: expected a string matching ${expected}, got ${describeValue(actual)}`];
		expected.lastIndex = 0;
		return expected.test(actual) ? [] : [`${at}: expected ${expected}, got ${describeValue(actual)}`];
	}
	const pattern = dataPatternText(expected);
	if (pattern !== undefined) {
		if (typeof actual !== "string")
			return [`${at}: expected a string matching ${pattern}, got ${describeValue(actual)}`];
		return (expected as (value: unknown) => boolean)(actual)
			? []
			: [`${at}: expected ${pattern}, got ${describeValue(actual)}`];
	}
	if (typeof expected === "function") {
		let ok = false;
		try {
			ok = (expected as (value: unknown) => unknown)(actual) === true;
		} catch {
			ok = false;
		}
		return ok ? [] : [`${at}: ${describeValue(expected)} refused ${describeValue(actual)}`];
	}
	if (Array.isArray(expected)) {
		if (!Array.isArray(actual)) return [`${at}: expected an array, got ${describeValue(actual)}`];
		if (actual.length !== expected.length) {
			return [`${at}: expected ${expected.length} items, got ${actual.length} (${describeValue(actual)})`];
		}
		return expected.flatMap((item, index) => valueMismatches(item, actual[index], `${path}/${index}`));
	}
	if (typeof expected === "object" && expected !== null) {
		if (typeof actual !== "object" || actual === null || Array.isArray(actual)) {
			return [`${at}: expected an object, got ${describeValue(actual)}`];
		}
		const record = actual as Record<string, unknown>;
		return Object.entries(expected).flatMap(([key, inner]) =>
			key in record
				? valueMismatches(inner, record[key], `${path}/${key}`)
				: [`${path}/${key}: expected ${describeValue(inner)}, missing`],
		);
	}
	return Object.is(expected, actual)
		? []
		: [`${at}: expected ${describeValue(expected)}, got ${describeValue(actual)}`];
}

/** The arguments of a call as an object (a JSON string is parsed; anything unparsable stays as it is). */
export function callArguments(call: ToolCall): unknown {
	if (typeof call.arguments !== "string") return call.arguments;
	try {
		return JSON.parse(call.arguments) as unknown;
	} catch {
		return call.arguments;
	}
}

/** Where `call` fails `expected`: a different tool, or the argument mismatches (empty: it matches). */
export function callMismatches(expected: ExpectedCall, call: ToolCall): string[] {
	if (call.name !== expected.tool) return [`tool: expected ${expected.tool}, got ${call.name}`];
	if (expected.args === undefined) return [];
	return valueMismatches(expected.args, callArguments(call));
}

/** Whether `call` matches `expected`. */
export function matchesCall(expected: ExpectedCall, call: ToolCall): boolean {
	return callMismatches(expected, call).length === 0;
}

/** A call as a failure shows it: its tool and arguments. */
export function showCall(call: ToolCall): { readonly tool: string; readonly args: unknown } {
	return { tool: call.name, args: callArguments(call) };
}

function showExpected(expected: ExpectedCall): string {
	return expected.args === undefined ? expected.tool : `${expected.tool}(${describeValue(expected.args)})`;
}

/**
 * A maximum matching between expected and actual calls (each used at most once): for each expected
 * index, the actual index it is paired with, or -1. Kuhn's augmenting paths, so "the first call that
 * fits" never steals the only partner of a later expected call.
 */
function maximumMatching(expected: readonly ExpectedCall[], actual: readonly ToolCall[]): number[] {
	const fits = expected.map((want) => actual.map((call) => matchesCall(want, call)));
	const actualTo = actual.map(() => -1);
	const tryAssign = (e: number, seen: boolean[]): boolean => {
		for (let a = 0; a < actual.length; a++) {
			if (!fits[e]![a] || seen[a]) continue;
			seen[a] = true;
			if (actualTo[a] === -1 || tryAssign(actualTo[a]!, seen)) {
				actualTo[a] = e;
				return true;
			}
		}
		return false;
	};
	for (let e = 0; e < expected.length; e++)
		tryAssign(
			e,
			actual.map(() => false),
		);
	const expectedTo = expected.map(() => -1);
	actualTo.forEach((e, a) => {
		if (e >= 0) expectedTo[e] = a;
	});
	return expectedTo;
}

/**
 * The actual call closest to `expected`, with why it does not match: a call of the same tool with
 * the fewest argument mismatches, else none.
 */
function closest(
	expected: ExpectedCall,
	actual: readonly ToolCall[],
): { readonly call: ToolCall; readonly mismatches: string[] } | undefined {
	let best: { call: ToolCall; mismatches: string[] } | undefined;
	for (const call of actual) {
		if (call.name !== expected.tool) continue;
		const mismatches = callMismatches(expected, call);
		if (best === undefined || mismatches.length < best.mismatches.length) best = { call, mismatches };
	}
	return best;
}

function missingFailure(expected: ExpectedCall, actual: readonly ToolCall[], order: CallOrder): ExpectationFailure {
	const near = closest(expected, actual);
	const names = actual.map((call) => call.name);
	const message = near
		? `${order}: expected ${showExpected(expected)}; the closest call was ${near.call.name}(${describeValue(callArguments(near.call))}): ${near.mismatches.join("; ")}`
		: `${order}: expected ${showExpected(expected)}; the model ${names.length === 0 ? "made no tool call" : `called ${names.join(", ")}`}`;
	return {
		expectation: "calls",
		message,
		expected: { tool: expected.tool, ...(expected.args !== undefined ? { args: expected.args } : {}) },
		actual: near ? showCall(near.call) : actual.map(showCall),
	};
}

function extraFailure(call: ToolCall, expected: readonly ExpectedCall[], order: CallOrder): ExpectationFailure {
	return {
		expectation: "calls",
		message: `${order}: ${call.name}(${describeValue(callArguments(call))}) is none of the expected calls (${expected.map(showExpected).join(", ") || "none"})`,
		expected: expected.map((want) => ({ tool: want.tool, ...(want.args !== undefined ? { args: want.args } : {}) })),
		actual: showCall(call),
	};
}

/**
 * Compare the actual calls (in the order the model made them, every turn's calls in turn) with the
 * expected ones, as agentevals' trajectory match defines the modes (over tool calls only; the
 * expected arguments are deep subsets, see {@link valueMismatches}):
 *
 * - `strict`: the same number of calls, and the i-th actual call matches the i-th expected call;
 * - `unordered`: the same calls in any order: a one-to-one pairing of every expected call with an
 *   actual call it matches, and no actual call left over;
 * - `subset`: the model called nothing beyond the expected calls: every actual call is paired with
 *   a distinct expected call it matches (expected calls may be left unused);
 * - `superset`: the model made at least the expected calls: every expected call is paired with a
 *   distinct actual call it matches (other calls are allowed).
 *
 * A call counts once: two expected calls of the same tool need two actual calls. Empty when they
 * match; else the failures, each with the expected call beside the closest actual one.
 */
export function matchCalls(
	expected: readonly ExpectedCall[],
	actual: readonly ToolCall[],
	order: CallOrder = "superset",
): ExpectationFailure[] {
	if (order === "strict") {
		const failures: ExpectationFailure[] = [];
		const length = Math.max(expected.length, actual.length);
		for (let i = 0; i < length; i++) {
			const want = expected[i];
			const call = actual[i];
			if (want && call) {
				const mismatches = callMismatches(want, call);
				if (mismatches.length > 0) {
					failures.push({
						expectation: "calls",
						message: `strict: call ${i + 1} should be ${showExpected(want)}; the model called ${call.name}(${describeValue(callArguments(call))}): ${mismatches.join("; ")}`,
						expected: { tool: want.tool, ...(want.args !== undefined ? { args: want.args } : {}) },
						actual: showCall(call),
					});
				}
			} else if (want) {
				failures.push({
					expectation: "calls",
					message: `strict: call ${i + 1} should be ${showExpected(want)}; the model made only ${actual.length} call${actual.length === 1 ? "" : "s"}`,
					expected: { tool: want.tool, ...(want.args !== undefined ? { args: want.args } : {}) },
					actual: null,
				});
			} else if (call) {
				failures.push({
					expectation: "calls",
					message: `strict: call ${i + 1}, ${call.name}(${describeValue(callArguments(call))}), is beyond the ${expected.length} expected`,
					expected: null,
					actual: showCall(call),
				});
			}
		}
		return failures;
	}
	const pairs = maximumMatching(expected, actual);
	const used = new Set(pairs.filter((a) => a >= 0));
	const failures: ExpectationFailure[] = [];
	if (order === "unordered" || order === "superset") {
		pairs.forEach((a, e) => {
			if (a < 0) {
				const unused = actual.filter((_call, index) => !used.has(index));
				failures.push(missingFailure(expected[e]!, unused.length > 0 ? unused : actual, order));
			}
		});
	}
	if (order === "unordered" || order === "subset") {
		actual.forEach((call, a) => {
			if (!used.has(a)) failures.push(extraFailure(call, expected, order));
		});
	}
	return failures;
}

/** Whether `text` satisfies `matcher` (a predicate that throws does not). */
export function matchesText(matcher: TextMatcher, text: string): boolean {
	if (typeof matcher === "string") return matcher === text;
	if (matcher instanceof RegExp) {
		matcher.lastIndex = 0;
		return matcher.test(text);
	}
	try {
		return matcher(text) === true;
	} catch {
		return false;
	}
}

function showText(matcher: TextMatcher): string {
	if (typeof matcher === "string") return JSON.stringify(matcher.length > 200 ? `${matcher.slice(0, 199)}…` : matcher);
	return describeValue(matcher);
}

function clip(text: string): string {
	return JSON.stringify(text.length > 200 ? `${text.slice(0, 199)}…` : text);
}

/** What a trial produced, as the expectations see it. */
export interface TrialOutcome {
	/** Every call, in the order the model made them. */
	readonly calls: readonly ToolCall[];
	readonly turns: number;
	readonly answer: string;
	/** Each expected file's content at the end (`null`: it does not exist or is not readable text). */
	readonly files: Readonly<Record<string, string | null>>;
}

/** Every expectation of `expect` that `outcome` fails (empty: the trial passes). */
export function checkExpectations(expect: EvalExpectations, outcome: TrialOutcome): ExpectationFailure[] {
	const failures: ExpectationFailure[] = [];
	if (expect.calls !== undefined) failures.push(...matchCalls(expect.calls, outcome.calls, expect.order));
	for (const tool of expect.forbid ?? []) {
		const calls = outcome.calls.filter((call) => call.name === tool);
		if (calls.length > 0) {
			failures.push({
				expectation: "forbid",
				message: `${tool} must not be called; the model called it ${calls.length} time${calls.length === 1 ? "" : "s"}, first with ${describeValue(callArguments(calls[0]!))}`,
				expected: `no call of ${tool}`,
				actual: calls.map(showCall),
			});
		}
	}
	if (expect.maxCalls !== undefined && outcome.calls.length > expect.maxCalls) {
		failures.push({
			expectation: "maxCalls",
			message: `at most ${expect.maxCalls} tool call${expect.maxCalls === 1 ? "" : "s"}; the model made ${outcome.calls.length} (${outcome.calls.map((call) => call.name).join(", ")})`,
			expected: expect.maxCalls,
			actual: outcome.calls.length,
		});
	}
	if (expect.maxTurns !== undefined && outcome.turns > expect.maxTurns) {
		failures.push({
			expectation: "maxTurns",
			message: `at most ${expect.maxTurns} turn${expect.maxTurns === 1 ? "" : "s"}; the model took ${outcome.turns}`,
			expected: expect.maxTurns,
			actual: outcome.turns,
		});
	}
	for (const [path, matcher] of Object.entries(expect.files ?? {})) {
		const content = outcome.files[path] ?? null;
		if (matcher === null) {
			if (content !== null) {
				failures.push({
					expectation: "files",
					message: `${path} must not exist; it holds ${clip(content)}`,
					expected: null,
					actual: content,
				});
			}
		} else if (content === null) {
			failures.push({
				expectation: "files",
				message: `${path} should be ${showText(matcher)}; it does not exist`,
				expected: showText(matcher),
				actual: null,
			});
		} else if (!matchesText(matcher, content)) {
			failures.push({
				expectation: "files",
				message: `${path} should be ${showText(matcher)}; it holds ${clip(content)}`,
				expected: showText(matcher),
				actual: content,
			});
		}
	}
	if (expect.answer !== undefined && !matchesText(expect.answer, outcome.answer)) {
		failures.push({
			expectation: "answer",
			message: `the answer should be ${showText(expect.answer)}; it was ${clip(outcome.answer)}`,
			expected: showText(expect.answer),
			actual: outcome.answer,
		});
	}
	return failures;
}

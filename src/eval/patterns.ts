/**
 * Patterns written as data: `{ "$regex": "…", "flags": "i" }` in a JSON scenario becomes a predicate
 * that runs on a linear-time engine (RE2, the one replay fixtures use), so a pattern such as
 * `^(a+)+$` cannot block the run however long the answer; what RE2 cannot run (lookaround,
 * backreferences), an unknown flag or a malformed pattern object is refused when the file loads,
 * naming its JSON path. A `RegExp` written in a `.eval.ts` file is the author's own code and keeps
 * JavaScript's engine. Runtime-neutral.
 */
import { errorMessage } from "../contract/errors.js";
import { compileLinearPattern } from "../harness/linear-regex.js";

/** How deep a JSON scenario may nest (the executor's limit for arguments). */
export const MAX_SCENARIO_DEPTH = 512;

/** The most pattern text one JSON file may hold, all `$regex` sources together (each is compiled at load). */
export const MAX_PATTERN_CHARS = 65_536;

/** What a data pattern shows as (`/source/flags`), by the predicate standing for it. */
const shown = new WeakMap<object, string>();

/**
 * A data pattern's text as a failure shows it (`/^paris$/i`), or undefined for anything else (a
 * `RegExp`, a predicate written in code).
 */
export function dataPatternText(value: unknown): string | undefined {
	return typeof value === "function" ? shown.get(value) : undefined;
}

/**
 * The predicate a `{ "$regex" }` stands for: true for a string the pattern matches, in time linear
 * in the string. It shows itself as `/source/flags` (`String`, `JSON.stringify`, failure messages).
 * Throws an `Error` saying why when the pattern cannot run on the linear-time engine.
 */
export function dataPattern(source: string, flags = ""): (value: unknown) => boolean {
	const compiled = compileLinearPattern(source, flags);
	const text = `/${source}/${flags}`;
	const predicate = (value: unknown): boolean => typeof value === "string" && compiled.test(value);
	Object.defineProperties(predicate, {
		name: { value: text },
		toString: { value: () => text },
		toJSON: { value: () => text },
	});
	shown.set(predicate, text);
	return predicate;
}

/** `path` extended by an object key or an array index, as JSON paths are written (`a.b[0]["c d"]`). */
function childPath(path: string, key: string | number): string {
	if (typeof key === "number") return `${path}[${key}]`;
	if (/^[A-Za-z_$][\w$]*$/.test(key)) return path === "" ? key : `${path}.${key}`;
	return `${path}[${JSON.stringify(key)}]`;
}

function clipped(text: string): string {
	return JSON.stringify(text.length > 80 ? `${text.slice(0, 79)}…` : text);
}

/** A JSON scenario that cannot be used as it is: every problem, each with its JSON path. */
export class ScenarioDataError extends Error {
	override readonly name = "ScenarioDataError";
	constructor(readonly problems: readonly string[]) {
		const shownProblems = problems.slice(0, 20);
		const more = problems.length - shownProblems.length;
		super(`${shownProblems.join("; ")}${more > 0 ? `; and ${more} more` : ""}`);
	}
}

/**
 * `value` (parsed JSON) with every `{ "$regex": "…", "flags"?: "…" }` replaced by its
 * {@link dataPattern}. Throws a {@link ScenarioDataError} listing every pattern that cannot run
 * (with its JSON path), a pattern object with other keys or non-string fields, nesting deeper than
 * {@link MAX_SCENARIO_DEPTH}, or more than {@link MAX_PATTERN_CHARS} of pattern text in all.
 */
export function revivePatterns(value: unknown): unknown {
	const problems: string[] = [];
	let patternChars = 0;
	const revive = (inner: unknown, path: string, depth: number): unknown => {
		if (typeof inner !== "object" || inner === null) return inner;
		const at = path === "" ? "(top)" : path.length > 120 ? `${path.slice(0, 80)}…${path.slice(-30)}` : path;
		if (depth > MAX_SCENARIO_DEPTH) {
			problems.push(`${at}: nests deeper than ${MAX_SCENARIO_DEPTH} levels`);
			return null;
		}
		if (Array.isArray(inner)) return inner.map((item, index) => revive(item, childPath(path, index), depth + 1));
		const record = inner as Record<string, unknown>;
		if (!Object.hasOwn(record, "$regex")) {
			return Object.fromEntries(
				Object.entries(record).map(([key, item]) => [key, revive(item, childPath(path, key), depth + 1)]),
			);
		}
		const source = record.$regex;
		const flags = record.flags;
		const extra = Object.keys(record).filter((key) => key !== "$regex" && key !== "flags");
		if (typeof source !== "string") {
			problems.push(`${at}: "$regex" must be a string (the pattern), got ${JSON.stringify(source) ?? typeof source}`);
		} else if (flags !== undefined && typeof flags !== "string") {
			problems.push(`${at}: "flags" must be a string such as "i" or "ims", got ${JSON.stringify(flags)}`);
		} else if (extra.length > 0) {
			problems.push(
				`${at}: a pattern object holds only "$regex" and "flags"; remove ${extra.map((key) => JSON.stringify(key)).join(", ")}`,
			);
		} else {
			patternChars += source.length;
			if (patternChars > MAX_PATTERN_CHARS) {
				if (patternChars - source.length <= MAX_PATTERN_CHARS) {
					problems.push(
						`${at}: the file's patterns hold more than ${MAX_PATTERN_CHARS} characters in all (each is compiled when the file loads); shorten them`,
					);
				}
				return null;
			}
			try {
				return dataPattern(source, flags);
			} catch (error) {
				problems.push(`${at}: the pattern ${clipped(source)} cannot be used: ${errorMessage(error)}`);
			}
		}
		return null;
	};
	const revived = revive(value, "", 0);
	if (problems.length > 0) throw new ScenarioDataError(problems);
	return revived;
}

/**
 * Safe handling of untrusted argument values: parsing, copying without hostile keys, and short
 * previews for error messages.
 */
import { errorMessage } from "../contract/errors.js";
import { err, ok, type Result } from "../contract/result.js";

/**
 * Keys that can reach a prototype when a tool (or a naive merge helper) assigns them. `__proto__`
 * is always dropped; `constructor` and `prototype` only when the schema does not declare them.
 */
export function isHostileKey(key: string): boolean {
	return key === "__proto__" || key === "constructor" || key === "prototype";
}

/** Deeper nesting than this is treated as a cycle: no model writes arguments that deep. */
export const MAX_DEPTH = 512;

/**
 * Arguments sent as a JSON string longer than this many characters are refused before parsing;
 * no model writes arguments that large (16 MiB).
 */
export const MAX_ARGUMENT_CHARS = 16 * 1024 * 1024;

export class ArgumentsShapeError extends Error {}

/**
 * How deep the JSON text nests arrays and objects, counted without recursion and without parsing;
 * stops counting once past `limit`. Brackets inside strings do not count.
 */
export function jsonNestingDepth(text: string, limit: number): number {
	let depth = 0;
	let deepest = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (inString) {
			if (code === 92)
				i++; // backslash: skip the escaped character
			else if (code === 34) inString = false;
		} else if (code === 34) inString = true;
		else if (code === 123 || code === 91) {
			if (++depth > deepest) {
				deepest = depth;
				if (deepest > limit) return deepest;
			}
		} else if (code === 125 || code === 93) depth--;
	}
	return deepest;
}

/**
 * What is left of `budget` after counting `value` as compact JSON (strings and keys by length, one
 * character for each other value and separator: a lower bound), or -1 once it is spent. Stops
 * early and does not go deeper than `MAX_DEPTH` (the depth check is the copy's job).
 */
export function sizeLeft(value: unknown, budget: number, depth = 0): number {
	if (typeof value === "string") return budget - value.length - 2;
	if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return budget - 1;
	let left = budget - 2;
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length && left >= 0; i++) left = sizeLeft(value[i], left - 1, depth + 1);
		return left;
	}
	for (const key in value) {
		if (left < 0) return -1;
		const item = (value as Record<string, unknown>)[key];
		left -= key.length + 4;
		left = typeof item === "string" ? left - item.length - 2 : sizeLeft(item, left, depth + 1);
	}
	return left;
}

/** Why arguments sent as an object break the size limit, or undefined when they fit. */
export function objectSizeProblem(value: unknown): string | undefined {
	if (sizeLeft(value, MAX_ARGUMENT_CHARS) >= 0) return undefined;
	return `the arguments are more than ${MAX_ARGUMENT_CHARS} characters as JSON, the limit`;
}

/** Why a JSON argument string breaks a limit (size, then depth), or undefined when it fits. */
export function jsonLimitProblem(text: string, maxDepth = MAX_DEPTH): string | undefined {
	if (text.length > MAX_ARGUMENT_CHARS) {
		return `the arguments are ${text.length} characters of JSON, more than the limit of ${MAX_ARGUMENT_CHARS} characters`;
	}
	// Nesting past the limit needs more opening brackets than that: short texts need no scan.
	if (text.length > maxDepth && jsonNestingDepth(text, maxDepth) > maxDepth) {
		return `the arguments are nested more than ${maxDepth} levels deep, the limit`;
	}
	return undefined;
}

/** Whether `value` is an object literal or a prototype-less object, as JSON parsing makes them. */
function isPlainObject(value: object): boolean {
	const proto = Object.getPrototypeOf(value);
	return proto === Object.prototype || proto === null;
}

/** Set while copying or parsing when a `constructor` or `prototype` key was kept for a later check. */
export interface HostileKeyState {
	sawHostileKey: boolean;
}

/**
 * A deep copy of plain objects and arrays, without `__proto__` keys. Other objects (dates, typed
 * arrays, class instances) are shared, as they are not JSON a model could send. Keys are defined,
 * never assigned, so no key can change a prototype. `constructor`/`prototype` keys are kept and
 * flagged in `state`, so the schema can decide (see `dropUndeclaredHostileKeys`).
 * Throws `ArgumentsShapeError` on cycles or absurd depth, and whatever a getter throws.
 */
export function cloneArguments(value: unknown, state: HostileKeyState, depth = 0): unknown {
	if (typeof value !== "object" || value === null) return value;
	if (depth > MAX_DEPTH) {
		throw new ArgumentsShapeError(
			`the arguments are nested more than ${MAX_DEPTH} levels deep, the limit (or contain a cycle)`,
		);
	}
	if (Array.isArray(value)) {
		const out = new Array<unknown>(value.length);
		for (let i = 0; i < value.length; i++) out[i] = cloneArguments(value[i], state, depth + 1);
		return out;
	}
	if (!isPlainObject(value)) return value;
	const out: Record<string, unknown> = {};
	for (const key of Object.keys(value)) {
		if (key === "__proto__") continue;
		const child = cloneArguments((value as Record<string, unknown>)[key], state, depth + 1);
		if (key === "constructor" || key === "prototype") {
			state.sawHostileKey = true;
			Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
		} else {
			out[key] = child;
		}
	}
	return out;
}

/**
 * Whether `value` is plain JSON data (plain objects, arrays, primitives) without any hostile key
 * at any depth: such arguments may be handed to a tool as they are. Allocates nothing.
 */
export function isCleanJson(value: unknown, depth = 0): boolean {
	if (typeof value !== "object" || value === null) return typeof value !== "function";
	if (depth > MAX_DEPTH) return false;
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) if (!isCleanJson(value[i], depth + 1)) return false;
		return true;
	}
	if (!isPlainObject(value)) return false;
	for (const key in value) {
		if (key === "__proto__" || key === "constructor" || key === "prototype") return false;
		const child = (value as Record<string, unknown>)[key];
		if (typeof child === "object" && child !== null && !isCleanJson(child, depth + 1)) return false;
	}
	return true;
}

/**
 * `isCleanJson` for objects that already passed the compiled check of an object schema declaring
 * `names`, where `known[i]` says that every value `names[i]` accepts is a primitive. Those
 * values need no walk; every other key is checked as `isCleanJson` would. Keys usually come in
 * declaration order, so the usual cost is one comparison per key. `names` holds no hostile key.
 */
export function cleanObjectCheck(names: readonly string[], known: readonly boolean[]): (value: object) => boolean {
	return (value) => {
		if (!isPlainObject(value)) return false;
		let next = 0;
		for (const key in value) {
			const index = next < names.length && key === names[next] ? next++ : names.indexOf(key);
			if (index >= 0 ? known[index] === true : false) continue;
			if (index < 0 && isHostileKey(key)) return false;
			const child = (value as Record<string, unknown>)[key];
			if (typeof child === "object" && child !== null && !isCleanJson(child, 1)) return false;
		}
		return true;
	};
}

/** Removes own `__proto__` keys from freshly parsed JSON, in place, and flags the other hostile keys. */
function stripProtoKeys(value: unknown, state: HostileKeyState, depth: number): void {
	if (typeof value !== "object" || value === null) return;
	if (depth > MAX_DEPTH) return;
	if (Array.isArray(value)) {
		for (const item of value) stripProtoKeys(item, state, depth + 1);
		return;
	}
	const record = value as Record<string, unknown>;
	if (Object.hasOwn(record, "__proto__")) Reflect.deleteProperty(record, "__proto__");
	if (Object.hasOwn(record, "constructor") || Object.hasOwn(record, "prototype")) state.sawHostileKey = true;
	for (const key in record) stripProtoKeys(record[key], state, depth + 1);
}

/**
 * Parses a JSON argument string. An empty or blank string means "no arguments" (`{}`), which some
 * providers send for parameterless tools. Own `__proto__` keys are removed.
 */
export function parseJsonArguments(
	text: string,
	state: HostileKeyState,
	maxDepth = MAX_DEPTH,
): Result<unknown, string> {
	if (text.trim() === "") return ok({});
	const problem = jsonLimitProblem(text, maxDepth);
	if (problem !== undefined) return err(problem);
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		return err(errorMessage(error));
	}
	stripProtoKeys(parsed, state, 0);
	return ok(parsed);
}

/**
 * What is left of `budget` characters after a rough count of `value`'s JSON, or -1 once it is
 * spent (or the value is not plain data). Stops early, so a huge value costs only the budget.
 */
function fitsIn(value: unknown, budget: number, depth: number): number {
	if (budget < 0 || depth > 32) return -1;
	if (typeof value === "string") return budget - value.length - 4;
	if (typeof value !== "object" || value === null) return budget - 24;
	if (Array.isArray(value)) {
		let left = budget - 4;
		for (let i = 0; i < value.length && left >= 0; i++) left = fitsIn(value[i], left - 8, depth + 1);
		return left;
	}
	if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return -1;
	let left = budget - 4;
	for (const key in value) {
		if (left < 0) return -1;
		left = fitsIn((value as Record<string, unknown>)[key], left - key.length - 12, depth + 1);
	}
	return left;
}

/**
 * JSON for an error message, cut to about `limit` characters. Serializes lazily, so a 10 MB string
 * or a huge array costs only the part that is shown.
 */
export function previewJson(value: unknown, limit: number, indent = 2): string {
	// Small plain values (the usual case) go through the native serializer.
	if (fitsIn(value, limit, 0) >= 0) {
		try {
			const text = JSON.stringify(value, null, indent);
			if (text !== undefined && text.length <= limit) return text;
		} catch {
			// cycles, BigInt: the careful writer below handles them
		}
	}
	const out: string[] = [];
	let length = 0;
	let cut = false;
	const push = (s: string): boolean => {
		if (length >= limit) {
			cut = true;
			return false;
		}
		out.push(s);
		length += s.length;
		return true;
	};
	const seen = new Set<object>();
	const write = (v: unknown, level: number): boolean => {
		if (v === null || typeof v === "boolean") return push(String(v));
		if (typeof v === "number") return push(Number.isFinite(v) ? String(v) : "null");
		if (typeof v === "string") {
			const room = Math.max(0, limit - length);
			if (v.length > room + 16) {
				push(JSON.stringify(v.slice(0, room)).slice(0, -1));
				cut = true;
				return false;
			}
			return push(JSON.stringify(v));
		}
		if (typeof v === "bigint") return push(`${v}`);
		if (typeof v !== "object") return push(v === undefined ? "undefined" : `"[${typeof v}]"`);
		if (seen.has(v)) return push('"[Circular]"');
		if (level > 64) return push('"[…]"');
		seen.add(v);
		const pad = indent > 0 ? `\n${" ".repeat(indent * (level + 1))}` : "";
		const end = indent > 0 ? `\n${" ".repeat(indent * level)}` : "";
		const sep = indent > 0 ? ": " : ":";
		let ok = true;
		if (Array.isArray(v)) {
			if (!push("[")) return false;
			for (let i = 0; i < v.length && ok; i++) {
				ok = push(i === 0 ? pad : `,${pad}`) && write(v[i], level + 1);
			}
			if (ok) ok = push(v.length > 0 ? `${end}]` : "]");
		} else {
			let keys: string[];
			try {
				keys = Object.keys(v);
			} catch {
				keys = [];
			}
			if (!push("{")) return false;
			for (let i = 0; i < keys.length && ok; i++) {
				const key = keys[i] as string;
				let child: unknown;
				try {
					child = (v as Record<string, unknown>)[key];
				} catch {
					child = "[unreadable]";
				}
				ok = push(`${i === 0 ? pad : `,${pad}`}${JSON.stringify(key)}${sep}`) && write(child, level + 1);
			}
			if (ok) ok = push(keys.length > 0 ? `${end}}` : "}");
		}
		seen.delete(v);
		return ok;
	};
	write(value, 0);
	let text = out.join("");
	if (cut || text.length > limit) {
		text = `${text.slice(0, limit)}… [cut at ${limit} characters]`;
	}
	return text;
}

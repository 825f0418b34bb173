/**
 * Stand-ins for the reference exports toolsmith does not implement. Every value export of the
 * reference's public modules (the generated `_reference-names.ts`) resolves in the compatibility
 * modules, so an extension that imports one loads: a missing name would be `undefined`, and a
 * module that extends an undefined class, or calls an undefined function at its top level, fails
 * to load even when the tools it registers never need it. A stub does nothing and reports a
 * `W_UNSUPPORTED_API` warning (once per extension and name) when it is used:
 *
 * - a function returns `undefined`;
 * - a class constructs (and is extendable); its instances draw no lines (`render(width)` → `[]`),
 *   and its static members are functions that return `undefined`;
 * - an object has no members (reading one reports and gives `undefined`);
 * - a string, number or boolean is the reference's value.
 */
import type { ReferenceKind } from "./_reference-names.js";
import { REFERENCE_CONSTANTS, REFERENCE_EXPORTS } from "./_reference-names.js";
import { callingExtension, reportCompat } from "./_state.js";

/**
 * Marks a stub. A registry symbol, so the loader's import check (outside this folder) recognizes
 * stubs without importing this module.
 */
export const COMPAT_STUB: unique symbol = Symbol.for("toolsmith.compat-stub") as never;

function report(module: string, member: string, how: string): void {
	const path = callingExtension() ?? "(an extension)";
	reportCompat(`stub:${module}:${member}`, {
		severity: "warning",
		code: "W_UNSUPPORTED_API",
		message: `${path} ${how} \`${member}\` from ${module}, which toolsmith's compatibility layer only stubs (toolsmith runs tools headless, without pi's sessions, models or terminal UI): it does nothing here.`,
		path,
	});
}

function named<T extends object>(value: T, name: string): T {
	Object.defineProperty(value, "name", { value: name, configurable: true });
	Object.defineProperty(value, COMPAT_STUB, { value: true });
	return value;
}

function stubFunction(module: string, member: string, how = "called"): (...args: unknown[]) => undefined {
	return named(() => {
		report(module, member, how);
		return undefined;
	}, member);
}

/** Keys a stub must not answer for: they change how JavaScript treats the value (promises, JSON). */
const INERT: ReadonlySet<string> = new Set(["then", "toJSON", "prototype", "constructor", "name", "length"]);

function stubClass(module: string, name: string): new (...args: unknown[]) => object {
	class Stub {
		constructor(..._args: unknown[]) {
			report(module, name, "constructed");
		}
		/** A component draws nothing: no lines. */
		render(_width?: number): string[] {
			return [];
		}
		invalidate(): void {}
		handleInput(_data?: string): void {}
		dispose(): void {}
	}
	named(Stub, name);
	const statics = new Map<string, (...args: unknown[]) => undefined>();
	return new Proxy(Stub, {
		get(target, key, receiver) {
			if (typeof key !== "string" || INERT.has(key) || key in target) return Reflect.get(target, key, receiver);
			let member = statics.get(key);
			if (!member) {
				member = stubFunction(module, `${name}.${key}`);
				statics.set(key, member);
			}
			return member;
		},
	});
}

function stubObject(module: string, name: string): object {
	const target = named(Object.create(null) as object, name);
	return new Proxy(Object.freeze(target), {
		get(object, key) {
			if (typeof key !== "string" || INERT.has(key)) return Reflect.get(object, key);
			report(module, `${name}.${key}`, "read");
			return undefined;
		},
	});
}

function stubOf(module: string, name: string, kind: ReferenceKind, constant: unknown): unknown {
	if (constant !== undefined) return constant;
	switch (kind) {
		case "class":
			return stubClass(module, name);
		case "function":
			return stubFunction(module, name);
		case "symbol":
			return Symbol(name);
		default:
			return stubObject(module, name);
	}
}

/**
 * The module `implemented` completed with a stub for every reference export (of the compatibility
 * module `key` in `_reference-names.ts`) it lacks. `label` names the module in warnings.
 */
export function withStubs(
	key: string,
	label: string,
	implemented: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
	const out: Record<string, unknown> = { ...implemented };
	const constants = REFERENCE_CONSTANTS[key] ?? {};
	for (const [name, kind] of Object.entries(REFERENCE_EXPORTS[key] ?? {})) {
		if (name in out) continue;
		out[name] = stubOf(label, name, kind, constants[name]);
	}
	return Object.freeze(out);
}

/** Whether `value` is one of these stubs. */
export function isCompatStub(value: unknown): boolean {
	return (
		(typeof value === "function" || (typeof value === "object" && value !== null)) &&
		(value as { [COMPAT_STUB]?: boolean })[COMPAT_STUB] === true
	);
}

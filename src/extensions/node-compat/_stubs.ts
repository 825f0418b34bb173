/**
 * Stand-ins for the reference exports toolsmith does not implement. Every value export of the
 * reference's public modules (the generated `_reference-names.ts`) resolves in the compatibility
 * modules, so an extension that imports one loads: a missing name would be `undefined`, and a
 * module that extends an undefined class, or calls an undefined function at its top level, fails
 * to load even when the tools it registers never need it. A stub does nothing and reports a
 * `W_UNSUPPORTED_API` warning (once per extension and name) when it is used:
 *
 * - a function returns an inert value (below), never `undefined`;
 * - a class constructs (and is extendable); its instances draw plain lines (the strings and
 *   components given to the constructor or `addChild`), members it lacks are inert values, and its
 *   static members are stub functions;
 * - an object's members are inert values;
 * - a string, number or boolean is the reference's value.
 *
 * An inert value stands for what a stub would have given: code that goes on using it (reads
 * members, calls it, constructs it, converts it to a string or number, iterates, spreads, awaits
 * it, serializes it) neither throws nor waits, and the first use by each extension reports a
 * `W_UNSUPPORTED_API` warning naming the stub the value came from. Far better than `undefined`,
 * whose "Cannot read properties of undefined" surfaces far from the cause.
 */
import { truncateToWidth } from "../../render/width.js";
import type { ReferenceKind } from "./_reference-names.js";
import { REFERENCE_CONSTANTS, REFERENCE_EXPORTS } from "./_reference-names.js";
import { callingExtension, reportCompat } from "./state.js";

/**
 * Marks a stub. A registry symbol, so the loader's import check (outside this folder) recognizes
 * stubs without importing this module.
 */
export const COMPAT_STUB: unique symbol = Symbol.for("toolsmith.compat-stub") as never;

const WHY = "toolsmith runs tools headless, without pi's sessions, models or terminal UI";

function report(module: string, member: string, how: string): void {
	const path = callingExtension() ?? "(an extension)";
	reportCompat(`stub:${module}:${member}`, {
		severity: "warning",
		code: "W_UNSUPPORTED_API",
		message: `${path} ${how} \`${member}\` from ${module}, which toolsmith's compatibility layer only stubs (${WHY}): it does nothing here.`,
		path,
	});
}

/**
 * Reports the first use, by each extension, of an inert value that came from the stub `stub`
 * (`use` is the expression used: `stub().member`, …).
 */
function reportUse(module: string, stub: string, use: string): void {
	const path = callingExtension() ?? "(an extension)";
	reportCompat(`inert:${module}:${stub}`, {
		severity: "warning",
		code: "W_UNSUPPORTED_API",
		message: `${path} used \`${use}\`, a value that \`${stub}\` from ${module} gave back; toolsmith's compatibility layer only stubs \`${stub}\` (${WHY}), so the value is an inert stand-in (its members and calls give more of it, it reads as "" or 0 and iterates as empty) and what depends on it does nothing here.`,
		path,
	});
}

function named<T extends object>(value: T, name: string): T {
	Object.defineProperty(value, "name", { value: name, configurable: true });
	Object.defineProperty(value, COMPAT_STUB, { value: true });
	return value;
}

/** An iterator that is done at once: `for…of`, spreading and `Array.from` see no items. */
function emptyIterator(): IterableIterator<never> {
	return [][Symbol.iterator]();
}

async function* emptyAsync(): AsyncGenerator<never> {}

/** Marks an inert value (see the module comment), so tests and the renderer can tell one. */
const INERT_VALUE: unique symbol = Symbol("toolsmith.inert-value") as never;

/**
 * An inert value standing for what `origin` (a stub, as `name()` or `name.member`) gave. It is a
 * function, so it can be called and constructed; it is never thenable (`await` gives it back).
 */
function inertValue(module: string, origin: string, stub: string): unknown {
	const children = new Map<PropertyKey, unknown>();
	const assigned = new Map<PropertyKey, unknown>();
	// A plain function (not an arrow): constructible, with the ordinary own keys only.
	const target = function inert(): void {};
	Object.defineProperty(target, "name", { value: origin, configurable: true });
	const toPrimitive = (hint: string): string | number => (hint === "number" ? 0 : "");
	const proxy: unknown = new Proxy(target, {
		get(object, key, receiver) {
			if (assigned.has(key)) return assigned.get(key);
			switch (key) {
				case INERT_VALUE:
				case COMPAT_STUB:
					return true;
				// Not thenable: `await value` must give the value back, not wait forever.
				case "then":
				case "prototype":
				case "constructor":
					return Reflect.get(object, key, receiver);
				case "name":
					return origin;
				case "length":
				case "size":
					return 0;
				case Symbol.toPrimitive:
					return toPrimitive;
				case "toString":
				case "toLocaleString":
					return () => "";
				case "valueOf":
					return () => 0;
				case "toJSON":
					return () => null;
				case Symbol.iterator:
					return emptyIterator;
				case Symbol.asyncIterator:
					return emptyAsync;
				case Symbol.toStringTag:
					return "Inert";
				// A component: draws no lines.
				case "render":
					return () => [];
			}
			if (typeof key === "symbol") return Reflect.get(object, key, receiver);
			reportUse(module, stub, `${origin}.${key}`);
			let child = children.get(key);
			if (child === undefined) {
				child = inertValue(module, `${origin}.${key}`, stub);
				children.set(key, child);
			}
			return child;
		},
		set(_object, key, value) {
			assigned.set(key, value);
			return true;
		},
		has(_object, key) {
			return assigned.has(key);
		},
		apply() {
			reportUse(module, stub, `${origin}()`);
			return inertValue(module, `${origin}()`, stub);
		},
		construct() {
			reportUse(module, stub, `new ${origin}()`);
			return inertValue(module, `new ${origin}()`, stub) as object;
		},
	});
	return proxy;
}

/** Whether `value` is an inert value a stub gave (see the module comment). */
export function isInertValue(value: unknown): boolean {
	return typeof value === "function" && (value as { [INERT_VALUE]?: boolean })[INERT_VALUE] === true;
}

function stubFunction(module: string, member: string, how = "called"): (...args: unknown[]) => unknown {
	return named(() => {
		report(module, member, how);
		return inertValue(module, `${member}()`, member);
	}, member);
}

/** Keys a stub must not answer for: they change how JavaScript treats the value (promises, JSON). */
const INERT: ReadonlySet<string> = new Set(["then", "toJSON", "prototype", "constructor", "name", "length"]);

/** Keys an instance of a stub class leaves alone, like `INERT`, plus what conversions read. */
const INSTANCE_OWN: ReadonlySet<string> = new Set([...INERT, "toString", "valueOf", "toLocaleString"]);

interface Drawable {
	render(width: number): unknown;
}

function isDrawable(value: unknown): value is Drawable {
	return typeof value === "object" && value !== null && typeof (value as { render?: unknown }).render === "function";
}

/** The plain lines of what a stub component holds: strings, components, arrays of them. */
function drawParts(parts: readonly unknown[], width: number, depth = 0): string[] {
	const lines: string[] = [];
	for (const part of parts) {
		if (typeof part === "string") {
			if (part !== "") lines.push(...part.split(/\r?\n/).map((line) => truncateToWidth(line, width)));
		} else if (Array.isArray(part) && depth < 2) {
			lines.push(...drawParts(part, width, depth + 1));
		} else if (isDrawable(part)) {
			try {
				const drawn = part.render(width);
				if (Array.isArray(drawn)) lines.push(...drawn.filter((line): line is string => typeof line === "string"));
			} catch {
				// a child that cannot draw itself draws nothing, as a stub does
			}
		}
	}
	return lines;
}

function stubClass(module: string, name: string): new (...args: unknown[]) => object {
	class Stub {
		/** The strings and components a component was given: it draws them as plain lines. */
		declare private readonly parts: unknown[];
		constructor(...args: unknown[]) {
			report(module, name, "constructed");
			// Not enumerable: spreading or serializing an instance shows none of what it was given.
			Object.defineProperty(this, "parts", {
				value: args.filter((arg) => typeof arg === "string" || Array.isArray(arg) || isDrawable(arg)),
			});
			// Members the class lacks are inert values (reported when used), never `undefined`.
			// biome-ignore lint/correctness/noConstructorReturn: the instance is wrapped so unknown members answer
			return new Proxy(this, {
				get(target, key, receiver) {
					if (typeof key !== "string" || INSTANCE_OWN.has(key) || key in target) {
						return Reflect.get(target, key, receiver);
					}
					report(module, `${name}.${key}`, "used");
					return inertValue(module, `${name}.${key}`, `${name}.${key}`);
				},
			});
		}
		/** A component draws the strings and components it holds, as plain lines. */
		render(width?: number): string[] {
			return drawParts(this.parts, Math.max(1, Math.floor(width ?? 80)));
		}
		addChild(child: unknown): void {
			this.parts.push(child);
		}
		removeChild(child: unknown): void {
			const at = this.parts.indexOf(child);
			if (at >= 0) this.parts.splice(at, 1);
		}
		clear(): void {
			this.parts.length = 0;
		}
		invalidate(): void {}
		handleInput(_data?: string): void {}
		dispose(): void {}
	}
	named(Stub, name);
	const statics = new Map<string, (...args: unknown[]) => unknown>();
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
	const members = new Map<string, unknown>();
	return new Proxy(Object.freeze(target), {
		get(object, key) {
			if (typeof key !== "string" || INERT.has(key)) return Reflect.get(object, key);
			report(module, `${name}.${key}`, "read");
			let member = members.get(key);
			if (member === undefined) {
				member = inertValue(module, `${name}.${key}`, `${name}.${key}`);
				members.set(key, member);
			}
			return member;
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

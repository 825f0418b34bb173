/** Hostile values for the tests of what turns values into text: each one breaks String(), JSON.stringify or a property read. */

export function revoked(): object {
	const { proxy, revoke } = Proxy.revocable({}, {});
	revoke();
	return proxy;
}

const throwing = (): never => {
	throw new Error("trap");
};

/** Values whose String(), JSON.stringify or property reads throw (or are otherwise awkward). */
export function hostileValues(): [string, unknown][] {
	const nullCyclic = Object.create(null) as Record<string, unknown>;
	nullCyclic.self = nullCyclic;
	const cyclic: Record<string, unknown> = {};
	cyclic.self = cyclic;
	const badMessage = new Error("x");
	Object.defineProperty(badMessage, "message", { get: throwing });
	const badMessageAndName = new Error("x");
	Object.defineProperty(badMessageAndName, "message", { get: throwing });
	Object.defineProperty(badMessageAndName, "name", { get: throwing });
	const badToString = { toString: throwing, toJSON: throwing };
	const badPrimitive = { [Symbol.toPrimitive]: throwing, toJSON: throwing };
	const trapAll = new Proxy(
		{},
		{ get: throwing, getPrototypeOf: throwing, ownKeys: throwing, has: throwing, getOwnPropertyDescriptor: throwing },
	);
	const fn = () => 1;
	Object.defineProperty(fn, "toString", { value: throwing });
	return [
		["a null-prototype object", Object.create(null)],
		["a null-prototype cyclic object", nullCyclic],
		["a cyclic object", cyclic],
		["an Error whose message getter throws", badMessage],
		["an Error whose message and name getters throw", badMessageAndName],
		["an object whose toString and toJSON throw", badToString],
		["an object whose Symbol.toPrimitive throws", badPrimitive],
		["a Proxy whose traps all throw", trapAll],
		["a revoked Proxy", revoked()],
		["a function whose toString throws", fn],
		["a symbol", Symbol("s")],
		["a BigInt", 10n],
		["undefined", undefined],
		["null", null],
		["a very long string", "x".repeat(10_000)],
	];
}

/** The object-like ones, for parameters that must be refused rather than described. */
export function hostileObjects(): [string, unknown][] {
	return hostileValues().filter(([, v]) => typeof v === "object" && v !== null);
}

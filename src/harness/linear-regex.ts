/**
 * Regular expressions written as data (replay fixtures, `{ "$regex" }` in JSON eval scenarios), run
 * by a linear-time engine (RE2, through `re2js`): a pattern such as `(a+)+$` cannot block the event
 * loop however long the text. JavaScript syntax is translated; what RE2 cannot run in linear time
 * (backreferences, lookaround) is refused with the reason, never run by the backtracking engine
 * instead. Runtime-neutral.
 */
import { RE2JS } from "re2js";
import { errorMessage } from "../contract/errors.js";

/** A compiled pattern: `test` answers in time linear in the text. */
export interface LinearPattern {
	test(text: string): boolean;
}

const FLAG_BITS: Readonly<Record<string, number>> = {
	i: RE2JS.CASE_INSENSITIVE,
	m: RE2JS.MULTILINE,
	s: RE2JS.DOTALL,
	// These change nothing for a yes/no test: RE2 always matches by code point, and a fresh
	// pattern's `test` starts at the beginning whatever `g`, `y` or `d` say.
	u: 0,
	g: 0,
	y: 0,
	d: 0,
};

/**
 * Compiles `source` with JavaScript-style `flags`. Throws an `Error` whose message says why when
 * the pattern is invalid or uses syntax the linear-time engine does not support.
 */
export function compileLinearPattern(source: string, flags = ""): LinearPattern {
	let bits = 0;
	for (const flag of flags) {
		const bit = FLAG_BITS[flag];
		if (bit === undefined) throw new Error(`unsupported flag ${JSON.stringify(flag)} (use i, m, s, u, g, y or d)`);
		bits |= bit;
	}
	let compiled: RE2JS;
	try {
		compiled = RE2JS.compile(RE2JS.translateRegExp(source), bits);
	} catch (error) {
		throw new Error(
			`${errorMessage(error).replace(/^error parsing regexp: /, "")}; these patterns run on a linear-time engine (RE2 syntax: no backreferences or lookaround)`,
		);
	}
	return { test: (text) => compiled.test(text) };
}

import { describe, expect, it } from "vitest";
import { schemaTypeLabel, summarizeParameters } from "../../../src/cli/_format.js";
import { shouldUseColor } from "../../../src/command/node-io.js";
import { StringEnum, Type } from "../../../src/contract/schema.js";
import { displayPath, formatDiagnostic } from "../../../src/extensions/node-event-lines.js";
import { plainTheme } from "../../../src/render/theme.js";

describe("parameter summaries", () => {
	it("names each property with ? for optional ones and a short type", () => {
		const schema = Type.Object({
			path: Type.String(),
			offset: Type.Optional(Type.Integer()),
			mode: StringEnum(["a", "b"]),
			tags: Type.Array(Type.String()),
			either: Type.Union([Type.String(), Type.Number()]),
			many: Type.Array(Type.Union([Type.String(), Type.Null()])),
			fixed: Type.Literal("x"),
			nested: Type.Object({ a: Type.String() }),
		});
		expect(summarizeParameters(schema)).toBe(
			'path: string, offset?: integer, mode: a|b, tags: string[], either: string|number, many: (string|null)[], fixed: "x", nested: object',
		);
		expect(summarizeParameters(Type.Object({}))).toBe("(none)");
		expect(summarizeParameters({ type: "string" })).toBe("(none)");
		expect(schemaTypeLabel({ enum: [1, 2, 3, 4, 5, 6, 7] })).toBe("1|2|3|4|5|…");
		expect(schemaTypeLabel({})).toBe("any");
		// Values a schema may hold that JSON cannot (BigInt literals) are named, not thrown on.
		expect(schemaTypeLabel({ const: 5n })).toBe("5");
		expect(schemaTypeLabel({ enum: [1n, "a"] })).toBe("1|a");
		expect(schemaTypeLabel({ const: "x" })).toBe('"x"');
	});
});

describe("paths and diagnostics", () => {
	it("shows paths relative to the folder when inside it, absolute otherwise", () => {
		expect(displayPath("/w/p/a.ts", "/w/p")).toBe("a.ts");
		expect(displayPath("/w/p", "/w/p")).toBe(".");
		expect(displayPath("/w/other/a.ts", "/w/p")).toBe("/w/other/a.ts");
		expect(displayPath("/w/p..x/a.ts", "/w/p")).toBe("/w/p..x/a.ts");
		expect(displayPath("rel.ts", "/w/p")).toBe("rel.ts");
	});

	it("formats severity, file:line:col, message and code", () => {
		const d = { severity: "error", message: "bad", path: "/w/a.ts", line: 3, column: 7, code: "E_SYNTAX" } as const;
		expect(formatDiagnostic(d, "/w", plainTheme)).toBe("error a.ts:3:7 bad [E_SYNTAX]");
		expect(formatDiagnostic({ severity: "info", message: "note", path: "/w/a.ts", line: 2 }, "/w", plainTheme)).toBe(
			"info a.ts:2 note",
		);
		expect(formatDiagnostic({ severity: "warning", message: "loose" }, "/w", plainTheme)).toBe("warning loose");
	});

	it("says the place once when the message starts with it (a syntax error's does)", () => {
		const where = { severity: "error", path: "/w/a.ts", line: 3, column: 7, code: "E_SYNTAX" } as const;
		const d = { ...where, message: "/w/a.ts:3:7 does not parse: Unexpected token." };
		expect(formatDiagnostic(d, "/w", plainTheme)).toBe("error a.ts:3:7 does not parse: Unexpected token. [E_SYNTAX]");
		// Another place at the start (an imported module's) stays: it is not the one the line gives.
		const other = { ...where, message: "/w/lib.ts:1:1 does not parse: x." };
		expect(formatDiagnostic(other, "/w", plainTheme)).toBe(
			"error a.ts:3:7 /w/lib.ts:1:1 does not parse: x. [E_SYNTAX]",
		);
		// A message naming the file without the position is left alone.
		const plain = { ...where, message: "/w/a.ts threw while its module was evaluated." };
		expect(formatDiagnostic(plain, "/w", plainTheme)).toBe(
			"error a.ts:3:7 /w/a.ts threw while its module was evaluated. [E_SYNTAX]",
		);
	});
});

describe("shouldUseColor", () => {
	const tty = { write: () => true, isTTY: true };
	const pipe = { write: () => true, isTTY: false };
	it("colors terminals unless NO_COLOR or TERM=dumb; FORCE_COLOR decides when set", () => {
		expect(shouldUseColor(tty, {})).toBe(true);
		expect(shouldUseColor(pipe, {})).toBe(false);
		expect(shouldUseColor(tty, { NO_COLOR: "1" })).toBe(false);
		expect(shouldUseColor(tty, { NO_COLOR: "" })).toBe(true);
		expect(shouldUseColor(tty, { TERM: "dumb" })).toBe(false);
		expect(shouldUseColor(pipe, { FORCE_COLOR: "1" })).toBe(true);
		expect(shouldUseColor(pipe, { FORCE_COLOR: "" })).toBe(true);
		expect(shouldUseColor(tty, { FORCE_COLOR: "0" })).toBe(false);
		expect(shouldUseColor(tty, { FORCE_COLOR: "false", NO_COLOR: "" })).toBe(false);
		expect(shouldUseColor(pipe, { FORCE_COLOR: "3", NO_COLOR: "1" })).toBe(true);
	});
});

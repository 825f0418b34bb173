/**
 * The inspector page's form model (src/inspector/page/form.ts) on real TypeBox schemas as the
 * server sends them (JSON): which field each schema becomes, what the fields send, and the way back
 * from arguments to fields for the raw-JSON toggle.
 */
import { type TSchema, Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { StringEnum } from "../../../src/index.js";
import {
	addItem,
	type FieldSpec,
	type FieldValue,
	fieldPointers,
	fieldSpec,
	formArgs,
	fromArgs,
	initialValue,
	newForm,
	parseNumber,
	parsePointer,
	placeProblems,
	reconcileForm,
	removeItem,
	setChecked,
	setEnumIndex,
	setIncluded,
	setRawText,
	setText,
	toArgs,
	toggleRaw,
	toPointer,
} from "../../../src/inspector/page/form.js";
import type { Json } from "../../../src/inspector/protocol.js";

/** A schema as it crosses the wire. */
function wire(schema: TSchema): Json {
	return JSON.parse(JSON.stringify(schema)) as Json;
}

function specOf(schema: TSchema): FieldSpec {
	return fieldSpec(wire(schema));
}

function object(spec: FieldSpec) {
	if (spec.kind !== "object") throw new Error(`expected an object field, got ${spec.kind}`);
	return spec;
}

const hello = Type.Object({
	name: Type.String({ description: "Who to greet" }),
	excited: Type.Optional(Type.Boolean({ description: "End with an exclamation mark" })),
});

const countdown = Type.Object({
	from: Type.Integer({ minimum: 1, maximum: 100, description: "Where to start counting" }),
	intervalMs: Type.Optional(
		Type.Integer({ minimum: 0, maximum: 5000, description: "Pause between steps (default 200)" }),
	),
});

const rich = Type.Object({
	mode: StringEnum(["fast", "slow"] as const, { default: "slow" }),
	level: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)]),
	kind: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])),
	items: Type.Array(Type.String()),
	opts: Type.Optional(
		Type.Object({
			depth: Type.Optional(Type.Number({ default: 2 })),
			tags: Type.Array(Type.Object({ key: Type.String(), on: Type.Boolean() })),
		}),
	),
	meta: Type.Record(Type.String(), Type.Number()),
	maybe: Type.Optional(Type.Union([Type.String(), Type.Null()])),
	"a/b~c": Type.Optional(Type.String()),
});

describe("fieldSpec", () => {
	it("reads the demo tools: strings, integers, booleans, required and optional, descriptions", () => {
		const spec = object(specOf(hello));
		expect(spec.properties.map((p) => [p.key, p.spec.kind, p.required, p.spec.description])).toEqual([
			["name", "string", true, "Who to greet"],
			["excited", "boolean", false, "End with an exclamation mark"],
		]);
		const counter = object(specOf(countdown));
		expect(counter.properties.map((p) => [p.key, p.spec.kind, p.required, p.spec.hint])).toEqual([
			["from", "integer", true, "integer, 1–100"],
			["intervalMs", "integer", false, "integer, 0–5000"],
		]);
	});

	it("detects enums: StringEnum's enum array and unions of literals (anyOf of const)", () => {
		const spec = object(specOf(rich));
		const by = (key: string) => spec.properties.find((p) => p.key === key)!.spec;
		expect(by("mode")).toMatchObject({ kind: "enum", options: ["fast", "slow"], hasDefault: true, default: "slow" });
		expect(by("level")).toMatchObject({ kind: "enum", options: [1, 2, 3] });
		expect(by("kind")).toMatchObject({ kind: "enum", options: ["a", "b"] });
		expect(fieldSpec(wire(Type.Literal("only")))).toMatchObject({ kind: "enum", options: ["only"] });
		expect(fieldSpec({ oneOf: [{ const: "x" }, { const: "y" }] })).toMatchObject({ kind: "enum", options: ["x", "y"] });
	});

	it("nests arrays and objects, and falls back to a JSON field for anything else", () => {
		const spec = object(specOf(rich));
		const by = (key: string) => spec.properties.find((p) => p.key === key)!.spec;
		expect(by("items")).toMatchObject({ kind: "array", items: { kind: "string" }, hint: "array of string" });
		const opts = object(by("opts"));
		expect(opts.properties.map((p) => [p.key, p.spec.kind, p.required])).toEqual([
			["depth", "number", false],
			["tags", "array", true],
		]);
		expect(by("meta").kind).toBe("json");
		expect(by("maybe")).toMatchObject({ kind: "json", hint: "JSON: anyOf" });
		expect(fieldSpec(wire(Type.Any())).kind).toBe("json");
		expect(fieldSpec(wire(Type.Tuple([Type.String(), Type.Number()]))).kind).toBe("json");
		expect(fieldSpec({ type: ["string", "null"] })).toMatchObject({ kind: "json", hint: "JSON: string or null" });
		expect(fieldSpec(true).kind).toBe("json");
	});

	it("turns schemas nested without end into JSON fields instead of recursing forever", () => {
		let schema: Json = { type: "string" };
		for (let depth = 0; depth < 40; depth++) schema = { type: "object", properties: { inner: schema } };
		let spec = fieldSpec(schema);
		let depth = 0;
		while (spec.kind === "object") {
			spec = spec.properties[0]!.spec;
			depth++;
		}
		expect(spec.kind).toBe("json");
		expect(depth).toBeLessThan(20);
	});
});

describe("initialValue and toArgs", () => {
	it("starts with required fields empty and optional ones left out, so the validator names what is missing", () => {
		const spec = specOf(hello);
		expect(toArgs(spec, initialValue(spec))).toEqual({ name: "" });
		const counter = specOf(countdown);
		// An empty number field sends nothing at all (not "", not 0).
		expect(toArgs(counter, initialValue(counter))).toEqual({});
	});

	it("fills in defaults; an optional field with a default is prefilled but still left out until included", () => {
		const spec = specOf(rich);
		let value = initialValue(spec);
		// `meta` is a JSON field (a record): empty, it sends nothing, like an empty number field.
		expect(toArgs(spec, value)).toEqual({ mode: "slow", items: [] });
		value = setIncluded(spec, value, "/opts", true);
		expect(toArgs(spec, value)).toEqual({ mode: "slow", items: [], opts: { tags: [] } });
		value = setIncluded(spec, value, "/opts/depth", true);
		expect(toArgs(spec, value)).toMatchObject({ opts: { depth: 2, tags: [] } });
	});

	it("keeps omitted and empty apart: an included optional string sends an empty string", () => {
		const spec = specOf(Type.Object({ note: Type.Optional(Type.String()) }));
		let value = initialValue(spec);
		expect(toArgs(spec, value)).toEqual({});
		value = setIncluded(spec, value, "/note", true);
		expect(toArgs(spec, value)).toEqual({ note: "" });
		value = setIncluded(spec, value, "/note", false);
		expect(toArgs(spec, value)).toEqual({});
	});

	it("parses numbers, and sends text that is not a number as typed for the validator to report", () => {
		const spec = specOf(countdown);
		const typed = (text: string) => toArgs(spec, setText(spec, initialValue(spec), "/from", text));
		expect(typed("5")).toEqual({ from: 5 });
		expect(typed(" -2.5e3 ")).toEqual({ from: -2500 });
		expect(typed("5x")).toEqual({ from: "5x" });
		expect(typed("Infinity")).toEqual({ from: "Infinity" });
		expect(typed("1.5")).toEqual({ from: 1.5 });
		expect(typed("   ")).toEqual({});
		expect(parseNumber("0x10")).toBeUndefined();
		expect(parseNumber(".5")).toBe(0.5);
		expect(parseNumber("1e999")).toBeUndefined();
	});

	it("includes an optional field as soon as it is edited, so typed input is never left out silently", () => {
		const spec = specOf(countdown);
		const value = setText(spec, initialValue(spec), "/intervalMs", "50");
		expect(toArgs(spec, value)).toEqual({ intervalMs: 50 });
		const greet = specOf(hello);
		expect(toArgs(greet, setChecked(greet, initialValue(greet), "/excited", true))).toEqual({
			name: "",
			excited: true,
		});
		expect(toArgs(greet, setChecked(greet, initialValue(greet), "/excited", false))).toEqual({
			name: "",
			excited: false,
		});
	});

	it("chooses enum options by index; none chosen sends nothing", () => {
		const spec = specOf(rich);
		let value = initialValue(spec);
		expect(toArgs(spec, value)).not.toHaveProperty("level");
		value = setEnumIndex(spec, value, "/level", 2);
		value = setEnumIndex(spec, value, "/mode", 0);
		expect(toArgs(spec, value)).toMatchObject({ level: 3, mode: "fast" });
		value = setEnumIndex(spec, value, "/kind", 1);
		expect(toArgs(spec, value)).toMatchObject({ kind: "b" });
	});

	it("adds and removes array items, nested objects included, addressed by JSON pointer", () => {
		const spec = specOf(rich);
		let value = initialValue(spec);
		value = addItem(spec, value, "/items");
		value = addItem(spec, value, "/items");
		value = setText(spec, value, "/items/0", "a");
		value = setText(spec, value, "/items/1", "b");
		expect(toArgs(spec, value)).toMatchObject({ items: ["a", "b"] });
		value = removeItem(spec, value, "/items/0");
		expect(toArgs(spec, value)).toMatchObject({ items: ["b"] });
		// Adding to an array inside an optional object includes that object.
		value = addItem(spec, value, "/opts/tags");
		value = setText(spec, value, "/opts/tags/0/key", "k");
		value = setChecked(spec, value, "/opts/tags/0/on", true);
		expect(toArgs(spec, value)).toMatchObject({ opts: { tags: [{ key: "k", on: true }] } });
		expect(fieldPointers(spec, value)).toEqual(
			expect.arrayContaining(["/items/0", "/opts/depth", "/opts/tags/0", "/opts/tags/0/key", "/opts/tags/0/on"]),
		);
		// Paths that lead nowhere change nothing.
		expect(setText(spec, value, "/nope/0", "x")).toEqual(value);
		expect(removeItem(spec, value, "/items/9")).toEqual(value);
	});

	it("never drops an array item: an empty number item sends the empty text, an item of an enum starts on its first option", () => {
		const spec = specOf(
			Type.Object({ n: Type.Array(Type.Number()), e: Type.Array(StringEnum(["x", "y"])), j: Type.Array(Type.Any()) }),
		);
		let value = initialValue(spec);
		for (const pointer of ["/n", "/e", "/j"]) value = addItem(spec, value, pointer);
		expect(toArgs(spec, value)).toEqual({ n: [""], e: ["x"], j: [""] });
	});

	it("prefills an array's minItems", () => {
		const spec = specOf(Type.Object({ pair: Type.Array(Type.Integer(), { minItems: 2 }) }));
		expect(toArgs(spec, initialValue(spec))).toEqual({ pair: ["", ""] });
	});

	it("reads JSON fields as JSON, and text that is not JSON as a string", () => {
		const spec = specOf(rich);
		const typed = (text: string) => toArgs(spec, setText(spec, initialValue(spec), "/meta", text));
		expect(typed('{"a": 1}')).toMatchObject({ meta: { a: 1 } });
		expect(typed("{a: 1")).toMatchObject({ meta: "{a: 1" });
		expect(typed("")).not.toHaveProperty("meta");
	});

	it("escapes property names in pointers", () => {
		const spec = specOf(rich);
		expect(fieldPointers(spec, initialValue(spec))).toContain("/a~1b~0c");
		expect(toArgs(spec, setText(spec, initialValue(spec), "/a~1b~0c", "v"))).toMatchObject({ "a/b~c": "v" });
		expect(parsePointer("/a~1b~0c/0")).toEqual(["a/b~c", "0"]);
		expect(toPointer(["a/b~c", "0"])).toBe("/a~1b~0c/0");
		expect(parsePointer("")).toEqual([]);
	});
});

describe("fromArgs", () => {
	const roundTrips: [string, TSchema, Json][] = [
		["hello", hello, { name: "Ada", excited: true }],
		["hello without the option", hello, { name: "" }],
		["countdown", countdown, { from: 3, intervalMs: 0 }],
		["a number left out", countdown, {}],
		["text in a number field", countdown, { from: "abc" }],
		[
			"everything",
			rich,
			{
				mode: "fast",
				level: 2,
				kind: "a",
				items: ["x", "y"],
				opts: { depth: 1.5, tags: [{ key: "k", on: false }] },
				meta: { a: 1 },
				maybe: null,
				"a/b~c": "",
			},
		],
		["JSON strings", rich, { mode: "slow", items: [], meta: "not an object" }],
	];

	for (const [name, schema, args] of roundTrips) {
		it(`gives fields that send the same arguments back: ${name}`, () => {
			const spec = specOf(schema);
			const result = fromArgs(spec, args);
			expect(result).toMatchObject({ ok: true });
			if (result.ok) expect(toArgs(spec, result.value)).toEqual(args);
		});
	}

	it("says why it cannot, naming the field", () => {
		const spec = specOf(rich);
		const error = (args: Json) => {
			const result = fromArgs(spec, args);
			return result.ok ? "ok" : result.error;
		};
		const base = { mode: "slow", items: [], meta: {} };
		expect(error({ ...base, mode: "medium" })).toBe('/mode: "medium" is not one of the choices');
		expect(error({ ...base, items: "x" })).toBe('/items: "x" is not an array');
		expect(error({ ...base, items: [1] })).toBe("/items/0: 1 is not a string");
		expect(error({ ...base, extra: 1 })).toBe(
			"/extra: the schema has no such property, so the form has no field for it",
		);
		expect(error({ ...base, opts: { tags: [{ key: "k", on: "yes" }] } })).toBe(
			'/opts/tags/0/on: "yes" is not true or false',
		);
		expect(error({ mode: "slow", meta: {} })).toBe("/items: missing, and the form always sends a array here");
		expect(error([])).toBe("(arguments): [] is not an object");
		const counter = specOf(countdown);
		const counterError = (args: Json) => {
			const result = fromArgs(counter, args);
			return result.ok ? "ok" : result.error;
		};
		// "5" would come back as the number 5, and "" as nothing: neither round-trips.
		expect(counterError({ from: "5" })).toBe('/from: the string "5" would be sent as a number');
		expect(counterError({ from: "" })).toBe('/from: an empty integer field sends nothing, not ""');
		expect(counterError({ from: true })).toBe("/from: true is not a number");
	});
});

describe("forms: raw JSON and reloads", () => {
	it("switches to raw JSON and back, keeping the arguments", () => {
		let form = newForm(wire(hello));
		form = { ...form, value: setText(form.spec, form.value, "/name", "Ada") };
		form = toggleRaw(form);
		expect(form.raw).toBe(true);
		expect(JSON.parse(form.rawText)).toEqual({ name: "Ada" });
		form = setRawText(form, '{"name": "Grace", "excited": true}');
		expect(formArgs(form)).toEqual({ ok: true, args: { name: "Grace", excited: true } });
		form = toggleRaw(form);
		expect(form.raw).toBe(false);
		expect(formArgs(form)).toEqual({ ok: true, args: { name: "Grace", excited: true } });
	});

	it("stays in raw mode and says why when the JSON does not parse or does not fit the fields", () => {
		let form = toggleRaw(newForm(wire(hello)));
		form = toggleRaw(setRawText(form, "{oops"));
		expect(form.raw).toBe(true);
		expect(form.note).toMatch(/^The JSON does not parse: /);
		expect(formArgs(form).ok).toBe(false);
		form = toggleRaw(setRawText(form, '{"name": 42}'));
		expect(form.raw).toBe(true);
		expect(form.note).toBe("The fields cannot hold these arguments: /name: 42 is not a string.");
		expect(formArgs(form)).toEqual({ ok: true, args: { name: 42 } });
		form = setRawText(form, '{"name": "x"}');
		expect(form.note).toBeUndefined();
	});

	it("keeps the form as it is when a reload leaves the schema alone", () => {
		let form = newForm(wire(hello));
		form = { ...form, value: setText(form.spec, form.value, "/name", "Ada") };
		expect(reconcileForm(form, wire(hello))).toBe(form);
	});

	it("carries the arguments into a changed schema, or keeps them as JSON with a note", () => {
		let form = newForm(wire(countdown));
		form = { ...form, value: setText(form.spec, form.value, "/from", "7") };
		const widened = Type.Object({ from: Type.Integer(), label: Type.Optional(Type.String()) });
		const carried = reconcileForm(form, wire(widened));
		expect(carried.raw).toBe(false);
		expect(formArgs(carried)).toEqual({ ok: true, args: { from: 7 } });
		const renamed = Type.Object({ start: Type.Integer() });
		const kept = reconcileForm(form, wire(renamed));
		expect(kept.raw).toBe(true);
		expect(formArgs(kept)).toEqual({ ok: true, args: { from: 7 } });
		expect(kept.note).toContain("/from: the schema has no such property");
	});
});

describe("placeProblems", () => {
	it("puts each problem under the deepest field on its path; the rest are general", () => {
		const spec = specOf(rich);
		let value: FieldValue = initialValue(spec);
		value = addItem(spec, value, "/items");
		const placed = placeProblems(fieldPointers(spec, value), [
			{ path: "/mode", message: "/mode: bad" },
			{ path: "/items/0", message: "/items/0: bad" },
			{ path: "/meta/x", message: "/meta/x: bad" },
			{ path: "", message: "(arguments): bad" },
			{ path: "/unknown", message: "/unknown: bad" },
			{ path: "/modes", message: "/modes: not under /mode" },
		]);
		expect([...placed.byField.keys()]).toEqual(["/mode", "/items/0", "/meta"]);
		expect(placed.general.map((problem) => problem.path)).toEqual(["", "/unknown", "/modes"]);
	});
});

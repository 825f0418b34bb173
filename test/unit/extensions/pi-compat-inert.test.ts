/**
 * What a stub gives back is never `undefined`: an inert value that survives whatever code does with
 * it next (member chains, calls, `new`, conversions, iteration, spreading, `await`, JSON, boolean
 * checks) and reports once, naming the stub it came from. Stub classes' instances answer members
 * they lack the same way, and stub components draw plain lines.
 */
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { isInertValue } from "../../../src/extensions/node-compat/_stubs.js";
import { setCompatReporter, VIRTUAL_MODULES } from "../../../src/extensions/node-compat/index.js";

const reported: ExtensionDiagnostic[] = [];
beforeAll(() => setCompatReporter((d) => reported.push(d)));
afterAll(() => setCompatReporter(() => {}));
beforeEach(() => {
	reported.length = 0;
});

type Member =
	| "a"
	| "b"
	| "c"
	| "d"
	| "data"
	| "encode"
	| "slice"
	| "trim"
	| "width"
	| "toFixed"
	| "Thing"
	| "items"
	| "custom"
	| "foo"
	| "getEntries"
	| "filter"
	| "getText"
	| "split"
	| "onSubmit";
/** What an inert value looks like to code that does not know it is one. */
type Anything = { (...args: unknown[]): Anything; new (...args: unknown[]): Anything } & {
	[key in Member]: Anything;
};

const agent = VIRTUAL_MODULES["@earendil-works/pi-coding-agent"] as Record<string, unknown>;
const tui = VIRTUAL_MODULES["@earendil-works/pi-tui"] as Record<string, unknown>;

/** A fresh inert value from a stub function (each stub reports once per extension, so use new ones). */
function inertFrom(stub: string): Anything {
	return (agent[stub] as (...args: unknown[]) => Anything)("/tmp/x.png", { maxWidth: 10 });
}

describe("the value a stub function returns", () => {
	it("is not undefined, and is marked inert", () => {
		const value = inertFrom("resizeImage");
		expect(value).not.toBeUndefined();
		expect(isInertValue(value)).toBe(true);
	});

	it("survives every ordinary use without throwing", async () => {
		const v = inertFrom("convertToPng");
		const uses: Record<string, () => unknown> = {
			"member chain": () => v.a.b.c.d,
			"deep call chain": () => v.data.encode("base64").slice(0, 10).trim(),
			"method call": () => v.width.toFixed(2),
			call: () => v(1, 2),
			"new of it": () => new v(),
			"new of a member": () => new v.Thing("x"),
			"optional chaining": () => v?.a?.b?.(),
			"template string": () => `${v}`,
			"string concatenation": () => `a${v}b`,
			"String()": () => String(v),
			"Number()": () => Number(v),
			arithmetic: () => (v as unknown as number) * 2 + 1,
			comparison: () => (v as unknown as number) > 3,
			"for…of": () => {
				let n = 0;
				for (const _ of v as unknown as Iterable<unknown>) n++;
				return n;
			},
			"array spread": () => [...(v as unknown as Iterable<unknown>)],
			"Array.from": () => Array.from(v as unknown as Iterable<unknown>),
			destructuring: () => {
				const [first] = v as unknown as unknown[];
				const { width } = v as unknown as { width: unknown };
				return [first, width];
			},
			"object spread": () => ({ ...v }),
			"Object.keys": () => Object.keys(v),
			"Object.entries": () => Object.entries(v),
			"JSON.stringify": () => JSON.stringify(v),
			"JSON.stringify inside an object": () => JSON.stringify({ image: v }),
			"boolean check": () => ((v as unknown) ? "yes" : "no"),
			negation: () => !v,
			"in operator": () => "width" in v,
			typeof: () => typeof v,
			"instanceof a class": () => v instanceof Error,
			"assignment and read back": () => {
				v.custom = 5 as never;
				return v.custom;
			},
			"delete a member": () => delete (v as unknown as { foo?: unknown }).foo,
			"length of it": () => (v as unknown as unknown[]).length,
			"map over a member": () => (v.items as unknown as unknown[]).length,
			"array methods on it through Array.prototype": () => Array.prototype.map.call(v, (x: unknown) => x),
			"Object.assign from it": () => Object.assign({}, v),
			"structuredClone-like copy via JSON": () => JSON.parse(JSON.stringify({ v }) ?? "{}"),
			"console-style inspection": () => inspect(v),
			"Promise.resolve": () => Promise.resolve(v),
			"extend it as a class": () => {
				class Sub extends (v as unknown as new () => object) {}
				return new Sub();
			},
			render: () => (v as unknown as { render(w: number): unknown }).render(40),
		};
		const failures: string[] = [];
		for (const [name, use] of Object.entries(uses)) {
			try {
				use();
			} catch (error) {
				failures.push(`${name}: ${(error as Error).message}`);
			}
		}
		expect(failures).toEqual([]);
	});

	it("gives plain, empty answers to conversions", () => {
		const v = inertFrom("generateDiffString");
		expect([`${v}`, String(v), Number(v), JSON.stringify(v), JSON.stringify({ a: v, b: 1 })]).toEqual([
			"",
			"",
			0,
			"null",
			'{"a":null,"b":1}',
		]);
		expect([[...(v as unknown as Iterable<unknown>)], Object.keys({ ...v }), v.length, "x" in v]).toEqual([
			[],
			[],
			0,
			false,
		]);
		expect((v as unknown as { render(w: number): unknown }).render(10)).toEqual([]);
	});

	it("is not thenable: awaiting it gives it back at once", async () => {
		const v = inertFrom("generateUnifiedPatch");
		expect((v as unknown as { then?: unknown }).then).toBeUndefined();
		const awaited = await Promise.race([
			(async () => await v)(),
			new Promise((resolve) => setTimeout(() => resolve("timed out"), 500)),
		]);
		expect(awaited).toBe(v);
	});

	it("iterates as empty asynchronously too", async () => {
		const v = inertFrom("formatReadLineRange");
		const seen: unknown[] = [];
		for await (const item of v as unknown as AsyncIterable<unknown>) seen.push(item);
		expect(seen).toEqual([]);
	});

	it("reports once per extension, naming the stub it came from and the use", () => {
		const v = inertFrom("copyToClipboard");
		void v.a.b.c;
		void v.width;
		v();
		const notes = reported.filter((d) => d.message.includes("a value that `copyToClipboard` from pi-coding-agent"));
		expect(notes).toHaveLength(1);
		expect(notes[0]?.code).toBe("W_UNSUPPORTED_API");
		expect(notes[0]?.message).toContain("`copyToClipboard().a`");
		// and the call of the stub itself is reported apart
		expect(reported.some((d) => d.message.includes("called `copyToClipboard`"))).toBe(true);
	});

	it("members of a stubbed object and static members of a stub class give inert values too", () => {
		const SessionManager = agent.SessionManager as { inMemory(): Anything };
		const session = SessionManager.inMemory();
		expect(isInertValue(session)).toBe(true);
		expect(() => session.getEntries().filter(() => true)).not.toThrow();
	});
});

describe("stub classes", () => {
	it("answer members they lack with inert values, and report them", () => {
		const Editor = tui.Editor as new (...args: unknown[]) => Anything;
		const editor = new Editor({}, {});
		expect(() => editor.getText().trim().split("\n")).not.toThrow();
		expect(`${editor.getText()}`).toBe("");
		expect(isInertValue(editor.onSubmit)).toBe(true);
		expect(reported.some((d) => d.message.includes("`Editor.getText`"))).toBe(true);
		// not thenable either
		expect((editor as unknown as { then?: unknown }).then).toBeUndefined();
	});

	it("keep what a subclass defines, and draw the strings and components they hold as plain lines", () => {
		const Loader = tui.Loader as new (...args: unknown[]) => { render(width: number): string[] };
		const HStack = tui.HStack as new (
			...args: unknown[]
		) => {
			render(width: number): string[];
			addChild(child: unknown): void;
		};
		const Text = tui.Text as new (text: string, x?: number, y?: number) => { render(width: number): string[] };
		class Busy extends Loader {
			label = "busy";
			describe(): string {
				return this.label;
			}
		}
		const busy = new Busy(
			{},
			() => "",
			() => "",
			"Loading models…",
		);
		expect(busy.describe()).toBe("busy");
		expect(busy.render(40)).toEqual(["Loading models…"]);
		const stack = new HStack([new Text("left", 0, 0)]);
		stack.addChild("right\nside");
		expect(stack.render(40)).toEqual(["left", "right", "side"]);
		// What it was given stays out of spreading and JSON (pi's TUI object is circular).
		const tuiObject: Record<string, unknown> = { render: () => [] };
		tuiObject.self = tuiObject;
		const loader = new Loader(
			tuiObject,
			() => "",
			() => "",
			"Loading",
		);
		expect([JSON.stringify(loader), Object.keys({ ...loader })]).toEqual(["{}", []]);
		expect(
			new Loader(
				{},
				() => "",
				() => "",
				"a long message here",
			).render(6),
		).toEqual([expect.stringMatching(/^a lon/)]);
	});
});

/**
 * `createExtensionHost().execute` never rejects, whatever an extension's tool throws or returns,
 * and what it resolves with always serializes: results JSON cannot hold (from the tool or from a
 * `tool_result` handler) are `E_BAD_RESULT`. Real extension files in a temp folder.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createExtensionHost, type ExtensionHost } from "../../../src/extensions/node-host.js";
import { call, tempDir, write } from "./_helpers.js";

let dir: string;
let cleanup: () => void;
let host: ExtensionHost | undefined;

beforeEach(() => {
	({ dir, cleanup } = tempDir("bad-result"));
});

afterEach(async () => {
	await host?.close();
	host = undefined;
	cleanup();
});

/** Tools returning (or throwing) `body`'s value, named by the keys of `bodies`. */
function extension(bodies: Record<string, string>, extra = ""): string {
	const tools = Object.entries(bodies)
		.map(
			([name, body]) => `	api.registerTool({
		name: ${JSON.stringify(name)}, label: ${JSON.stringify(name)}, description: "Misbehaves.",
		parameters: { type: "object", properties: {} },
		async execute() { ${body} },
	});`,
		)
		.join("\n");
	return `export default function (api) {\n${tools}\n${extra}\n}\n`;
}

const BODIES: Record<string, string> = {
	cyclic: `const d = {}; d.self = d; return { content: [{ type: "text", text: "x" }], details: d };`,
	bigint: `return { content: [{ type: "text", text: "x" }], details: { n: 1n } };`,
	getter: `return { content: [{ type: "text", text: "x" }], get details() { throw new Error("details getter"); } };`,
	deep: `let d = {}; const root = d; for (let i = 0; i < 2000; i++) { d.a = {}; d = d.a; } return { content: [{ type: "text", text: "x" }], details: root };`,
	throwsCyclic: `const o = Object.create(null); o.self = o; throw o;`,
	throwsProxy: `throw new Proxy({}, { get() { throw new Error("trap"); }, getPrototypeOf() { throw new Error("trap"); } });`,
	returnsProxy: `return new Proxy({}, { get() { throw new Error("trap"); } });`,
	good: `return { content: [{ type: "text", text: "fine" }], details: {} };`,
};

describe("host execute with misbehaving tools", () => {
	for (const toolExecution of ["parallel", "sequential"] as const) {
		it(`resolves with a serializable result for every call, ${toolExecution}`, async () => {
			const file = join(dir, "bad.ts");
			write(file, extension(BODIES));
			host = createExtensionHost({ paths: [file], cwd: dir, builtins: false });
			await host.ready;
			const names = Object.keys(BODIES);
			const { results } = await host.execute(
				names.map((name) => call(name)),
				{ toolExecution },
			);
			expect(() => JSON.stringify(results)).not.toThrow();
			const codes = results.map((r) => (r.details as { code?: string } | undefined)?.code);
			expect(codes).toEqual([
				"E_BAD_RESULT",
				"E_BAD_RESULT",
				"E_BAD_RESULT",
				"E_BAD_RESULT",
				"E_TOOL_FAILED",
				"E_TOOL_FAILED",
				// Resolving an async function's promise with it reads its `then`: the trap throws there.
				"E_TOOL_FAILED",
				undefined,
			]);
			expect(results.at(-1)?.content).toEqual([{ type: "text", text: "fine" }]);
		});
	}

	it("turns a tool_result handler's cyclic details into E_BAD_RESULT, the other calls unaffected", async () => {
		const file = join(dir, "patch.ts");
		write(
			file,
			extension(
				{ patched: BODIES.good as string, good: BODIES.good as string },
				`	api.on("tool_result", (e) => {
		if (e.toolName !== "patched") return undefined;
		const d = { list: [] }; d.list.push(d);
		return { details: d };
	});`,
			),
		);
		host = createExtensionHost({ paths: [file], cwd: dir, builtins: false });
		await host.ready;
		const { results } = await host.execute([call("patched"), call("good")]);
		expect(() => JSON.stringify(results)).not.toThrow();
		expect(results[0]?.details).toMatchObject({ code: "E_BAD_RESULT" });
		const text = results[0]?.content.map((c) => (c.type === "text" ? c.text : "")).join("");
		expect(text).toMatch(/details is cyclic \(details\.list\[0\] refers back to it\)/);
		expect(results[1]?.content).toEqual([{ type: "text", text: "fine" }]);
	});
});

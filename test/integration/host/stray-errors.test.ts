/**
 * `catchStrayErrors`: a host that owns its process keeps running through an extension's throw in
 * a timer or an unhandled rejection. The host runs in a child process, since the point is what
 * happens to a whole process (and vitest reports any stray error of its own).
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { attributeStack, strayErrorDiagnostic } from "../../../src/extensions/_node-error-guard.js";
import { tempDir, write } from "./_helpers.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const jitiCli = join(dirname(createRequire(import.meta.url).resolve("jiti/package.json")), "lib", "jiti-cli.mjs");

let dir: string;
let cleanup: () => void;
beforeEach(() => {
	({ dir, cleanup } = tempDir("stray"));
});
afterEach(() => cleanup());

/** Runs a host over `stray.ts` in a child; it prints one JSON line of what it saw. */
function runHost(catchStrayErrors: boolean): {
	status: number | null;
	report?: Record<string, unknown>;
	stderr: string;
} {
	write(join(dir, "later.ts"), "export const later = (f: () => void) => setTimeout(f, 5);\n");
	write(
		join(dir, "stray.ts"),
		`import { later } from "./later.ts";
export default function (api) {
	api.registerTool({
		name: "stray", label: "stray", description: "Leaves errors behind.",
		parameters: { type: "object", properties: {} },
		async execute() {
			later(() => { throw new Error("timer went off"); });
			Promise.reject(new Error("nobody caught me"));
			return { content: [{ type: "text", text: "done" }], details: {} };
		},
	});
}
`,
	);
	const script = join(dir, "host.ts");
	write(
		script,
		`import { createExtensionHost } from ${JSON.stringify(join(root, "src/extensions/node-host.ts"))};
const before = [process.listenerCount("uncaughtException"), process.listenerCount("unhandledRejection")];
const diagnostics = [];
const host = createExtensionHost({ paths: [${JSON.stringify(join(dir, "stray.ts"))}], catchStrayErrors: ${catchStrayErrors} });
host.on("diagnostic", (d) => diagnostics.push(d));
await host.ready;
const first = await host.execute([{ id: "1", name: "stray", arguments: {} }]);
await new Promise((r) => setTimeout(r, 100));
const second = await host.execute([{ id: "2", name: "stray", arguments: {} }]);
await new Promise((r) => setTimeout(r, 100));
const during = [process.listenerCount("uncaughtException"), process.listenerCount("unhandledRejection")];
await host.close();
const after = [process.listenerCount("uncaughtException"), process.listenerCount("unhandledRejection")];
console.log(JSON.stringify({ before, during, after, diagnostics, texts: [first, second].map((r) => r.results[0].content[0].text) }));
`,
	);
	const child = spawnSync(process.execPath, [jitiCli, script], { cwd: dir, encoding: "utf8", timeout: 30_000 });
	const line = child.stdout.trim().split("\n").at(-1);
	return {
		status: child.status,
		stderr: child.stderr,
		...(line?.startsWith("{") ? { report: JSON.parse(line) as Record<string, unknown> } : {}),
	};
}

describe("catchStrayErrors", () => {
	it("turns a stray throw and an unhandled rejection into E_UNCAUGHT diagnostics naming the extension, serves on, and removes its handlers on close", () => {
		const run = runHost(true);
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
		const report = run.report as {
			before: number[];
			during: number[];
			after: number[];
			diagnostics: { code: string; path: string; message: string }[];
			texts: string[];
		};
		expect(report.texts).toEqual(["done", "done"]);
		const stray = report.diagnostics.filter((d) => d.code === "E_UNCAUGHT");
		expect(stray).toHaveLength(4);
		for (const d of stray) expect(d.path).toBe(join(dir, "stray.ts"));
		expect(stray.map((d) => d.message).sort()).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/^An uncaught exception in this extension: timer went off\./),
				expect.stringMatching(/^An unhandled promise rejection in this extension: nobody caught me\./),
			]),
		);
		expect(report.during).toEqual(report.before.map((n) => n + 1));
		expect(report.after).toEqual(report.before);
	});

	it("is off by default: the stray error ends the process, as Node does", () => {
		const run = runHost(false);
		expect(run.status).not.toBe(0);
		expect(run.report).toBeUndefined();
		expect(run.stderr).toMatch(/nobody caught me|timer went off/);
	});

	it("attributes by the innermost extension frame, as a path or a file URL, and says when none is on the stack", () => {
		const extensions = [
			{ path: "/p/a/index.ts", modules: ["/p/a/index.ts", "/p/a/lib.ts"] },
			{ path: "/p/b.ts", modules: ["/p/b.ts"] },
		];
		const stack = [
			"Error: x",
			"    at inner (node:internal/timers:1:1)",
			"    at helper (file:///p/a/lib.ts:3:9)",
			"    at Timeout._onTimeout (/p/b.ts:1:1)",
		].join("\n");
		expect(attributeStack(stack, extensions)).toBe("/p/a/index.ts");
		expect(attributeStack("Error: x\n    at f (/p/b.ts:2:2)", extensions)).toBe("/p/b.ts");
		// A file whose name merely starts like an extension's is not it.
		expect(attributeStack("Error: x\n    at f (/p/b.tsx:2:2)", extensions)).toBeUndefined();
		const hostile = new Proxy(
			{},
			{
				get() {
					throw new Error("no");
				},
				has() {
					throw new Error("no");
				},
			},
		);
		const d = strayErrorDiagnostic(hostile, "rejection", extensions);
		expect(d).toMatchObject({ code: "E_UNCAUGHT", severity: "error", path: "" });
		expect(d.message).toMatch(/^An unhandled promise rejection \(no extension file is on its stack\): /);
	});
});

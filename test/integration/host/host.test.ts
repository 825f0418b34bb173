/**
 * The extension host without a watcher: manual reloads, the executor wiring, session events and
 * their bounds, and the swap gate. Real extension files in temp folders.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import {
	createExtensionHost,
	type ExtensionHost,
	type ExtensionHostOptions,
} from "../../../src/extensions/node-host.js";
import { answer, brief, call, tempDir, toolSource, write } from "./_helpers.js";

type Probe = { events: string[]; release?: () => void; waiting?: boolean };
const probe = (): Probe => (globalThis as { __hostProbe2?: Probe }).__hostProbe2 as Probe;
const record = (label: string) =>
	`api.on("session_start", (e) => { globalThis.__hostProbe2.events.push(${JSON.stringify(label)} + " start " + e.reason); });
	api.on("session_shutdown", (e) => { globalThis.__hostProbe2.events.push(${JSON.stringify(label)} + " shutdown " + e.reason); });`;

let dir: string;
let cleanup: () => void;
let host: ExtensionHost | undefined;

beforeEach(() => {
	({ dir, cleanup } = tempDir("host"));
	(globalThis as { __hostProbe2?: Probe }).__hostProbe2 = { events: [] };
});

afterEach(async () => {
	await host?.close();
	host = undefined;
	cleanup();
});

function start(paths: string[], options: Partial<ExtensionHostOptions> = {}): ExtensionHost {
	host = createExtensionHost({ paths, cwd: dir, builtins: false, ...options });
	return host;
}

describe("startup", () => {
	it("loads what it can, reports the rest, emits session_start once, and can load a fixed file later", async () => {
		const exts = join(dir, "exts");
		write(join(exts, "good.ts"), toolSource("good", '"fine"', { extra: record("good") }));
		write(join(exts, "bad.ts"), "export default function (api) {\n\tapi.registerTool(;\n}\n");
		const h = start([exts, join(dir, "missing")]);
		expect(h.tools().map((t) => t.name)).toEqual([]);
		const ready = await h.ready;
		expect(ready.watching).toBe(false);
		expect(ready.extensions.map((e) => e.path)).toEqual([join(exts, "good.ts")]);
		expect(ready.diagnostics.map((d) => brief(d, dir))).toEqual([
			["error", "E_PATH_NOT_FOUND", "missing", undefined, undefined],
			["error", "E_SYNTAX", "exts/bad.ts", 2, expect.any(Number)],
		]);
		expect(probe().events).toEqual(["good start startup"]);
		expect(h.tools().map((t) => t.name)).toEqual(["good"]);

		write(join(exts, "bad.ts"), toolSource("fixed", '"now fine"'));
		const events = await h.reload(join(exts, "bad.ts"));
		expect(events).toMatchObject([{ kind: "load", ok: true, trigger: "manual", added: ["fixed"], diagnostics: [] }]);
		expect(await answer(h, "fixed")).toBe("now fine");
	});

	it("gives extensions the flag values it was given, on session_start and after a reload", async () => {
		const file = join(dir, "flags.ts");
		write(
			file,
			`export default function (api) {
	api.registerFlag("ssh", { type: "string" });
	api.on("session_start", (e) => { globalThis.__hostProbe2.events.push(e.reason + " " + api.getFlag("ssh")); });
}
`,
		);
		const h = start([file], { flags: { ssh: "user@host:/srv" } });
		await h.ready;
		await h.reload(file);
		expect(probe().events).toEqual(["startup user@host:/srv", "reload user@host:/srv"]);
	});

	it("reports an ignored pi factory option as part of the load, naming the extension even under node_modules", async () => {
		const file = join(dir, "node_modules", "pi-pkg", "ext.mjs");
		write(
			file,
			`import { createReadTool } from "@mariozechner/pi-coding-agent";
export default function (pi) {
	pi.registerTool({ ...createReadTool(process.cwd(), { autoResizeImages: false }), name: "plain_read" });
}
`,
		);
		const ready = await start([file]).ready;
		expect(ready.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
			[
				"W_UNSUPPORTED_API",
				file,
				`${file} passed the option \`autoResizeImages\` to createReadTool, which toolsmith does not implement; it is ignored (it does not change where the tool acts).`,
			],
		]);
	});

	it("reports an ignored pi factory option called at the module's top level as part of its first load", async () => {
		const file = join(dir, "node_modules", "pi-pkg", "top-level.mjs");
		write(
			file,
			`import { createReadTool } from "@mariozechner/pi-coding-agent";
const plain = createReadTool(process.cwd(), { autoResizeImages: false });
export default function (pi) {
	pi.registerTool({ ...plain, name: "plain_read" });
}
`,
		);
		const ready = await start([file]).ready;
		expect(ready.diagnostics.map((d) => [d.code, d.path])).toEqual([["W_UNSUPPORTED_API", file]]);
	});

	it("uses the built-in tools by default, and an extension may override one", async () => {
		write(join(dir, "read.ts"), toolSource("read", '"my read"'));
		const h = createExtensionHost({ paths: [join(dir, "read.ts")], cwd: dir });
		host = h;
		const ready = await h.ready;
		expect(ready.diagnostics.map((d) => d.code)).toEqual(["I_BUILTIN_OVERRIDDEN"]);
		expect(h.tools().map((t) => t.name)).toEqual(["bash", "edit", "write", "read"]);
		expect(await answer(h, "read")).toBe("my read");
	});
});

describe("manual reloads", () => {
	it("reloads one extension, every extension importing a module, a folder, or everything", async () => {
		const exts = join(dir, "exts");
		// In a folder of extensions every module file is an extension: helpers live in a sub-folder.
		write(join(exts, "lib", "shared.ts"), 'export const tag = "s1";\n');
		const imports = 'import { tag } from "./lib/shared.ts";';
		write(join(exts, "a.ts"), toolSource("a", "tag", { imports }));
		write(join(exts, "b.ts"), toolSource("b", "tag", { imports }));
		write(join(exts, "c.ts"), toolSource("c", '"c"'));
		const h = start([exts]);
		await h.ready;

		write(join(exts, "lib", "shared.ts"), 'export const tag = "s2";\n');
		const byModule = await h.reload(join(exts, "lib", "shared.ts"));
		expect(byModule.map((e) => [e.path, e.kind, e.ok])).toEqual([
			[join(exts, "a.ts"), "reload", true],
			[join(exts, "b.ts"), "reload", true],
		]);
		expect([await answer(h, "a"), await answer(h, "b")]).toEqual(["s2", "s2"]);

		const one = await h.reload("exts/c.ts");
		expect(one.map((e) => [e.path, e.changed])).toEqual([[join(exts, "c.ts"), []]]);

		write(join(exts, "d.ts"), toolSource("d", '"d"'));
		rmSync(join(exts, "c.ts"));
		const folder = await h.reload(exts);
		expect(folder.map((e) => [e.path.slice(exts.length + 1), e.kind])).toEqual([
			["c.ts", "unload"],
			["a.ts", "reload"],
			["b.ts", "reload"],
			["d.ts", "load"],
		]);
		const all = await h.reload();
		expect(all.map((e) => e.kind)).toEqual(["reload", "reload", "reload"]);
		expect(h.tools().map((t) => t.name)).toEqual(["a", "b", "d"]);
	});

	it("rejects a path it does not know, naming it", async () => {
		const h = start([]);
		await expect(h.reload(join(dir, "nothing.ts"))).rejects.toThrow(
			`${join(dir, "nothing.ts")} is not an extension this host loaded`,
		);
	});

	it("reports added, removed and changed tools", async () => {
		const file = join(dir, "multi.ts");
		const two = (second: string, firstAnswer: string) =>
			toolSource("first", firstAnswer, {
				extra: `api.registerTool({ name: ${JSON.stringify(second)}, label: "x", description: "Second.", parameters: { type: "object", properties: {} }, async execute() { return { content: [], details: {} }; } });`,
			});
		write(file, two("second", '"1"'));
		const h = start([file]);
		await h.ready;
		write(file, two("third", '"1"'));
		expect(await h.reload(file)).toMatchObject([{ added: ["third"], removed: ["second"], changed: [] }]);
		write(file, two("third", '"2"'));
		expect(await h.reload(file)).toMatchObject([{ added: [], removed: [], changed: ["first"] }]);
	});

	it("sees tools an extension registers in its session_start handler after a reload", async () => {
		const file = join(dir, "dynamic.ts");
		const dynamic = (name: string) => `export default function (api) {
	api.on("session_start", () => {
		api.registerTool({ name: ${JSON.stringify(name)}, label: "d", description: "Dynamic.", parameters: { type: "object", properties: {} }, async execute() { return { content: [{ type: "text", text: ${JSON.stringify(name)} }], details: {} }; } });
	});
}
`;
		write(file, dynamic("dyn_one"));
		const h = start([file]);
		await h.ready;
		expect(await answer(h, "dyn_one")).toBe("dyn_one");
		write(file, dynamic("dyn_two"));
		expect(await h.reload(file)).toMatchObject([{ ok: true, added: ["dyn_two"], removed: ["dyn_one"] }]);
		expect(await answer(h, "dyn_two")).toBe("dyn_two");
	});
});

describe("session events around a swap", () => {
	it("keeps serving the old version while a new factory hangs, then rejects it at the timeout", async () => {
		const file = join(dir, "hang.ts");
		write(file, toolSource("hang", '"old"', { extra: record("old") }));
		const h = start([file], { loadTimeoutMs: 300 });
		await h.ready;
		write(
			file,
			"export default function () {\n\tglobalThis.__hostProbe2.waiting = true;\n\treturn new Promise(() => {});\n}\n",
		);
		const reloading = h.reload(file);
		while (!probe().waiting) await new Promise((resolve) => setTimeout(resolve, 2));
		expect(await answer(h, "hang")).toBe("old");
		expect(await reloading).toMatchObject([{ ok: false, diagnostics: [{ code: "E_LOAD_TIMEOUT" }] }]);
		expect(await answer(h, "hang")).toBe("old");
		expect(probe().events).toEqual(["old start startup"]);
	});

	it("bounds a shutdown handler that never settles, and still swaps", async () => {
		const file = join(dir, "stuck.ts");
		write(file, toolSource("stuck", '"old"', { extra: 'api.on("session_shutdown", () => new Promise(() => {}));' }));
		const h = start([file], { shutdownTimeoutMs: 50 });
		await h.ready;
		write(file, toolSource("stuck", '"new"'));
		const [event] = await h.reload(file);
		expect(event?.ok).toBe(true);
		expect(event?.diagnostics.map((d) => d.code)).toEqual(["E_HANDLER_FAILED"]);
		expect(event?.diagnostics[0]?.message).toContain("did not settle within 50 ms");
		expect(await answer(h, "stuck")).toBe("new");
	});

	it("makes a batch that starts during the old version's shutdown wait for the new version", async () => {
		const file = join(dir, "gate.ts");
		write(
			file,
			toolSource("gated", '"old"', {
				extra: `api.on("session_shutdown", () => new Promise((resolve) => { globalThis.__hostProbe2.waiting = true; globalThis.__hostProbe2.release = resolve; }));`,
			}),
		);
		const h = start([file]);
		await h.ready;
		write(file, toolSource("gated", '"new"'));
		const reloading = h.reload(file);
		while (!probe().waiting) await new Promise((resolve) => setTimeout(resolve, 2));
		const during = answer(h, "gated");
		probe().release?.();
		expect(await during).toBe("new");
		expect(await reloading).toMatchObject([{ ok: true }]);
	});

	it("lets a reload in progress finish before closing, and drops queued ones", async () => {
		const exts = join(dir, "exts");
		const slowShutdown = (label: string) =>
			toolSource("slow", JSON.stringify(label), {
				extra: `${record(label)}
	api.on("session_shutdown", (e) => e.reason === "reload" ? new Promise((resolve) => { globalThis.__hostProbe2.waiting = true; globalThis.__hostProbe2.release = resolve; }) : undefined);`,
			});
		write(join(exts, "slow.ts"), slowShutdown("v1"));
		write(join(exts, "other.ts"), toolSource("other", '"o"', { extra: record("other") }));
		const h = start([exts]);
		await h.ready;
		write(join(exts, "slow.ts"), slowShutdown("v2"));
		const first = h.reload(join(exts, "slow.ts"));
		const queued = h.reload(join(exts, "other.ts"));
		while (!probe().waiting) await new Promise((resolve) => setTimeout(resolve, 2));
		const closing = h.close();
		probe().release?.();
		await closing;
		expect(await first).toMatchObject([{ ok: true }]);
		expect(await queued).toEqual([]);
		// Load order is discovery order (by name), and a reloaded extension keeps its place in it.
		expect(probe().events).toEqual([
			"other start startup",
			"v1 start startup",
			"v1 shutdown reload",
			"v2 start reload",
			"other shutdown exit",
			"v2 shutdown exit",
		]);
	});

	it("runs nothing of the old version when the new one fails, and everything on close", async () => {
		const file = join(dir, "ext.ts");
		write(file, toolSource("x", '"1"', { extra: record("v1") }));
		const h = start([file]);
		await h.ready;
		write(file, 'export default function () { throw new Error("nope"); }\n');
		expect(await h.reload(file)).toMatchObject([{ ok: false, diagnostics: [{ code: "E_FACTORY_FAILED" }] }]);
		write(file, "export const notAFactory = 1;\n");
		expect(await h.reload(file)).toMatchObject([{ ok: false, diagnostics: [{ code: "E_NO_FACTORY" }] }]);
		expect(await answer(h, "x")).toBe("1");
		await h.close();
		expect(probe().events).toEqual(["v1 start startup", "v1 shutdown exit"]);
		expect(await h.reload(file)).toEqual([]);
	});
});

describe("the shared event bus", () => {
	it("stops delivering to an old version's listeners once a new version is swapped in", async () => {
		const exts = join(dir, "exts");
		const listener = (label: string) =>
			toolSource("listener", '"l"', {
				extra: `api.events.on("ping", (data) => { globalThis.__hostProbe2.events.push(${JSON.stringify(label)} + " heard " + data); });`,
			});
		write(join(exts, "listener.ts"), listener("v1"));
		write(
			join(exts, "sender.ts"),
			toolSource("send", '"sent"', {
				extra: "globalThis.__hostProbe2.emit = (data) => api.events.emit('ping', data);",
			}),
		);
		const h = start([exts]);
		await h.ready;
		const emit = (data: string) => (probe() as Probe & { emit: (data: string) => void }).emit(data);
		emit("one");
		write(join(exts, "listener.ts"), listener("v2"));
		await h.reload(join(exts, "listener.ts"));
		emit("two");
		write(
			join(exts, "listener.ts"),
			"export default function (api) {\n\tapi.events.on('ping', () => {});\n\tthrow new Error('no');\n}\n",
		);
		expect(await h.reload(join(exts, "listener.ts"))).toMatchObject([{ ok: false }]);
		emit("three");
		rmSync(join(exts, "listener.ts"));
		await h.reload(exts);
		emit("four");
		expect(probe().events).toEqual(["v1 heard one", "v2 heard two", "v2 heard three"]);
	});
});

describe("execute", () => {
	it("runs the extensions' handlers first, then the caller's hooks", async () => {
		const file = join(dir, "guard.ts");
		write(
			file,
			toolSource("guarded", '"raw"', {
				extra: `api.on("tool_call", (e) => e.toolName === "guarded" && e.input.deny ? { block: true, reason: "denied by guard" } : undefined);
	api.on("tool_result", (e) => ({ content: [{ type: "text", text: e.content.map((c) => c.text).join("") + " +ext" }] }));`,
			}).replace("properties: {}", 'properties: { deny: { type: "boolean" } }'),
		);
		const h = start([file]);
		await h.ready;
		const seen: string[] = [];
		const { results } = await h.execute([call("guarded", {}), call("guarded", { deny: true })], {
			beforeToolCall: (ctx) => {
				seen.push(`before ${JSON.stringify(ctx.args)}`);
				return undefined;
			},
			afterToolCall: (ctx) => {
				const text = ctx.result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
				return { content: [{ type: "text", text: `${text} +caller` }] };
			},
		});
		expect(results.map((r) => [r.isError, r.content])).toEqual([
			[false, [{ type: "text", text: "raw +ext +caller" }]],
			// A blocked call never ran, so no result hook sees it.
			[true, [{ type: "text", text: "denied by guard" }]],
		]);
		expect(seen).toEqual(["before {}"]);
	});

	const envs: [string, (cwd: string) => ExecutionEnv][] = [
		["node", (cwd) => new NodeExecutionEnv({ cwd })],
		["memory", (cwd) => new MemoryExecutionEnv({ cwd, files: { "note.txt": "hello from the env" } })],
	];
	for (const [name, makeEnv] of envs) {
		it(`gives tools the host's env (${name}) before and after a reload`, async () => {
			write(join(dir, "note.txt"), "hello from the env");
			const file = join(dir, "reader.ts");
			const reader = (prefix: string) =>
				toolSource("reader", "x", {})
					.replace(
						'return { content: [{ type: "text", text: x }], details: {} };',
						`const read = await ctx.env.readTextFile("note.txt");
			return { content: [{ type: "text", text: ${JSON.stringify(prefix)} + (read.ok ? read.value : read.error.code) }], details: {} };`,
					)
					.replace("async execute() {", "async execute(_id, _params, _signal, _onUpdate, ctx) {");
			write(file, reader("1: "));
			const env = makeEnv(dir);
			const diagnostics: ExtensionDiagnostic[] = [];
			const h = start([file], { env });
			h.on("diagnostic", (d) => diagnostics.push(d));
			await h.ready;
			expect(await answer(h, "reader")).toBe("1: hello from the env");
			write(file, reader("2: "));
			await h.reload(file);
			expect(await answer(h, "reader")).toBe("2: hello from the env");
			expect(diagnostics).toEqual([]);
		});
	}
});

/**
 * `toPiExtension` against a recording stand-in for pi's extension API: what pi would be handed, and
 * the toolsmith `ctx` a tool gets from pi's. (The templates' end-to-end test loads a generated
 * project in the reference agent's own loader.)
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Type } from "../../../src/contract/schema.js";
import { defineTool, type ToolContext } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import type { ExtensionContext } from "../../../src/extensions/api.js";
import { type PiExtensionAPI, toPiExtension } from "../../../src/extensions/node-pi-package.js";

type Registered = Parameters<PiExtensionAPI["registerTool"]>[0];

function fakePi() {
	const tools: Registered[] = [];
	const handlers: [string, (event: never, ctx: { cwd: string }) => unknown][] = [];
	const commands = new Map<string, (args: string, ctx: { cwd: string }) => unknown>();
	let active: string[] = [];
	const pi: PiExtensionAPI = {
		registerTool(tool) {
			tools.push(tool);
			active.push(tool.name);
		},
		on: (event, handler) => void handlers.push([event, handler]),
		registerCommand: (name, options) => void commands.set(name, options.handler),
		registerFlag: () => {},
		getFlag: () => undefined,
		exec: async () => ({ stdout: "", stderr: "", code: 0, killed: false }),
		getAllTools: () =>
			tools.map((t) => ({
				name: t.name,
				description: t.description,
				parameters: t.parameters,
				...(t.exposure ? { exposure: t.exposure } : {}),
				...(t.namespace ? { namespace: t.namespace } : {}),
			})),
		getActiveTools: () => [...active],
		setActiveTools(names) {
			active = [...names];
		},
		events: { emit() {}, on: () => () => {} },
	};
	return { pi, tools, handlers, commands, active: () => active };
}

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-package-")));
writeFileSync(join(cwd, "notes.txt"), "one\ntwo\nthree\n");
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const lines = defineTool({
	name: "count_lines",
	label: "Count lines",
	description: "Counts the lines of a file. Reads it whole.",
	parameters: Type.Object({ path: Type.String() }),
	async execute(_id, { path }, _signal, _onUpdate, ctx) {
		const text = await ctx.env.readTextFile(path);
		if (!text.ok) throw text.error;
		const count = text.value.split("\n").length - 1;
		return { content: [{ type: "text", text: `${count} lines` }], details: { count, cwd: ctx.cwd } };
	},
	renderCall: (args, theme) => theme.bold(`count ${args.path}`),
	renderResult: (result, _options, theme) => [theme.fg("accent", `${result.details.count}`), "lines"],
});

describe("toPiExtension", () => {
	it("registers the tools with a prompt snippet, and runs them on a Node env in pi's cwd", async () => {
		const { pi, tools } = fakePi();
		await toPiExtension((api) => api.registerTool(lines))(pi);
		expect(tools.map((t) => [t.name, t.promptSnippet])).toEqual([["count_lines", "Counts the lines of a file."]]);
		const result = await tools[0]!.execute("c1", { path: "notes.txt" }, undefined, undefined, { cwd });
		expect(result).toEqual({ content: [{ type: "text", text: "3 lines" }], details: { count: 3, cwd } });
		await expect(tools[0]!.execute("c2", { path: "missing.txt" }, undefined, undefined, { cwd })).rejects.toThrow(
			/missing\.txt/,
		);
	});

	it("runs the tools on the env the options give, one env or one made per pi folder, ctx.cwd its folder", async () => {
		const remote = new MemoryExecutionEnv({ cwd: "/remote", files: { "notes.txt": "a\nb\n" } });
		const { pi, tools, handlers } = fakePi();
		const seen: string[] = [];
		await toPiExtension(
			(api) => {
				api.registerTool(lines);
				api.on("session_start", (_event, ctx) => void seen.push(`${ctx.env.kind} ${ctx.cwd}`));
			},
			{ env: remote },
		)(pi);
		const result = await tools[0]!.execute("c1", { path: "notes.txt" }, undefined, undefined, { cwd });
		expect(result).toEqual({ content: [{ type: "text", text: "2 lines" }], details: { count: 2, cwd: "/remote" } });
		await handlers[0]![1]({} as never, { cwd });
		expect(seen).toEqual(["memory /remote"]);

		const made: string[] = [];
		const perFolder = fakePi();
		await toPiExtension((api) => api.registerTool(lines), {
			env: (piCwd) => {
				made.push(piCwd);
				return new MemoryExecutionEnv({ cwd: `/mirror${piCwd}`, files: { "notes.txt": "x\n" } });
			},
		})(perFolder.pi);
		for (const id of ["c1", "c2"]) {
			const again = await perFolder.tools[0]!.execute(id, { path: "notes.txt" }, undefined, undefined, { cwd });
			expect(again.details).toEqual({ count: 1, cwd: `/mirror${cwd}` });
		}
		expect(made).toEqual([cwd]);
	});

	it("draws renderers into components with pi's theme", async () => {
		const { pi, tools } = fakePi();
		await toPiExtension((api) => api.registerTool(lines))(pi);
		const theme = { fg: (color: string, text: string) => `<${color}>${text}`, bold: (text: string) => `*${text}*` };
		expect(tools[0]!.renderCall?.({ path: "a.txt" }, theme).render(80)).toEqual(["*count a.txt*"]);
		const result = { content: [{ type: "text" as const, text: "3 lines" }], details: { count: 3 } };
		expect(tools[0]!.renderResult?.(result, { expanded: false, isPartial: false }, theme).render(80)).toEqual([
			"<accent>3",
			"lines",
		]);
		// A renderer that throws falls back to something readable instead of breaking pi's TUI.
		const broken = defineTool({
			...lines,
			name: "broken",
			renderCall: () => {
				throw new Error("boom");
			},
		});
		await toPiExtension((api) => api.registerTool(broken))(pi);
		expect(tools[1]!.renderCall?.({ path: "a.txt" }, theme).render(80).join("\n")).toContain("broken");
	});

	it("gives handlers and commands the toolsmith ctx, keeps state, and unregisters by deactivating", async () => {
		const { pi, handlers, commands, active } = fakePi();
		const seen: ToolContext[] = [];
		let kept: { calls: number } | undefined;
		await toPiExtension(
			(api) => {
				api.registerTool(lines);
				api.on("session_start", (_event, ctx: ExtensionContext) => void seen.push(ctx));
				api.registerCommand("lines", { handler: (_args, ctx) => void seen.push(ctx) });
				kept = api.state.keep("counter", () => ({ calls: 0 }));
				api.unregisterTool("count_lines");
			},
			{ path: "/pkg/src/pi.ts" },
		)(pi);
		await handlers[0]![1]({ type: "session_start" } as never, { cwd });
		await commands.get("lines")!("", { cwd });
		expect(seen.map((ctx) => [ctx.cwd, ctx.env.cwd, ctx.extension?.path, ctx.hasUI])).toEqual([
			[cwd, cwd, "/pkg/src/pi.ts", false],
			[cwd, cwd, "/pkg/src/pi.ts", false],
		]);
		expect(await seen[0]!.env.exists("notes.txt")).toBe(true);
		expect(await seen[0]!.ui.confirm("sure?", "really")).toBe(false);
		expect(kept).toEqual({ calls: 0 });
		expect(active()).toEqual([]);
	});

	it("on() hands back pi 1.x's remover, and a harmless one where pi's on() returns nothing", async () => {
		const { pi } = fakePi();
		const removed: string[] = [];
		const offs: (() => void)[] = [];
		const extension = toPiExtension((api) => {
			offs.push(api.on("session_start", () => {}));
		});
		await extension({ ...pi, on: (event) => () => void removed.push(event) });
		await extension(pi);
		for (const off of offs) off();
		expect(removed).toEqual(["session_start"]);
		expect(offs.map((off) => typeof off)).toEqual(["function", "function"]);
	});

	it("passes the pi 1.x fields on to pi, and getAllTools reports pi's exposure", async () => {
		const { pi, tools } = fakePi();
		const namespace = { name: "mcp__docs", aliases: ["docs"] };
		let getAll: (() => unknown) | undefined;
		await toPiExtension((api) => {
			getAll = () => api.getAllTools();
			api.registerTool(
				defineTool({
					...lines,
					outputSchema: Type.Object({ count: Type.Number() }),
					exposure: "codemode",
					namespace,
					defaultActive: false,
					annotations: { readOnlyHint: true },
					constrainedSampling: { type: "json_schema", strict: "prefer" },
					renderShell: "self",
					reachesTools: () => "all",
					prepareLoadout: () => ({ hiddenDeclarations: ["x"] }),
				}),
			);
		})(pi);
		expect(tools[0]).toMatchObject({
			exposure: "codemode",
			namespace,
			defaultActive: false,
			annotations: { readOnlyHint: true },
			constrainedSampling: { type: "json_schema", strict: "prefer" },
			renderShell: "self",
			outputSchema: { type: "object" },
		});
		expect(tools[0]?.reachesTools?.({})).toBe("all");
		expect(tools[0]?.prepareLoadout?.({} as never)).toEqual({ hiddenDeclarations: ["x"] });
		expect(getAll?.()).toEqual([
			expect.objectContaining({ name: "count_lines", exposure: "codemode", namespace, active: true, callable: true }),
		]);
	});
});

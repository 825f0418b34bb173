/**
 * The pi compatibility check: extensions from the reference package's examples/extensions/,
 * copied byte for byte into test/fixtures/pi-examples/, load unmodified and their tools run
 * through the executor. Run it alone with `npx vitest run test/integration/extensions/pi-compat.test.ts`.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/contract/content.js";
import type { RenderComponent } from "../../../src/contract/render.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import { type LoadExtensionsResult, loadExtensions } from "../../../src/extensions/node-loader.js";
import { plainTheme } from "../../../src/render/theme.js";

const examples = realpathSync(fileURLToPath(new URL("../../fixtures/pi-examples", import.meta.url)));

describe("pi example extensions, unmodified", () => {
	let cwd: string;
	let agentDir: string;
	let previousAgentDir: string | undefined;
	let loaded: LoadExtensionsResult;
	const notes: string[] = [];

	beforeAll(async () => {
		cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-cwd-")));
		agentDir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-agent-")));
		previousAgentDir = process.env.PI_CODING_AGENT_DIR;
		process.env.PI_CODING_AGENT_DIR = agentDir;
		writeFileSync(join(cwd, "notes.txt"), "line one\nline two\n");
		writeFileSync(join(cwd, ".env"), "SECRET=1\n");
		loaded = await loadExtensions([examples], {
			cwd,
			env: new NodeExecutionEnv({ cwd }),
			log: (entry) => notes.push(`${entry.level}: ${entry.message}`),
		});
	});

	afterAll(() => {
		if (previousAgentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = previousAgentDir;
		rmSync(cwd, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	});

	async function run(name: string, args: unknown) {
		const toolCall: ToolCall = { type: "toolCall", id: `call-${name}`, name, arguments: args };
		const batch = await executeToolCalls([toolCall], loaded.registry.executorConfig());
		const result = batch.results[0];
		return {
			isError: result?.isError,
			text: result?.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
			details: result?.details,
			terminate: batch.terminate,
		};
	}

	it("loads all five with only the expected note about the read override", () => {
		expect(loaded.extensions.map((e) => e.path.slice(examples.length + 1))).toEqual([
			"dynamic-tools.ts",
			"hello.ts",
			"structured-output.ts",
			"tool-override.ts",
			"with-deps/index.ts",
		]);
		expect(loaded.diagnostics.map((d) => [d.severity, d.code, d.path.slice(examples.length + 1)])).toEqual([
			["info", "I_BUILTIN_OVERRIDDEN", "tool-override.ts"],
		]);
		expect(loaded.extensions.find((e) => e.path.endsWith("tool-override.ts"))?.commands.map((c) => c.name)).toEqual([
			"read-log",
		]);
	});

	it("hello.ts", async () => {
		expect(await run("hello", { name: "pi" })).toMatchObject({
			isError: false,
			text: "Hello, pi!",
			details: { greeted: "pi" },
		});
	});

	it("structured-output.ts terminates the batch and renders through the Text component", async () => {
		const result = await run("structured_output", { headline: "Done", summary: "All good.", actionItems: ["ship"] });
		expect(result).toMatchObject({ isError: false, text: "Saved structured output: Done", terminate: true });
		const definition = loaded.registry.get("structured_output")?.definition;
		const rendered = definition?.renderResult?.(
			{ content: [], details: result.details },
			{ expanded: false, isPartial: false },
			plainTheme,
		) as RenderComponent;
		expect(rendered.render(40)).toEqual(["Done", "All good.", "", "1. ship"]);
		const prompt = loaded.registry.buildToolsPrompt();
		expect(prompt).toContain("Emit a final structured answer as a terminating tool result");
	});

	it("tool-override.ts replaces read, blocks secrets and logs into the agent folder", async () => {
		expect(loaded.registry.get("read")?.source.kind).toBe("extension");
		expect(await run("read", { path: "notes.txt" })).toMatchObject({ isError: false, text: "line one\nline two\n" });
		const blocked = await run("read", { path: ".env" });
		expect(blocked.text).toContain('Access denied: ".env" matches a blocked pattern');
		const { readFileSync } = await import("node:fs");
		const log = readFileSync(join(agentDir, "read-access.log"), "utf8");
		expect(log).toMatch(/ALLOWED: .*notes\.txt/);
		expect(log).toMatch(/BLOCKED: .*\.env \(matches blocked pattern\)/);
	});

	it("dynamic-tools.ts registers its tool once session_start is emitted", async () => {
		expect(loaded.registry.get("echo_session")).toBeUndefined();
		expect(await loaded.runtime.emit({ type: "session_start", reason: "startup" })).toEqual([]);
		expect(loaded.registry.getActiveTools()).toContain("echo_session");
		expect(await run("echo_session", { message: "hi" })).toMatchObject({ isError: false, text: "[session] hi" });
		expect(notes).toContain("info: Registered dynamic tool: echo_session");
	});

	it("with-deps/ resolves ms from its own node_modules", async () => {
		expect(await run("parse_duration", { duration: "2 days" })).toMatchObject({
			isError: false,
			text: "2 days = 172800000 milliseconds",
		});
		expect(await run("parse_duration", { duration: "soon" })).toMatchObject({
			isError: true,
			text: 'Invalid duration: "soon"',
		});
	});
});

describe("pi minimal-mode example, unmodified", () => {
	it("loads, registers all seven tools, and its grep, find and ls run", async () => {
		const folder = realpathSync(fileURLToPath(new URL("../../fixtures/pi-minimal-mode", import.meta.url)));
		const cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-minimal-")));
		try {
			writeFileSync(join(cwd, "notes.txt"), "line one\nline two\n");
			writeFileSync(join(cwd, ".env"), "SECRET=1\n");
			const loaded = await loadExtensions([folder], { cwd, env: new NodeExecutionEnv({ cwd }) });
			expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
			for (const name of ["read", "bash", "edit", "write", "grep", "find", "ls"]) {
				expect(loaded.registry.get(name)?.source.kind, name).toBe("extension");
			}
			const run = async (name: string, args: unknown) => {
				const call: ToolCall = { type: "toolCall", id: `call-${name}`, name, arguments: args };
				const result = (await executeToolCalls([call], loaded.registry.executorConfig())).results[0];
				return {
					isError: result?.isError,
					text: result?.content.map((b) => (b.type === "text" ? b.text : "")).join(""),
				};
			};
			expect(await run("grep", { pattern: "two" })).toEqual({ isError: false, text: "notes.txt:2: line two" });
			expect(await run("find", { pattern: "*.txt" })).toEqual({ isError: false, text: "notes.txt" });
			expect(await run("ls", {})).toEqual({ isError: false, text: ".env\nnotes.txt" });
		} finally {
			rmSync(cwd, { recursive: true, force: true });
		}
	});
});

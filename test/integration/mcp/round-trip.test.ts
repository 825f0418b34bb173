/**
 * A tool served by `toolsmith mcp` and consumed by `loadMcpTools` answers like the same tool called
 * directly: the same content, the same error results, its `details` under `_meta`, partial updates
 * as progress. Over stdio and over Streamable HTTP, with the extension examples and the built-ins
 * acting on real files.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCall, ToolResultMessage } from "../../../src/contract/content.js";
import { wrapToolDefinitions } from "../../../src/contract/tool.js";
import { findSandbox } from "../../../src/env/_node-sandbox.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import { createExtensionHost } from "../../../src/extensions/node-host.js";
import { headlessContextFactory } from "../../../src/harness/_context.js";
import { loadMcpTools, MCP_DETAILS_META_KEY, type McpToolSet } from "../../../src/node.js";
import { makeProject, mcpCommand, type Project, startHttp } from "./_cli-server.js";

/** The calls compared: results, errors of the tools, of validation, of a missing tool, and the built-ins on disk. */
const CALLS: readonly { name: string; arguments: Record<string, unknown> }[] = [
	{ name: "hello", arguments: { name: "Ada" } },
	{ name: "hello", arguments: {} },
	{ name: "countdown", arguments: { from: 3, intervalMs: 1 } },
	{ name: "countdown", arguments: { from: "2", intervalMs: 0 } },
	{ name: "countdown", arguments: { from: 0 } },
	{ name: "todo", arguments: { action: "add", text: "write the test" } },
	{ name: "todo", arguments: { action: "done", id: 7 } },
	{ name: "todo", arguments: { action: "list" } },
	{ name: "read", arguments: { path: "notes.txt" } },
	{ name: "read", arguments: { path: "notes.txt", offset: 2, limit: 1 } },
	{ name: "read", arguments: { path: "missing.txt" } },
	{ name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "no such text", newText: "x" }] } },
	{ name: "bash", arguments: { command: "printf 'out\\n'; printf 'err\\n' >&2; exit 3" } },
	{ name: "write", arguments: { path: "made/new.txt", content: "new\n" } },
];

const NOTES = "first line\nsecond line\nthird line\n";

interface Seen {
	readonly isError: boolean;
	readonly content: unknown;
	readonly details: unknown;
	readonly updates: number;
}

async function runAll(tools: Parameters<typeof wrapToolDefinitions>[0], cwd: string, viaMcp: boolean): Promise<Seen[]> {
	const seen: Seen[] = [];
	// One call at a time, and the file reset before each: both sides must see the same world.
	for (const [i, call] of CALLS.entries()) {
		writeFileSync(join(cwd, "notes.txt"), NOTES);
		let updates = 0;
		const wrapped = wrapToolDefinitions(tools, headlessContextFactory(new NodeExecutionEnv({ cwd })));
		const toolCall: ToolCall = { type: "toolCall", id: `c${i}`, ...call };
		const { results } = await executeToolCalls([toolCall], {
			tools: wrapped,
			onEvent: (event) => {
				if (event.type === "tool_execution_update") updates++;
			},
		});
		const message = results[0] as ToolResultMessage;
		const details = message.details as { meta?: Record<string, unknown> } | undefined;
		seen.push({
			isError: message.isError,
			content: message.content,
			// Served results carry the tool's details under _meta; error results carry the executor's.
			details:
				viaMcp && !message.isError ? details?.meta?.[MCP_DETAILS_META_KEY] : message.isError ? undefined : details,
			updates,
		});
	}
	return seen;
}

let project: Project;
let direct: Seen[];
/**
 * `--builtins` confines bash to an OS sandbox by default, and refuses to run it where none can
 * start: there the served side runs unconfined, like the direct side, so the comparison still holds.
 */
let confine: string[];

beforeAll(async () => {
	project = makeProject();
	confine = (await findSandbox()) ? [] : ["--no-confine"];
	writeFileSync(join(project.dir, "notes.txt"), NOTES);
	const host = createExtensionHost({
		paths: ["hello.ts", "countdown.ts", "todo.ts"],
		cwd: project.dir,
		env: new NodeExecutionEnv({ cwd: project.dir }),
		builtins: true,
	});
	await host.ready;
	try {
		direct = await runAll(
			host.registry.snapshot().active.map((entry) => entry.definition),
			project.dir,
			false,
		);
	} finally {
		await host.close();
	}
}, 60_000);

afterAll(() => project.remove());

function expectSame(served: Seen[]): void {
	expect(served.length).toBe(CALLS.length);
	for (const [i, call] of CALLS.entries()) {
		const label = `${call.name} ${JSON.stringify(call.arguments)}`;
		// Whether updates came, not how many (the SDK may drop progress sent with the result), and
		// only for countdown: bash's updates depend on timing.
		const updates = (seen: Seen) => (call.name === "countdown" ? seen.updates > 0 : "not compared");
		expect({ ...served[i], updates: updates(served[i]!) }, label).toEqual({
			...direct[i],
			updates: updates(direct[i]!),
		});
	}
	// The calls above did reach the tools: each kind of outcome is there.
	expect(direct.filter((s) => s.isError).length).toBeGreaterThanOrEqual(5);
	expect(direct.filter((s) => !s.isError).length).toBeGreaterThanOrEqual(5);
	expect(direct[2]!.updates).toBeGreaterThan(0);
	expect(direct[0]!.details).toEqual({ name: "Ada" });
}

describe("served by toolsmith mcp, consumed by loadMcpTools", () => {
	it("over stdio: the same content, errors, details and updates as called directly", async () => {
		const { command, args } = mcpCommand([
			"hello.ts",
			"countdown.ts",
			"todo.ts",
			"--builtins",
			"--no-watch",
			...confine,
		]);
		const set: McpToolSet = await loadMcpTools({ command, args, cwd: project.dir, stderr: "ignore" });
		try {
			expect(set.tools.map((t) => t.name).sort()).toEqual(
				["bash", "countdown", "edit", "hello", "read", "todo", "write"].sort(),
			);
			expectSame(await runAll(set.tools, project.dir, true));
		} finally {
			await set.close();
		}
		expect(readFileSync(join(project.dir, "notes.txt"), "utf8")).toBe(NOTES);
	}, 120_000);

	it("over Streamable HTTP: the same", async () => {
		const { server, url } = await startHttp(
			["hello.ts", "countdown.ts", "todo.ts", "--builtins", "--no-watch", ...confine],
			project.dir,
		);
		try {
			const set = await loadMcpTools({ url: url.href });
			try {
				expectSame(await runAll(set.tools, project.dir, true));
			} finally {
				await set.close();
			}
		} finally {
			server.kill("SIGTERM");
			await server.exited;
		}
	}, 120_000);
});

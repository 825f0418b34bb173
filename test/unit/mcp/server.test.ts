/** createMcpServer over an in-memory transport pair, with the SDK's own client. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/exec/execute.js";
import { createExtensionRuntime } from "../../../src/extensions/runtime.js";
import { createBuiltinTools, defineTool, MemoryExecutionEnv, type ToolDefinition, Type } from "../../../src/index.js";
import {
	createMcpServer,
	MCP_DETAILS_META_KEY,
	type McpServedHost,
	type ToolsmithMcpServer,
} from "../../../src/node.js";

const echo = defineTool({
	name: "echo",
	label: "Echo",
	description: "Echo a text.",
	promptSnippet: "Echo text back",
	promptGuidelines: ["Use echo to repeat things."],
	parameters: Type.Object({ text: Type.String(), times: Type.Optional(Type.Integer()) }),
	async execute(_id, { text, times }, _signal, onUpdate) {
		for (let i = 1; i <= (times ?? 0); i++) onUpdate?.({ content: [{ type: "text", text: `step ${i}` }], details: {} });
		return {
			content: [
				{ type: "text", text: `${text}:${typeof times}` },
				{ type: "image", data: "aGk=", mimeType: "image/png" },
			],
			details: { text },
		};
	},
});

const wait = defineTool({
	name: "wait",
	label: "Wait",
	description: "Wait until aborted.",
	parameters: Type.Object({}),
	execute(_id, _args, signal) {
		return new Promise<never>((_resolve, reject) => {
			signal?.addEventListener("abort", () => {
				aborted.push("wait");
				reject(new Error("aborted"));
			});
			started();
		});
	},
});

let aborted: string[] = [];
let started: () => void = () => {};
let open: { server: ToolsmithMcpServer; client: Client } | undefined;

afterEach(async () => {
	await open?.client.close();
	await open?.server.close();
	open = undefined;
	aborted = [];
});

async function connect(tools: readonly ToolDefinition[] = [echo, wait]) {
	const server = await createMcpServer({
		tools,
		env: new MemoryExecutionEnv({ cwd: "/work" }),
		name: "test",
		version: "1.2.3",
	});
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	await server.connect(serverSide);
	const client = new Client({ name: "test-client", version: "0.0.0" });
	await client.connect(clientSide);
	open = { server, client };
	return { server, client };
}

it("lists tools with their schema, snippet, title and the guidelines as instructions", async () => {
	const { client } = await connect();
	expect(client.getServerVersion()).toMatchObject({ name: "test", version: "1.2.3" });
	expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
	expect(client.getInstructions()).toContain("- Use echo to repeat things.");
	const { tools } = await client.listTools();
	const tool = tools.find((t) => t.name === "echo");
	expect(tool?.description).toBe("Echo a text.\n\nEcho text back");
	expect(tool?.title).toBe("Echo");
	expect(tool?.inputSchema).toMatchObject({
		type: "object",
		required: ["text"],
		properties: { text: { type: "string" }, times: { type: "integer" } },
	});
});

it("calls through the executor: coercion, content mapping, details under _meta, error results", async () => {
	const { client } = await connect();
	const ok = await client.callTool({ name: "echo", arguments: { text: "hi", times: "0" } });
	expect(ok.isError).toBeFalsy();
	expect(ok.content).toEqual([
		{ type: "text", text: "hi:number" },
		{ type: "image", data: "aGk=", mimeType: "image/png" },
	]);
	expect(ok._meta?.[MCP_DETAILS_META_KEY]).toEqual({ text: "hi" });
	const bad = await client.callTool({ name: "echo", arguments: {} });
	expect(bad.isError).toBe(true);
	expect(bad._meta?.[MCP_DETAILS_META_KEY]).toMatchObject({ code: "E_INVALID_ARGS" });
	const missing = await client.callTool({ name: "nope", arguments: {} });
	expect(missing.isError).toBe(true);
	expect(JSON.stringify(missing.content)).toContain("not found");
});

it("turns onUpdate into progress notifications when the request has a progress token", async () => {
	const { client } = await connect();
	const seen: { progress: number; message?: string }[] = [];
	await client.callTool({ name: "echo", arguments: { text: "x", times: 3 } }, CallToolResultSchema, {
		onprogress: (p) => seen.push({ progress: p.progress, ...(p.message !== undefined ? { message: p.message } : {}) }),
	});
	expect(seen).toEqual([
		{ progress: 1, message: "step 1" },
		{ progress: 2, message: "step 2" },
		{ progress: 3, message: "step 3" },
	]);
});

it("aborts the call's signal when the client cancels, and on close", async () => {
	const { client, server } = await connect();
	const controller = new AbortController();
	const running = new Promise<void>((resolve) => {
		started = resolve;
	});
	const call = client.callTool({ name: "wait", arguments: {} }, CallToolResultSchema, { signal: controller.signal });
	await running;
	controller.abort();
	await expect(call).rejects.toThrow();
	await expect.poll(() => aborted, { timeout: 10_000 }).toEqual(["wait"]);

	const second = new Promise<void>((resolve) => {
		started = resolve;
	});
	const call2 = client.callTool({ name: "wait", arguments: {} }).catch(() => undefined);
	await second;
	await server.close();
	expect(aborted).toEqual(["wait", "wait"]);
	await call2;
});

const stats = defineTool({
	name: "stats",
	label: "Stats",
	description: "Count the words of a text.",
	parameters: Type.Object({ text: Type.String(), lie: Type.Optional(Type.Boolean()) }),
	outputSchema: Type.Object({ words: Type.Integer() }),
	annotations: { readOnlyHint: true, openWorldHint: false },
	async execute(_id, { text, lie }) {
		const words = text.split(/\s+/).filter(Boolean).length;
		return { content: [{ type: "text", text: `${words} words` }], details: lie ? { words: "many" } : { words } };
	},
});

it("lists annotations and the output schema; details that fit it are the structuredContent", async () => {
	const { client } = await connect([stats, echo]);
	const { tools } = await client.listTools();
	const listed = tools.find((t) => t.name === "stats");
	expect(listed?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
	expect(listed?.outputSchema).toMatchObject({ type: "object", properties: { words: { type: "integer" } } });
	expect(tools.find((t) => t.name === "echo")?.outputSchema).toBeUndefined();

	// The SDK client checks structuredContent against the listed schema itself.
	const ok = await client.callTool({ name: "stats", arguments: { text: "a b c" } });
	expect(ok.isError).toBeFalsy();
	expect(ok.structuredContent).toEqual({ words: 3 });
	expect(ok.content).toEqual([{ type: "text", text: "3 words" }]);

	const bad = await client.callTool({ name: "stats", arguments: { text: "a", lie: true } });
	expect(bad.isError).toBe(true);
	expect(bad.structuredContent).toBeUndefined();
	expect(JSON.stringify(bad.content)).toContain("declares an outputSchema, but its details do not match it at /words");
	expect(bad._meta?.[MCP_DETAILS_META_KEY]).toEqual({ words: "many" });
});

const stats1x = defineTool({
	name: "stats1x",
	label: "Stats",
	description: "Count the words of a text (pi 1.x style: structuredContent).",
	parameters: Type.Object({ text: Type.String(), lie: Type.Optional(Type.Boolean()) }),
	outputSchema: Type.Object({ words: Type.Integer() }),
	async execute(_id, { text, lie }) {
		const words = text.split(/\s+/).filter(Boolean).length;
		return {
			content: [{ type: "text", text: `${words} words` }],
			details: { free: "form" },
			structuredContent: lie ? { words: "many" } : { words },
		};
	},
});

const structuredOnly = defineTool({
	name: "structured_only",
	label: "Structured",
	description: "Sets structuredContent without declaring an outputSchema.",
	parameters: Type.Object({}),
	async execute() {
		return { content: [{ type: "text", text: "ok" }], details: undefined, structuredContent: { ok: true } };
	},
});

it("pi 1.x: structuredContent, not details, is checked and sent; without a schema it is passed on", async () => {
	const { client } = await connect([stats1x, structuredOnly]);
	const ok = await client.callTool({ name: "stats1x", arguments: { text: "a b" } });
	expect(ok.isError).toBeFalsy();
	expect(ok.structuredContent).toEqual({ words: 2 });
	expect(ok._meta?.[MCP_DETAILS_META_KEY]).toEqual({ free: "form" });
	const bad = await client.callTool({ name: "stats1x", arguments: { text: "a", lie: true } });
	expect(bad.isError).toBe(true);
	expect(JSON.stringify(bad.content)).toContain("but its structuredContent does not match it at /words");
	const free = await client.callTool({ name: "structured_only", arguments: {} });
	expect(free.structuredContent).toEqual({ ok: true });
});

it("sets annotations on the built-ins: read-only tools say so, bash reaches an open world", async () => {
	const { client } = await connect(createBuiltinTools({ set: "all" }));
	const { tools } = await client.listTools();
	const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
	expect(hints.read).toMatchObject({ readOnlyHint: true });
	expect(hints.write).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
	expect(hints.edit).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
	expect(hints.bash).toMatchObject({ readOnlyHint: false, openWorldHint: true });
});

/** Tools that log their start and end, and the most calls that overlapped a sequential one. */
function steps() {
	const log: string[] = [];
	let active = 0;
	const state = { log, maxWithSequential: 0 };
	const step = (name: string, mode: "sequential" | "parallel") =>
		defineTool({
			name,
			label: name,
			description: `${name} step`,
			parameters: Type.Object({ n: Type.Integer() }),
			executionMode: mode,
			async execute(_id, { n }) {
				active += 1;
				log.push(`start ${name}${n}`);
				if (mode === "sequential") state.maxWithSequential = Math.max(state.maxWithSequential, active);
				await new Promise((resolve) => setTimeout(resolve, 15));
				if (mode === "sequential") state.maxWithSequential = Math.max(state.maxWithSequential, active);
				log.push(`end ${name}${n}`);
				active -= 1;
				return { content: [{ type: "text", text: `${name}${n}` }], details: {} };
			},
		});
	return { state, tools: [step("par", "parallel"), step("seq", "sequential")] };
}

it("keeps a sequential tool alone across concurrent requests, in arrival order", async () => {
	const { state, tools } = steps();
	const { log } = state;
	const { client } = await connect(tools);
	const order = ["par1", "par2", "seq3", "par4", "seq5", "par6", "par7"];
	const results = await Promise.all(
		order.map((id) => client.callTool({ name: id.slice(0, 3), arguments: { n: Number(id.slice(3)) } })),
	);
	expect(results.map((r) => (r.content as { text: string }[])[0]?.text)).toEqual(order);
	// A sequential call never overlapped another call, and none overtook it.
	expect(state.maxWithSequential).toBe(1);
	const at = (event: string) => log.indexOf(event);
	expect(at("start seq3")).toBeGreaterThan(Math.max(at("end par1"), at("end par2")));
	expect(at("start par4")).toBeGreaterThan(at("end seq3"));
	expect(at("start seq5")).toBeGreaterThan(at("end par4"));
	expect(at("start par6")).toBeGreaterThan(at("end seq5"));
	// Parallel calls still overlap each other.
	expect(at("start par2")).toBeLessThan(at("end par1"));
	expect(at("start par7")).toBeLessThan(at("end par6"));
});

it("keeps a sequential tool alone across the servers of one host (one per HTTP session)", async () => {
	const { state, tools } = steps();
	const env = new MemoryExecutionEnv({ cwd: "/work" });
	const { registry } = createExtensionRuntime({ env, builtins: tools });
	const host: McpServedHost = {
		registry,
		ready: Promise.resolve(),
		execute: (calls, options) => executeToolCalls(calls, { ...registry.snapshot().executorConfig(), ...options }),
	};
	const sessions: { server: ToolsmithMcpServer; client: Client }[] = [];
	try {
		for (const name of ["a", "b"]) {
			const server = await createMcpServer({ host, name });
			const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
			await server.connect(serverSide);
			const client = new Client({ name: `client-${name}`, version: "0.0.0" });
			await client.connect(clientSide);
			sessions.push({ server, client });
		}
		const [a, b] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];
		const call = (session: typeof a, name: string, n: number) => session.client.callTool({ name, arguments: { n } });
		await Promise.all([call(a, "par", 1), call(b, "seq", 2), call(a, "par", 3), call(b, "par", 4)]);
		const at = (event: string) => state.log.indexOf(event);
		expect(state.maxWithSequential).toBe(1);
		expect(at("start seq2")).toBeGreaterThan(at("end par1"));
		expect(at("start par3")).toBeGreaterThan(at("end seq2"));
		expect(at("start par4")).toBeLessThan(at("end par3"));
	} finally {
		for (const { client, server } of sessions) {
			await client.close();
			await server.close();
		}
	}
});

it("pi 1.x exposure: lists the active tools, with prepareLoadout's descriptions; codemode and hidden ones are not", async () => {
	const plain = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
		name,
		label: name,
		description: `The ${name} tool.`,
		parameters: Type.Object({}),
		async execute() {
			return { content: [{ type: "text", text: name }], details: undefined };
		},
		...extra,
	});
	const { client } = await connect([
		plain("runner", {
			exposure: "model-only",
			prepareLoadout: (loadout) => ({
				descriptions: { runner: `Runs: ${loadout.callable.map((t) => t.name).join(", ")}.` },
				hiddenDeclarations: ["quiet"],
			}),
		}),
		plain("quiet"),
		plain("helper", { exposure: "codemode" }),
		plain("secret", { exposure: "hidden" }),
	]);
	const { tools } = await client.listTools();
	expect(tools.map((t) => [t.name, t.description])).toEqual([
		["runner", "Runs: quiet, helper."],
		["quiet", "The quiet tool."],
	]);
	const hidden = await client.callTool({ name: "helper", arguments: {} });
	expect(hidden.isError).toBe(true);
});

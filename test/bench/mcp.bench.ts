/**
 * `npm run bench mcp`: a `tools/call` round trip over stdio, toolsmith's `createMcpServer` against
 * the MCP SDK's own minimal `McpServer` (`registerTool`) serving the same trivial `echo` tool.
 *
 * Each server is a child process (`node --expose-gc`) over stdio, with one SDK `Client` and
 * `StdioClientTransport` per server in this process. The server scripts are written at the start
 * into `.tmp/bench-mcp/<pid>/` and import the built package (`dist/node.js`, resolved through the
 * package's `exports`) and the SDK by absolute file URL. After a warm-up, each round makes `CALLS`
 * sequential calls to each server, the two taking turns call by call (the one going first
 * alternating), so that the drifts of a shared machine fall on both alike; each round gives the
 * median latency of each side, and the goal is the median of the per-round ratios (toolsmith/SDK).
 *
 * Memory: both servers answer a second tool, `rss` (only in this benchmark's scripts), which runs a
 * full GC and returns `process.memoryUsage()` (and `process.cpuUsage()`, from which the server CPU
 * time per call over the timed rounds is printed). The toolsmith server's RSS after its first 1,000
 * sequential calls must be within 20 MB of its RSS before them, and so must 1,000 more once warm;
 * the SDK server's growth over the same calls is printed beside them.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { finish, percentile, report, reportValue } from "./_measure.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const work = join(repo, ".tmp", "bench-mcp", String(process.pid));
const CALLS = 200;
const ROUNDS = 21;
const WARMUP_ROUNDS = 3;
const SOAK = 1_000;
const RSS_LIMIT_MB = 20;
const RATIO_LIMIT = 1.2;

const url = (specifier: string) => JSON.stringify(import.meta.resolve(specifier));

const RSS_TOOL_NOTE = "Runs a full GC and returns process.memoryUsage() as JSON (benchmark only).";

const TOOLSMITH_SERVER = `import { StdioServerTransport } from ${url("@modelcontextprotocol/sdk/server/stdio.js")};
import { defineTool, Type } from ${url("toolsmith-sdk")};
import { createMcpServer } from ${url("toolsmith-sdk/node")};

const echo = defineTool({
	name: "echo",
	label: "Echo",
	description: "Echo a text.",
	parameters: Type.Object({ text: Type.String() }),
	async execute(_id, { text }) {
		return { content: [{ type: "text", text }], details: undefined };
	},
});
const rss = defineTool({
	name: "rss",
	label: "RSS",
	description: ${JSON.stringify(RSS_TOOL_NOTE)},
	parameters: Type.Object({}),
	async execute() {
		globalThis.gc();
		return { content: [{ type: "text", text: JSON.stringify({ ...process.memoryUsage(), cpu: process.cpuUsage() }) }], details: undefined };
	},
});
const server = await createMcpServer({ tools: [echo, rss], name: "bench-toolsmith", version: "0.0.0" });
await server.connect(new StdioServerTransport());
`;

const SDK_SERVER = `import { McpServer } from ${url("@modelcontextprotocol/sdk/server/mcp.js")};
import { StdioServerTransport } from ${url("@modelcontextprotocol/sdk/server/stdio.js")};
import { z } from ${url("zod")};

const server = new McpServer({ name: "bench-sdk", version: "0.0.0" });
server.registerTool("echo", { title: "Echo", description: "Echo a text.", inputSchema: { text: z.string() } }, async ({ text }) => ({
	content: [{ type: "text", text }],
}));
server.registerTool("rss", { title: "RSS", description: ${JSON.stringify(RSS_TOOL_NOTE)}, inputSchema: {} }, async () => {
	globalThis.gc();
	return { content: [{ type: "text", text: JSON.stringify({ ...process.memoryUsage(), cpu: process.cpuUsage() }) }] };
});
await server.connect(new StdioServerTransport());
`;

interface Side {
	readonly name: string;
	readonly client: Client;
	readonly transport: StdioClientTransport;
}

async function start(name: string, script: string): Promise<Side> {
	const file = join(work, `${name}-server.mjs`);
	writeFileSync(file, script);
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: ["--expose-gc", file],
		cwd: work,
		stderr: "inherit",
	});
	const client = new Client({ name: `bench-client-${name}`, version: "0.0.0" });
	await client.connect(transport);
	const { tools } = await client.listTools();
	const names = tools.map((t) => t.name).sort();
	if (names.join(",") !== "echo,rss") throw new Error(`${name} server lists ${names.join(", ")}`);
	return { name, client, transport };
}

let sequence = 0;
async function echo(side: Side): Promise<void> {
	const text = `hello ${++sequence}`;
	const result = await side.client.callTool({ name: "echo", arguments: { text } });
	const content = result.content as { type: string; text?: string }[];
	if (result.isError || content[0]?.text !== text) {
		throw new Error(`${side.name} echo answered ${JSON.stringify(result)}`);
	}
}

/** The latency of each of `count` sequential calls, in milliseconds. */
async function round(side: Side, count: number): Promise<number[]> {
	const samples: number[] = [];
	for (let i = 0; i < count; i++) {
		const begin = performance.now();
		await echo(side);
		samples.push(performance.now() - begin);
	}
	return samples;
}

/** `count` calls to each side, taking turns, the one going first alternating; each call's latency in milliseconds. */
async function pairedRound(ours: Side, sdk: Side, count: number): Promise<Record<"ours" | "sdk", number[]>> {
	const samples: Record<"ours" | "sdk", number[]> = { ours: [], sdk: [] };
	const timed = async (key: "ours" | "sdk") => {
		const begin = performance.now();
		await echo(key === "ours" ? ours : sdk);
		samples[key].push(performance.now() - begin);
	};
	for (let i = 0; i < count; i++) {
		const order = i % 2 === 0 ? (["ours", "sdk"] as const) : (["sdk", "ours"] as const);
		for (const key of order) await timed(key);
	}
	return samples;
}

interface Usage {
	readonly rss: number;
	readonly heapUsed: number;
	/** The server's CPU time so far, in microseconds. */
	readonly cpu: { readonly user: number; readonly system: number };
}

async function memory(side: Side): Promise<Usage> {
	const result = await side.client.callTool({ name: "rss", arguments: {} });
	const text = (result.content as { type: string; text?: string }[])[0]?.text ?? "";
	return JSON.parse(text) as Usage;
}

const cpuOf = (usage: Usage) => usage.cpu.user + usage.cpu.system;

const MB = 1024 * 1024;

async function main(): Promise<void> {
	rmSync(work, { recursive: true, force: true });
	mkdirSync(work, { recursive: true });
	const sides: Side[] = [];
	try {
		const ours = await start("toolsmith", TOOLSMITH_SERVER);
		sides.push(ours);
		const sdk = await start("sdk", SDK_SERVER);
		sides.push(sdk);

		// Memory first, from the state each server is in once connected: its RSS after a full GC,
		// before and after 1,000 sequential calls (JIT warm-up and V8's young generation filling up
		// included), then after 1,000 more (what is left once warm: a leak would show here).
		const soak = async (side: Side) => {
			const before = await memory(side);
			const start = performance.now();
			await round(side, SOAK);
			const msPerCall = (performance.now() - start) / SOAK;
			const first = await memory(side);
			await round(side, SOAK);
			const second = await memory(side);
			return { before, first, second, msPerCall };
		};
		const mine = await soak(ours);
		const theirs = await soak(sdk);
		const grown = (from: { rss: number }, to: { rss: number }) => (to.rss - from.rss) / MB;
		reportValue(
			`toolsmith server RSS growth over its first ${SOAK.toLocaleString("en")} sequential calls (after a full GC)`,
			grown(mine.before, mine.first),
			RSS_LIMIT_MB,
			"MB",
			`RSS ${(mine.before.rss / MB).toFixed(1)} → ${(mine.first.rss / MB).toFixed(1)} MB, heap used ` +
				`${(mine.before.heapUsed / MB).toFixed(1)} → ${(mine.first.heapUsed / MB).toFixed(1)} MB; ` +
				`the SDK's McpServer grew ${grown(theirs.before, theirs.first).toFixed(1)} MB over the same calls`,
		);
		reportValue(
			`toolsmith server RSS growth over the next ${SOAK.toLocaleString("en")} calls, warm`,
			grown(mine.first, mine.second),
			RSS_LIMIT_MB,
			"MB",
			`heap used ${(mine.first.heapUsed / MB).toFixed(1)} → ${(mine.second.heapUsed / MB).toFixed(1)} MB; ` +
				`the SDK's McpServer ${grown(theirs.first, theirs.second).toFixed(1)} MB`,
		);
		console.log(
			`info: ${mine.msPerCall.toFixed(3)} ms a call for toolsmith's first ${SOAK.toLocaleString("en")}, ` +
				`${theirs.msPerCall.toFixed(3)} ms for the SDK's`,
		);

		// Latency: the sides take turns call by call (the one going first alternating), so drifts of a
		// shared machine hit both alike; each round gives each side's median.
		for (let i = 0; i < WARMUP_ROUNDS; i++) await pairedRound(ours, sdk, CALLS);
		const [oursStart, sdkStart] = [await memory(ours), await memory(sdk)];
		const perRound: Record<"ours" | "sdk", number[]> = { ours: [], sdk: [] };
		const all: Record<"ours" | "sdk", number[]> = { ours: [], sdk: [] };
		for (let r = 0; r < ROUNDS; r++) {
			const samples = await pairedRound(ours, sdk, CALLS);
			for (const key of ["ours", "sdk"] as const) {
				perRound[key].push(percentile(samples[key], 50));
				all[key].push(...samples[key]);
			}
		}
		const ratios = perRound.ours.map((value, i) => value / (perRound.sdk[i] ?? Number.NaN));
		const ms = (value: number) => `${(value * 1000).toFixed(0)} µs`;
		report(
			`tools/call round trip over stdio, trivial echo (toolsmith createMcpServer / SDK McpServer)`,
			percentile(ratios, 50),
			RATIO_LIMIT,
			`median per call toolsmith ${ms(percentile(all.ours, 50))}, SDK ${ms(percentile(all.sdk, 50))}; ` +
				`p90 ${ms(percentile(all.ours, 90))} vs ${ms(percentile(all.sdk, 90))}; ` +
				`per-round ratios ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; ` +
				`median of ${ROUNDS} rounds of ${CALLS} sequential calls to each, taking turns`,
		);

		const [oursEnd, sdkEnd] = [await memory(ours), await memory(sdk)];
		const cpuPerCall = (start: Usage, end: Usage) =>
			`${((cpuOf(end) - cpuOf(start)) / (ROUNDS * CALLS)).toFixed(0)} µs`;
		console.log(
			`info: server CPU time per call over the timed rounds: toolsmith ${cpuPerCall(oursStart, oursEnd)}, ` +
				`SDK ${cpuPerCall(sdkStart, sdkEnd)}`,
		);
		const calls = 2 * SOAK + (WARMUP_ROUNDS + ROUNDS) * CALLS;
		console.log(
			`info: RSS after a full GC at the end: toolsmith ${(oursEnd.rss / MB).toFixed(1)} MB after ` +
				`${calls.toLocaleString("en")} calls (heap used ${(oursEnd.heapUsed / MB).toFixed(1)} MB), SDK server ` +
				`${(sdkEnd.rss / MB).toFixed(1)} MB after as many (heap used ${(sdkEnd.heapUsed / MB).toFixed(1)} MB)`,
		);
	} finally {
		for (const side of sides) await side.client.close();
		rmSync(work, { recursive: true, force: true });
	}
	finish();
}

await main();

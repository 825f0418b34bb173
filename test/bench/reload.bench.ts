/**
 * `npm run bench reload`: hot reload with 50 extensions loaded.
 *
 * Latency: one of the 50 files is edited 50 times; each sample runs from just before the write to
 * a call through the host that answers with the new version (chokidar's notice, the debounce, the
 * fresh import, the swap and the call). The peer has no single-extension reload: its reload is
 * `discoverAndLoadExtensions` over the same 50 files, measured in the same process and run.
 *
 * Soak: 500 more edits of that file, alternating a valid version and one that does not parse.
 * After each, the tool must answer with the last valid version. The heap (after a full GC) after
 * the soak must stay within 1.5× of the heap after the first 50 reloads of the soak.
 *
 * Our side is the built package (`toolsmith-sdk/node`, that is `dist/node.js`), loaded by Node as a
 * user's process loads it; the extensions it reloads are TypeScript, loaded by its own loader.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	createExtensionHost,
	DEFAULT_DEBOUNCE_MS,
	type ExtensionHost,
	type ExtensionReloadEvent,
} from "toolsmith-sdk/node";
import type { ToolCall } from "toolsmith-sdk/runtime";
import { finish, percentile, report, reportValue, time } from "./_measure.js";
import { importPeer } from "./_peer.js";

const COUNT = 50;
const EDITS = 50;
const SOAK = 500;
const HEAP_MARK = 50;

function extensionSource(index: number, answer: string): string {
	return `import { Type } from "typebox";
import { defineTool, type ExtensionAPI } from "@mariozechner/pi-coding-agent";

const tool = defineTool({
	name: "tool_${index}",
	label: "Tool ${index}",
	description: "Benchmark tool number ${index}: answers with its version.",
	parameters: Type.Object({ text: Type.String({ description: "Anything" }), times: Type.Optional(Type.Number()) }),
	async execute(_id, params) {
		return { content: [{ type: "text", text: ${JSON.stringify(answer)} }], details: { index: ${index}, text: params.text } };
	},
});

export default function (pi: ExtensionAPI) {
	pi.registerTool(tool);
	pi.on("session_start", () => {});
}
`;
}

function brokenSource(index: number, edit: number): string {
	return `${extensionSource(index, `broken ${edit}`).replace("pi.registerTool(tool);", "pi.registerTool(tool;")}\n`;
}

interface PeerModule {
	discoverAndLoadExtensions(
		paths: string[],
		cwd: string,
		agentDir: string,
	): Promise<{ extensions: { tools: Map<string, unknown> }[]; errors: unknown[] }>;
}

let callId = 0;
async function answer(host: ExtensionHost, name: string): Promise<string> {
	const call: ToolCall = { type: "toolCall", id: `c${++callId}`, name, arguments: { text: "x" } };
	const { results } = await host.execute([call]);
	const first = results[0];
	const text = first?.content.map((c) => (c.type === "text" ? c.text : "")).join("") ?? "";
	return first?.isError ? `error: ${text}` : text;
}

function nextReload(host: ExtensionHost, path: string, timeoutMs = 10_000): Promise<ExtensionReloadEvent> {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			off();
			reject(new Error(`no reload of ${path} within ${timeoutMs} ms`));
		}, timeoutMs);
		const off = host.on("reload", (event) => {
			if (event.path !== path) return;
			clearTimeout(timer);
			off();
			resolve(event);
		});
	});
}

function heapMb(): number {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error("run with --expose-gc (npm run bench does)");
	gc();
	gc();
	return process.memoryUsage().heapUsed / 1024 / 1024;
}

async function main(): Promise<void> {
	const root = mkdtempSync(join(tmpdir(), "toolsmith-bench-reload-"));
	const exts = join(root, "extensions");
	const cwd = join(root, "cwd");
	mkdirSync(exts);
	mkdirSync(cwd);
	mkdirSync(join(root, "agent"));
	for (let i = 0; i < COUNT; i++) {
		writeFileSync(join(exts, `ext-${String(i).padStart(2, "0")}.ts`), extensionSource(i, `tool ${i} v0`));
	}
	const edited = join(exts, "ext-00.ts");
	const host = createExtensionHost({ paths: [exts], cwd, watch: true, builtins: false });
	try {
		const ready = await host.ready;
		if (ready.extensions.length !== COUNT || !ready.watching) {
			throw new Error(`host loaded ${ready.extensions.length} extensions (watching: ${ready.watching})`);
		}

		// The peer's reload: everything, again, in this process.
		const peer = await importPeer<PeerModule>("@mariozechner/pi-coding-agent");
		const peerReload = await time(
			async () => {
				const result = await peer.discoverAndLoadExtensions([exts], cwd, join(root, "agent"));
				const tools = result.extensions.reduce((n, e) => n + e.tools.size, 0);
				if (result.errors.length > 0 || tools !== COUNT) throw new Error(`peer loaded ${tools} tools`);
			},
			7,
			2,
		);

		const latencies: number[] = [];
		const reloadOnly: number[] = [];
		for (let edit = 1; edit <= EDITS; edit++) {
			const expected = `tool 0 v${edit}`;
			const reloaded = nextReload(host, edited);
			const start = performance.now();
			writeFileSync(edited, extensionSource(0, expected));
			const event = await reloaded;
			const got = await answer(host, "tool_0");
			latencies.push(performance.now() - start);
			reloadOnly.push(event.durationMs);
			if (!event.ok || got !== expected) throw new Error(`edit ${edit}: answered ${JSON.stringify(got)}`);
		}
		const p50 = percentile(latencies, 50);
		const p95 = percentile(latencies, 95);
		const detail = `${EDITS} edits of 1 of ${COUNT} extensions`;
		reportValue("reload latency p50, write to new version answering", p50, 50, "ms", detail);
		reportValue("reload latency p95, write to new version answering", p95, 150, "ms");
		const stepP50 = percentile(reloadOnly, 50);
		const peerMs = peerReload.medianMs;
		// The peer has no watcher and no single-extension reload: a user edits, then reloads
		// everything by hand. The goal compares what each side does to bring in one edit: our
		// reload of the one extension against its reload of all of them.
		report(
			"reload of the edited extension vs the peer's full reload of the 50 files",
			stepP50 / peerMs,
			1.0,
			`toolsmith p50 ${stepP50.toFixed(1)} ms, peer discoverAndLoadExtensions ${peerMs.toFixed(1)} ms (median of 7)`,
		);
		console.log(
			`info: write-to-answer p50 (file event, ${DEFAULT_DEBOUNCE_MS} ms debounce (the default), reload, call) vs the peer's full reload: ${(p50 / peerMs).toFixed(2)}× (${p50.toFixed(1)} ms vs ${peerMs.toFixed(1)} ms)`,
		);

		// Soak: valid and broken versions alternate; the last valid one must always answer.
		let lastGood = `tool 0 v${EDITS}`;
		let heapAtMark = 0;
		let wrong = 0;
		const heapStart = heapMb();
		for (let edit = 1; edit <= SOAK; edit++) {
			const valid = edit % 2 === 0;
			const text = `tool 0 soak ${edit}`;
			const reloaded = nextReload(host, edited);
			writeFileSync(edited, valid ? extensionSource(0, text) : brokenSource(0, edit));
			const event = await reloaded;
			if (event.ok !== valid) throw new Error(`soak edit ${edit}: reload ok=${event.ok}, expected ${valid}`);
			if (valid) lastGood = text;
			const got = await answer(host, "tool_0");
			if (got !== lastGood) wrong++;
			if (edit === HEAP_MARK) heapAtMark = heapMb();
		}
		const heapEnd = heapMb();
		if (wrong > 0) throw new Error(`${wrong} calls during the soak did not answer with the last good version`);
		console.log(
			`info: soak of ${SOAK} edits (every other one broken): every call answered with the last good version; heap ${heapStart.toFixed(1)} MB before, ${heapAtMark.toFixed(1)} MB after ${HEAP_MARK}, ${heapEnd.toFixed(1)} MB after ${SOAK}`,
		);
		report(
			`soak: heap after ${SOAK} reloads vs after the first ${HEAP_MARK}`,
			heapEnd / heapAtMark,
			1.5,
			`${heapEnd.toFixed(1)} MB vs ${heapAtMark.toFixed(1)} MB`,
		);
	} finally {
		await host.close();
		rmSync(root, { recursive: true, force: true });
	}
	finish();
}

await main();

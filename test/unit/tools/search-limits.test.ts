/**
 * Hostile inputs to grep and find: huge context and limit, globs with many `*`, regexes that
 * backtrack, very long lines and literal punctuation. Each must give a result or a clear error in
 * bounded time and memory, the same on every env and on both Node paths (fast path and walker).
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { createFindTool } from "../../../src/tools/find.js";
import { createGrepTool, type GrepToolParams } from "../../../src/tools/grep.js";
import {
	allToolEnvs,
	contextFor,
	type FixtureFiles,
	nodeFixture,
	stopToolEnvs,
	type ToolFixture,
	textOf,
} from "./_env.js";

const grep = createGrepTool();
const find = createFindTool();

/** The Node env without rg and fd: the walker over its own file methods. */
async function nodeWalkerFixture(spec: FixtureFiles = {}): Promise<ToolFixture> {
	const fx = await nodeFixture(spec);
	const env = new NodeExecutionEnv({
		cwd: fx.env.cwd,
		tempDir: (fx.env as NodeExecutionEnv).tempDir,
		searchBinaries: false,
	});
	return { ...fx, env, ctx: contextFor(env) };
}

const envs: [string, (spec?: FixtureFiles) => Promise<ToolFixture>][] = [
	...(await allToolEnvs()),
	["node without rg and fd", nodeWalkerFixture],
];
afterAll(stopToolEnvs);

describe.each(envs)("search limits on %s", (_name, make) => {
	let fx: ToolFixture;
	afterEach(async () => fx?.cleanup());
	const call = (args: GrepToolParams, signal?: AbortSignal) => grep.execute("id", args, signal, undefined, fx.ctx);

	it("a literal holding every ASCII punctuation character is found as it is", async () => {
		const punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
		fx = await make({ files: { "a.txt": `x foo-bar\nq ${punctuation} q\n` } });
		expect(textOf(await call({ pattern: "foo-bar", literal: true }))).toBe("a.txt:1: x foo-bar");
		expect(textOf(await call({ pattern: punctuation, literal: true }))).toBe(`a.txt:2: q ${punctuation} q`);
		expect(textOf(await call({ pattern: `Q ${punctuation}`, literal: true, ignoreCase: true }))).toBe(
			`a.txt:2: q ${punctuation} q`,
		);
	});

	it("a regex that backtracks exponentially elsewhere runs in linear time", async () => {
		fx = await make({ files: { "f.txt": `${"a".repeat(5000)}!\n${"a".repeat(30)}\n` } });
		const started = Date.now();
		expect(textOf(await call({ pattern: "(a+)+$" }))).toBe(`f.txt:2: ${"a".repeat(30)}`);
		expect(textOf(await call({ pattern: "^(a|aa)+$", path: "f.txt" }))).toBe(`f.txt:2: ${"a".repeat(30)}`);
		// Before, the first pattern alone took longer than a minute on 30 characters.
		expect(Date.now() - started).toBeLessThan(2000);
	});

	it("refuses lookaround and backreferences by name, and takes RE2 syntax", async () => {
		fx = await make({ files: { "f.txt": "Needle\nabc\n" } });
		await expect(call({ pattern: "a(?=b)" })).rejects.toThrow(
			/^Invalid regular expression "a\(\?=b\)": .*linear-time engine \(RE2 syntax/,
		);
		await expect(call({ pattern: "(a)\\1" })).rejects.toThrow(
			/^Invalid regular expression "\(a\)\\\\1": .*no lookaround or backreferences/,
		);
		expect(textOf(await call({ pattern: "(?i)needle" }))).toBe("f.txt:1: Needle");
		expect(textOf(await call({ pattern: "^[[:alpha:]]{3}$" }))).toBe("f.txt:2: abc");
	});

	it("globs with many * compile to a linear matcher, in find and in grep", async () => {
		fx = await make({ files: { [`${"a".repeat(40)}`]: "x\n", "ab.txt": "x\n" } });
		const glob = `${"*a".repeat(12)}*b`;
		const started = Date.now();
		expect(textOf(await find.execute("id", { pattern: glob }, undefined, undefined, fx.ctx))).toBe(
			"No files found matching pattern",
		);
		expect(textOf(await call({ pattern: "x", glob }))).toBe("No matches found");
		expect(textOf(await find.execute("id", { pattern: "*a*b*" }, undefined, undefined, fx.ctx))).toBe("ab.txt");
		// Before, 12 pairs never finished (9 took 8 s with the event loop blocked).
		expect(Date.now() - started).toBeLessThan(2000);
	});

	it("a huge context and limit stay within the output budget, and the clamp is said", async () => {
		// 20,000 matching lines: each match used to copy every line of the file as its context.
		fx = await make({ files: { "big.txt": "line e 12345\n".repeat(20_000) } });
		const started = Date.now();
		const result = await call({ pattern: "e", context: 1e9, limit: 1e9 });
		expect(Date.now() - started).toBeLessThan(10_000);
		const text = textOf(result);
		expect(text.startsWith("big.txt:1: line e 12345\nbig.txt-2- line e 12345\n")).toBe(true);
		expect(text).toMatch(
			/\[50\.0KB limit reached\. context held to 8534 lines, the most the 50\.0KB output can show\]$/,
		);
		expect(Buffer.byteLength(text)).toBeLessThan(52_000);
		expect(result.details).toMatchObject({ contextLimited: 8534, truncation: { truncated: true } });
		// The limit notice still comes from the count of every match.
		const counted = await call({ pattern: "e", context: 3, limit: 20_000 });
		expect(textOf(counted)).toMatch(/\[20000 matches limit reached\. Use limit=40000/);
	});

	it("a line of many megabytes is matched in linear time; past 8 MiB it is not matched", async () => {
		const mib = 1024 * 1024;
		fx = await make({
			files: {
				"long.txt": `needle${"x".repeat(12 * mib)}\n`,
				"late.txt": `${"x".repeat(9 * mib)}needle\n`,
			},
		});
		const started = Date.now();
		const text = textOf(await call({ pattern: "needle" }));
		expect(text).toBe(
			`long.txt:1: needle${"x".repeat(494)}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]`,
		);
		expect(Date.now() - started).toBeLessThan(5000);
	});

	it("an abort is honoured within a second while long lines are scanned", async () => {
		const mib = 1024 * 1024;
		const files: Record<string, string> = {};
		for (let i = 0; i < 6; i++) files[`f${i}.txt`] = `${"y".repeat(7 * mib)}\nyy\n`;
		fx = await make({ files });
		const controller = new AbortController();
		let abortedAt = 0;
		const abort = () => {
			if (abortedAt === 0) {
				abortedAt = Date.now();
				controller.abort();
			}
		};
		// Aborted while the scan is surely under way: when the env is asked for a second file (the
		// walker), or after 100 ms (a fast path that reads through its own program).
		let reads = 0;
		const env = new Proxy(fx.env, {
			get(target, key) {
				const value: unknown = Reflect.get(target, key);
				if (typeof value !== "function") return value;
				return (...args: unknown[]) => {
					if (typeof key === "string" && key.startsWith("read") && ++reads === 2) abort();
					return Reflect.apply(value, target, args);
				};
			},
		});
		const timer = setTimeout(abort, 100);
		const outcome = grep
			.execute("id", { pattern: "(y+)+z|yy$", limit: 1000 }, controller.signal, undefined, contextFor(env))
			.then(
				() => "resolved",
				(error: unknown) => String(error),
			);
		const settled = await outcome;
		clearTimeout(timer);
		// Scanning the 42 MB takes longer than this; before, an abort waited for the whole scan.
		expect(abortedAt).toBeGreaterThan(0);
		expect(settled).toMatch(/abort/i);
		expect(Date.now() - abortedAt).toBeLessThan(1000);
	});
});

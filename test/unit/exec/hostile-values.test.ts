/**
 * Hostile thrown values: whatever a tool, hook or listener throws, every call of the batch gets a
 * result, the healthy calls succeed, and nothing escapes as an unhandled rejection or exception.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorMessage } from "../../../src/contract/errors.js";
import { createExtensionHost } from "../../../src/extensions/node-host.js";
import { createToolRegistry } from "../../../src/extensions/registry.js";
import { type AgentTool, type ToolDefinition, Type } from "../../../src/index.js";
import { type ExecuteToolCallsConfig, type ExecuteToolCallsResult, executeToolCalls } from "../../../src/runtime.js";
import { call, text, tool } from "./_helpers.js";

function hostileValues(): [string, unknown][] {
	const cyclic: Record<string, unknown> = Object.create(null);
	cyclic.self = cyclic;
	const badMessage = new Error("hidden");
	Object.defineProperty(badMessage, "message", {
		get() {
			throw cyclic;
		},
	});
	const throwing = () => {
		throw cyclic;
	};
	const proxy = new Proxy({}, { get: throwing, getPrototypeOf: throwing, ownKeys: throwing, has: throwing });
	const revocable = Proxy.revocable({}, {});
	revocable.revoke();
	const badToJson = Object.create(null);
	badToJson.toJSON = throwing;
	return [
		["a null-prototype cyclic object", cyclic],
		["an Error whose message getter throws", badMessage],
		["a Proxy whose traps throw", proxy],
		["a revoked Proxy", revocable.proxy],
		["an object whose toJSON throws", badToJson],
		["a BigInt", 10n],
		["a Symbol", Symbol("s")],
	];
}

const seen: unknown[] = [];
const onUnhandled = (reason: unknown) => seen.push(reason);
beforeEach(() => {
	seen.length = 0;
	process.on("unhandledRejection", onUnhandled);
	process.on("uncaughtException", onUnhandled);
});
afterEach(async () => {
	await new Promise((resolve) => setTimeout(resolve, 5));
	process.off("unhandledRejection", onUnhandled);
	process.off("uncaughtException", onUnhandled);
	expect(seen).toEqual([]);
});

/** Settles within a second, or fails the test. */
async function settle(batch: Promise<ExecuteToolCallsResult>): Promise<ExecuteToolCallsResult> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error("the batch did not settle")), 1000);
	});
	try {
		return await Promise.race([batch, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

describe("errorMessage", () => {
	it.each(hostileValues())("is total for %s", (_label, value) => {
		const message = errorMessage(value);
		expect(typeof message).toBe("string");
		expect(message.length).toBeGreaterThan(0);
	});

	it("still says what it can", () => {
		const values = hostileValues();
		const cyclic = values[0]?.[1];
		const badMessage = values[1]?.[1];
		expect(errorMessage(cyclic)).toContain("self");
		expect(errorMessage(badMessage)).toBe("Error (its message cannot be read)");
		expect(errorMessage(new Error("plain"))).toBe("plain");
		expect(errorMessage({ a: 1 })).toBe('{"a":1}');
	});
});

type Where = "tool" | "prepareArguments" | "beforeToolCall" | "afterToolCall";
const modes = ["parallel", "sequential"] as const;

describe.each(hostileValues())("thrown %s", (_label, value) => {
	const raise = (sync: boolean) =>
		sync
			? () => {
					throw value;
				}
			: async () => {
					throw value;
				};

	const cases: [Where, boolean, (typeof modes)[number], boolean][] = [];
	for (const where of ["tool", "prepareArguments", "beforeToolCall", "afterToolCall"] as const)
		for (const sync of [true, false])
			for (const mode of modes) for (const events of [false, true]) cases.push([where, sync, mode, events]);

	it.each(cases)(
		"from %s (sync %s, %s, onEvent %s): the bad call fails, the healthy one succeeds",
		async (where, sync, mode, events) => {
			const throwIt = raise(sync);
			const bad = tool("bad", where === "tool" ? (throwIt as AgentTool["execute"]) : async () => text("bad ran"), {
				...(where === "prepareArguments"
					? {
							prepareArguments: () => {
								throw value;
							},
						}
					: {}),
			});
			const good = tool("good", async () => text("fine"));
			const onlyBad =
				<T>(hook: () => T) =>
				(context: { toolCall: { name: string } }) =>
					context.toolCall.name === "bad" ? hook() : undefined;
			const config: ExecuteToolCallsConfig = {
				tools: [bad, good],
				toolExecution: mode,
				...(where === "beforeToolCall"
					? { beforeToolCall: onlyBad(throwIt) as ExecuteToolCallsConfig["beforeToolCall"] }
					: {}),
				...(where === "afterToolCall"
					? { afterToolCall: onlyBad(throwIt) as ExecuteToolCallsConfig["afterToolCall"] }
					: {}),
				...(events ? { onEvent: raise(true) } : {}),
			};
			const { results } = await settle(executeToolCalls([call("1", "bad"), call("2", "good")], config));
			expect(results.map((r) => r.isError)).toEqual([true, false]);
			expect(results[1]?.content).toEqual([{ type: "text", text: "fine" }]);
			const first = results[0]?.content[0];
			expect(first?.type === "text" && first.text.length > 0).toBe(true);
		},
	);

	it("through a registry's tools and handlers", async () => {
		for (const sync of [true, false]) {
			const registry = createToolRegistry({ context: () => ({}) as never });
			const definition = (name: string, execute: ToolDefinition["execute"]): ToolDefinition => ({
				name,
				label: name,
				description: `The ${name} tool.`,
				parameters: Type.Object({}),
				execute,
			});
			registry.register(definition("bad", raise(sync) as ToolDefinition["execute"]));
			registry.register(definition("good", async () => text("fine")));
			registry.setHandlers("/ext.ts", { tool_result: [raise(sync) as never] });
			for (const mode of modes) {
				const { results } = await settle(
					executeToolCalls([call("1", "bad"), call("2", "good")], {
						...registry.executorConfig(),
						toolExecution: mode,
					}),
				);
				expect(results.map((r) => r.isError)).toEqual([true, false]);
				expect(results[1]?.content).toEqual([{ type: "text", text: "fine" }]);
			}
		}
	});
});

describe("through createExtensionHost().execute", () => {
	const dir = mkdtempSync(join(tmpdir(), "toolsmith-hostile-"));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("every hostile value, sync and async, parallel and sequential", async () => {
		const values = hostileValues();
		const definitions: ToolDefinition[] = values.flatMap(([, value], index) => [
			{
				name: `sync${index}`,
				label: "s",
				description: "Throws synchronously.",
				parameters: Type.Object({}),
				execute: () => {
					throw value;
				},
			},
			{
				name: `async${index}`,
				label: "a",
				description: "Rejects.",
				parameters: Type.Object({}),
				execute: async () => {
					throw value;
				},
			},
		]);
		definitions.push({
			name: "good",
			label: "g",
			description: "Works.",
			parameters: Type.Object({}),
			execute: async () => text("fine"),
		});
		const host = createExtensionHost({ paths: [], cwd: dir, builtins: definitions });
		try {
			await host.ready;
			const calls = [...definitions.map((d, i) => call(`c${i}`, d.name)), call("last", "good")];
			for (const mode of modes) {
				const { results } = await settle(host.execute(calls, { toolExecution: mode }));
				expect(results.map((r) => r.isError)).toEqual([...values.flatMap(() => [true, true]), false, false]);
			}
		} finally {
			await host.close();
		}
	});
});

describe("a call whose id is a hostile value", () => {
	it.each(hostileValues().filter(([, v]) => typeof v === "object" && v !== null))(
		"an id that is %s still runs the named tool",
		async (_label, value) => {
			const good = tool("good", async () => text("fine"));
			const hostileCall = { type: "toolCall", id: value, name: "good", arguments: {} } as never;
			const { results } = await settle(executeToolCalls([hostileCall], { tools: [good] }));
			expect(results[0]?.isError).toBe(false);
			expect(results[0]?.content).toEqual([{ type: "text", text: "fine" }]);
		},
	);
});

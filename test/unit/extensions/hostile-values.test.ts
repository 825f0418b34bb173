/**
 * Hostile values an extension hands over: the headless UI logs whatever reaches notify as text,
 * and api.exec refuses words that are not strings with a clear result; neither throws.
 */
import { describe, expect, it } from "vitest";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { toolSignature } from "../../../src/extensions/_tool-changes.js";
import { createHeadlessUI } from "../../../src/extensions/_ui.js";
import type { ExtensionAPI } from "../../../src/extensions/api.js";
import { validateToolDefinition } from "../../../src/extensions/registry.js";
import { createExtensionRuntime } from "../../../src/extensions/runtime.js";
import { hostileObjects, hostileValues, revoked } from "../contract/_hostile.js";

describe("headless UI: notify given a hostile value", () => {
	it.each(hostileValues())("notify(%s) reaches the log as text", (_name, value) => {
		const logged: string[] = [];
		const ui = createHeadlessUI((message) => logged.push(message));
		expect(() => ui.notify(value as string, "info")).not.toThrow();
		expect(logged).toHaveLength(1);
		expect(typeof logged[0]).toBe("string");
	});
});

describe("api.exec given hostile words", () => {
	async function activeApi(): Promise<{ api: ExtensionAPI; env: MemoryExecutionEnv }> {
		const env = new MemoryExecutionEnv({ commands: [{ match: /.*/, run: () => ({ stdout: "ran" }) }] });
		const runtime = createExtensionRuntime({ env, builtins: [] });
		let api: ExtensionAPI | undefined;
		await runtime.activate("/ext/h.ts", (given) => {
			api = given;
		});
		if (!api) throw new Error("the extension did not activate");
		return { api, env };
	}

	it.each(hostileObjects())("an argument that is %s is refused, naming it, and nothing runs", async (_name, value) => {
		const { api, env } = await activeApi();
		const result = await api.exec("echo", ["ok", value as string]);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain("api.exec: args[1] must be a string");
		expect(env.commandLog).toHaveLength(0);
	});

	it("args that are not an array, or cannot be read, are refused", async () => {
		const { api, env } = await activeApi();
		expect((await api.exec("echo", Object.create(null) as string[])).stderr).toContain(
			"api.exec: args must be an array of strings",
		);
		expect((await api.exec("echo", revoked() as string[])).stderr).toContain("api.exec: args cannot be read");
		expect((await api.exec(Object.create(null) as string, [])).stderr).toContain("api.exec: command must be a string");
		expect(env.commandLog).toHaveLength(0);
	});

	it("numbers and booleans are still written out", async () => {
		const { api } = await activeApi();
		expect(await api.exec("echo", [1 as unknown as string, true as unknown as string])).toMatchObject({
			stdout: "ran",
			code: 0,
		});
	});
});

describe("toolSignature of a tool whose functions have a hostile toString", () => {
	it("is stable, so the tool is not reported changed on every reload", () => {
		const execute = async () => ({ content: [], details: {} });
		Object.defineProperty(execute, "toString", {
			value: () => {
				throw new Error("no source");
			},
		});
		const definition = { name: "t", label: "t", description: "d", parameters: {}, execute } as never;
		expect(toolSignature(definition)).toBe(toolSignature(definition));
		expect(toolSignature(definition)).toContain("async () =>");
	});
});

describe("validateToolDefinition of a definition whose name is hostile", () => {
	it.each([["a BigInt", 10n] as [string, unknown], ...hostileObjects()])(
		"a name that is %s is a problem, not a throw",
		(_name, value) => {
			const problems = validateToolDefinition({ name: value, description: "d", parameters: {}, execute() {} });
			expect(problems.some((p) => p.startsWith("name ") && p.includes("must match"))).toBe(true);
		},
	);
});

/**
 * A hostile value given where an env expects a command or path, or thrown by an operations
 * callback, becomes a clear error result: never a throw or a rejection.
 */
import { describe, expect, it } from "vitest";
import type { ExecutionEnv } from "../../../src/contract/env.js";
import { createOperationsEnv } from "../../../src/env/from-operations.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { hostileObjects } from "../contract/_hostile.js";

const envs: [string, () => Promise<ExecutionEnv>][] = [
	["memory", async () => new MemoryExecutionEnv({ cwd: "/w" })],
	["node", async () => new NodeExecutionEnv({ cwd: process.cwd() })],
];

describe.each(envs)("%s env: a hostile command or path is an error result", (_, make) => {
	it.each(hostileObjects())("exec(%s) resolves to invalid_argument", async (_name, value) => {
		const env = await make();
		const result = await env.exec(value as string);
		expect(result.ok).toBe(false);
		expect(!result.ok && result.error.code).toBe("invalid_argument");
	});

	it("absolutePath of a null-prototype object is invalid_path", async () => {
		const env = await make();
		const result = env.absolutePath(Object.create(null) as string);
		expect(!result.ok && result.error.code).toBe("invalid_path");
	});
});

describe("createOperationsEnv: callbacks that throw hostile values", () => {
	it.each(hostileObjects())("exec rejecting with %s is a spawn_error result", async (_name, value) => {
		const env = createOperationsEnv({ exec: async () => Promise.reject(value) }, { cwd: "/w" });
		const result = await env.exec("echo hi");
		expect(result.ok).toBe(false);
		expect(!result.ok && result.error.code).toBe("spawn_error");
		expect(!result.ok && result.error.message).toContain("the operations' exec failed");
	});

	it.each(hostileObjects())("readFile throwing %s is an io_error naming the path", async (_name, value) => {
		const env = createOperationsEnv(
			{
				readFile: async () => {
					throw value;
				},
			},
			{ cwd: "/w" },
		);
		const result = await env.readTextFile("a.txt");
		expect(!result.ok && result.error.code).toBe("io_error");
		expect(!result.ok && result.error.message).toContain("/w/a.txt");
	});
});

import { describe, expect, it } from "vitest";
import type { ExecOptions } from "../../../src/contract/env.js";
import type { ToolContext } from "../../../src/contract/tool.js";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { createBashTool } from "../../../src/tools/bash.js";

const MB = 1024 * 1024;
const CHUNKS = 30;

/** A memory env whose spill-file appends wait for a gate, and which counts delivered output chunks. */
class SlowDiskEnv extends MemoryExecutionEnv {
	delivered = 0;
	private gate: Promise<void>;
	private openGate!: () => void;

	constructor() {
		super({
			commands: [
				{
					match: "flood",
					chunks: Array.from({ length: CHUNKS }, () => ({
						stream: "stdout" as const,
						data: `${"y".repeat(MB - 1)}\n`,
					})),
				},
			],
		});
		this.gate = new Promise((resolve) => {
			this.openGate = resolve;
		});
	}

	open(): void {
		this.openGate();
	}

	override async appendFile(path: string, data: string | Uint8Array) {
		await this.gate;
		return super.appendFile(path, data);
	}

	override exec(command: string, options: ExecOptions = {}) {
		const onStdout = options.onStdout;
		return super.exec(command, {
			...options,
			onStdout: (chunk) => {
				this.delivered++;
				return onStdout?.(chunk);
			},
		});
	}
}

const ui: ToolContext["ui"] = {
	select: async () => undefined,
	confirm: async () => false,
	input: async () => undefined,
	notify: () => undefined,
};

describe("bash backpressure", () => {
	it("holds the command while its spill file lags, then delivers everything", async () => {
		const env = new SlowDiskEnv();
		const bash = createBashTool();
		const running = bash.execute("id", { command: "flood" }, undefined, undefined, {
			env,
			cwd: env.cwd,
			hasUI: false,
			ui,
		});
		// Let the scripted shell run as far as it is allowed to while no append can finish.
		for (let i = 0; i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 1));
		expect(env.delivered).toBeGreaterThan(0);
		// Without backpressure all 30 MB would be delivered (and queued in memory) by now.
		expect(env.delivered).toBeLessThan(10);
		env.open();
		const result = await running;
		expect(env.delivered).toBe(CHUNKS);
		const details = result.details as { fullOutputPath?: string };
		expect(details.fullOutputPath).toBeDefined();
		const spilled = await env.readBinaryFile(details.fullOutputPath as string);
		expect(spilled.ok && spilled.value.length).toBe(CHUNKS * MB);
	});
});

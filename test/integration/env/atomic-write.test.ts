/**
 * NodeExecutionEnv.writeFile is atomic against a crash: a writer killed with SIGKILL at any moment
 * leaves the old content or a complete new one, never a torn mix.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const jitiCli = join(createRequire(import.meta.url).resolve("jiti/package.json"), "..", "lib", "jiti-cli.mjs");
const writer = fileURLToPath(new URL("./_atomic-writer.ts", import.meta.url));
const SIZE = 8 * 1024 * 1024;

/** Start the writer, kill it `delayMs` after it announced that it starts writing, wait for it to end. */
function killWriterAfter(file: string, delayMs: number): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [jitiCli, writer, file, String(SIZE)], { stdio: ["ignore", "pipe", "pipe"] });
		let stderr = "";
		child.stderr.on("data", (chunk) => (stderr += chunk));
		child.stdout.once("data", () => setTimeout(() => child.kill("SIGKILL"), delayMs));
		child.once("error", reject);
		child.once("close", (code, signal) => {
			if (signal === "SIGKILL") resolve(stderr);
			else reject(new Error(`writer ended on its own (code ${code}): ${stderr}`));
		});
	});
}

describe("NodeExecutionEnv atomic writes", () => {
	let root: string | undefined;
	afterEach(async () => {
		if (root) await fs.rm(root, { recursive: true, force: true });
	});

	it("leaves the old or the new content when the writer is SIGKILLed mid-write", { timeout: 60_000 }, async () => {
		root = await fs.mkdtemp(join(tmpdir(), "toolsmith-atomic-"));
		const file = join(root, "big.bin");
		for (const delayMs of [0, 3, 10, 25, 60, 120]) {
			await fs.writeFile(file, Buffer.alloc(SIZE, 0x41));
			await killWriterAfter(file, delayMs);
			const content = await fs.readFile(file);
			expect(content.byteLength).toBe(SIZE);
			const first = content[0]!;
			expect([0x41, 0x42, 0x43]).toContain(first);
			// Uniform content: every byte equals the first one, so no write was torn.
			expect(content.equals(Buffer.alloc(SIZE, first))).toBe(true);
		}
	});
});

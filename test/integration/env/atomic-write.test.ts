/**
 * writeFile is atomic against a crash: a writer killed with SIGKILL at any moment leaves the old
 * content or a complete new one, never a torn mix. Through NodeExecutionEnv, and through
 * SshExecutionEnv over a loopback sshd (the writer dies with its ssh clients, cutting the payload
 * or the remote helper anywhere on the way).
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sharedSshdStart, stopSharedSshd } from "./_fixtures.js";

const jitiCli = join(createRequire(import.meta.url).resolve("jiti/package.json"), "..", "lib", "jiti-cli.mjs");
const writer = fileURLToPath(new URL("./_atomic-writer.ts", import.meta.url));
const SIZE = 8 * 1024 * 1024;

const sshd = (await sharedSshdStart()).sshd;
afterAll(stopSharedSshd);
if (!sshd) console.warn("SSH env atomic-write test skipped: no loopback sshd here");
/** The writer's arguments after the file and size, per env. */
const writers: [string, string[]][] = [["node", []]];
if (sshd) writers.push(["ssh", ["ssh", sshd.host, sshd.configFile]]);

/** Start the writer, kill it `delayMs` after it announced that it starts writing, wait for it to end. */
function killWriterAfter(file: string, delayMs: number, envArgs: readonly string[]): Promise<string> {
	return new Promise((resolve, reject) => {
		// Its temp folder is the test's: what a killed writer leaves (an SSH control socket) goes with it.
		const child = spawn(process.execPath, [jitiCli, writer, file, String(SIZE), ...envArgs], {
			stdio: ["ignore", "pipe", "pipe"],
			env: { ...process.env, TMPDIR: dirname(file) },
		});
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

describe.each(writers)("atomic writes: %s", (_name, envArgs) => {
	let root: string | undefined;
	afterEach(async () => {
		if (root) await fs.rm(root, { recursive: true, force: true });
	});

	it("leaves the old or the new content when the writer is SIGKILLed mid-write", { timeout: 60_000 }, async () => {
		root = await fs.mkdtemp(join(tmpdir(), "toolsmith-atomic-"));
		const file = join(root, "big.bin");
		for (const delayMs of [0, 3, 10, 25, 60, 120]) {
			await fs.writeFile(file, Buffer.alloc(SIZE, 0x41));
			await killWriterAfter(file, delayMs, envArgs);
			const content = await fs.readFile(file);
			expect(content.byteLength).toBe(SIZE);
			const first = content[0]!;
			expect([0x41, 0x42, 0x43]).toContain(first);
			// Uniform content: every byte equals the first one, so no write was torn.
			expect(content.equals(Buffer.alloc(SIZE, first))).toBe(true);
		}
	});
});

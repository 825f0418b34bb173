/** `toolsmith dev --confine` as a real child process: the files and the shell confined to the cwd. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../../src/env/_node-sandbox.js";
import { runCli } from "./_run.js";

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-dev-confine-")));
const project = join(scratch, "project");
mkdirSync(project);
// A name of its own, so a run that escapes the sandbox is seen (and cleaned up) here alone.
const etcFile = `/etc/toolsmith-confine-${process.pid}`;
afterAll(() => {
	rmSync(scratch, { recursive: true, force: true });
	rmSync(etcFile, { force: true });
});

// The sandbox every confined command gets, as the env itself probes for it.
const bwrap = process.platform === "linux" && "sandbox" in (await probeSandbox());

/** The output of each `call` of a dev session, by the line that started it. */
function calls(stdout: string): string[] {
	return stdout.split(/^> /m).slice(1);
}

describe("toolsmith dev --confine (child process, real disk)", () => {
	it("refuses the write tool outside the cwd with permission_denied naming the root, and writes inside", async () => {
		const script = [
			'call write {"path":"../outside.txt","content":"x"}',
			`call write {"path":${JSON.stringify(join(scratch, "abs.txt"))},"content":"x"}`,
			'call write {"path":"inside.txt","content":"inside"}',
		].join("\n");
		const run = await runCli(["dev", "--confine", "--no-watch", "--cwd", project], { input: `${script}\n` });
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("node env (confined)");
		const [outside, absolute, inside] = calls(run.stdout);
		for (const refused of [outside, absolute]) {
			expect(refused).toContain("permission denied");
			expect(refused).toContain(`allows writing only under ${project}`);
			expect(refused).toContain("✗ error");
		}
		expect(inside).toContain("✓ ok");
		expect(existsSync(join(scratch, "outside.txt"))).toBe(false);
		expect(existsSync(join(scratch, "abs.txt"))).toBe(false);
		expect(readFileSync(join(project, "inside.txt"), "utf8")).toBe("inside");
	});

	it.skipIf(!bwrap)(
		"runs bash in the sandbox: writing outside the cwd and to /etc fails and leaves nothing, writing inside works (skipped where bwrap cannot run)",
		async () => {
			const script = [
				'call bash {"command":"echo x > ../outside.txt"}',
				`call bash {"command":"touch ${etcFile}"}`,
				'call bash {"command":"echo y > made.txt && cat made.txt"}',
			].join("\n");
			const run = await runCli(["dev", "--confine", "--no-watch", "--cwd", project], { input: `${script}\n` });
			expect(run.stderr).toBe("");
			const [outside, etc, inside] = calls(run.stdout);
			for (const refused of [outside, etc]) {
				expect(refused).toContain("Read-only file system");
				expect(refused).toContain("✗ error");
			}
			expect(inside).toContain("✓ ok");
			expect(existsSync(join(scratch, "outside.txt"))).toBe(false);
			expect(existsSync(etcFile)).toBe(false);
			expect(readFileSync(join(project, "made.txt"), "utf8")).toBe("y\n");
		},
	);

	it.skipIf(!bwrap)(
		"keeps bash from remounting the disk writable, even as root (skipped where bwrap cannot run)",
		async () => {
			const remount = "mount -o remount,bind,rw / ; echo x > ../outside.txt";
			const run = await runCli(["dev", "--confine", "--no-watch", "--cwd", project], {
				input: `call bash ${JSON.stringify({ command: remount })}\n`,
			});
			const [call] = calls(run.stdout);
			expect(call).toContain("Read-only file system");
			expect(call).toContain("✗ error");
			expect(existsSync(join(scratch, "outside.txt"))).toBe(false);
		},
	);

	it.skipIf(!bwrap)(
		"hides the disk outside the cwd from bash under --confine-reads (skipped where bwrap cannot run)",
		async () => {
			writeFileSync(join(scratch, "secret.txt"), "secret");
			const script = ['call bash {"command":"cat ../secret.txt"}', 'call bash {"command":"cat inside.txt"}'].join("\n");
			const run = await runCli(["dev", "--confine-reads", "--no-watch", "--cwd", project], { input: `${script}\n` });
			expect(run.stdout).toContain("node env (confined, reads too)");
			const [secret, inside] = calls(run.stdout);
			expect(secret).toContain("No such file or directory");
			expect(secret).not.toContain("✓ ok");
			expect(inside).toContain("✓ ok");
		},
	);
});

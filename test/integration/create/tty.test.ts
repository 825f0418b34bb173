/**
 * `npm create toolsmith` on a real terminal (a pseudo-terminal driven by _pty.py): the questions of
 * the real prompt library answered with keys, and Ctrl-C at a question.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const pty = fileURLToPath(new URL("./_pty.py", import.meta.url));
const bin = fileURLToPath(new URL("../../../create-tool/src/index.ts", import.meta.url));
const jiti = join(dirname(createRequire(import.meta.url).resolve("jiti/package.json")), "lib", "jiti-cli.mjs");

const hasPython = (() => {
	try {
		execFileSync("python3", ["-c", "import pty"], { stdio: "ignore" });
		return true;
	} catch {
		return false;
	}
})();

const folders: string[] = [];
afterEach(() => {
	for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Step {
	readonly expect: string;
	readonly send: string;
}

async function onTerminal(args: string[], steps: Step[]) {
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-tty-")));
	folders.push(cwd);
	const spec = { argv: [process.execPath, jiti, bin, ...args], cwd, steps, timeout: 60 };
	const { stdout } = await run("python3", [pty, JSON.stringify(spec)], { maxBuffer: 16 * 1024 * 1024 });
	const result = JSON.parse(stdout) as { code: number; output: string; missing: string | null };
	return { ...result, cwd };
}

const DOWN = "\u001b[B";
const CTRL_C = "\u0003";

describe.skipIf(!hasPython)("npm create toolsmith on a terminal", () => {
	it("asks for the folder, the template, the install and git, and makes what was chosen", async () => {
		const result = await onTerminal(
			[],
			[
				{ expect: "Where should the project go\\?", send: "tty-tools\r" },
				{ expect: "Which template\\?", send: `${DOWN}${DOWN}${DOWN}\r` },
				{ expect: "Install the dependencies now \\(npm\\)\\?", send: "n" },
				{ expect: "Initialize a git repository\\?", send: "\r" },
				{ expect: "Next:", send: "" },
			],
		);
		expect(result.missing, result.output).toBeNull();
		expect(result.code, result.output).toBe(0);
		expect(result.output).toContain("Created tty-tools from the 'stateful' template");
		const dir = join(result.cwd, "tty-tools");
		expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name).toBe("tty-tools");
		expect(existsSync(join(dir, ".git"))).toBe(true);
		expect(existsSync(join(dir, "node_modules"))).toBe(false);
		expect(result.output).toMatch(/Next:\s+cd tty-tools\s+npm install\s+npm run dev/);
	});

	it("writes nothing when Ctrl-C answers a question", async () => {
		const result = await onTerminal(
			["--no-install"],
			[
				{ expect: "Where should the project go\\?", send: "ctrl-c-tools\r" },
				{ expect: "Which template\\?", send: CTRL_C },
				{ expect: "Cancelled: nothing was written\\.", send: "" },
			],
		);
		expect(result.missing, result.output).toBeNull();
		expect(result.code).toBe(130);
		expect(readdirSync(result.cwd)).toEqual([]);
	});

	it("asks nothing with --yes, even on a terminal", async () => {
		const result = await onTerminal(["quiet", "--yes", "--no-install", "--no-git"], [{ expect: "Next:", send: "" }]);
		expect(result.code, result.output).toBe(0);
		expect(result.output).not.toContain("Which template");
		expect(readdirSync(result.cwd)).toEqual(["quiet"]);
	});
});

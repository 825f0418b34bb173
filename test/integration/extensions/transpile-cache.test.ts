/**
 * jiti's transpile cache is code: a cached file that ends with the right source hash is run as the
 * module it names. jiti's default folders are `node_modules/.cache/jiti` under the working folder
 * (where confined tools write) and `<tmp>/jiti` (which any local user can make first). An
 * attacker plants an entry in both, the way jiti itself writes them, and `toolsmith dev` loads the
 * extension: the planted code must not run. The folder toolsmith uses instead is private.
 */
import { execFileSync } from "node:child_process";
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJiti } from "jiti";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../cli/_run.js";

const scratch = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-transpile-cache-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const extension = join(scratch, "ext", "tool.ts");
const project = join(scratch, "project");
const sharedTmp = join(scratch, "tmp");
const home = join(scratch, "home");
const mark = join(scratch, "planted-code-ran");

/** Loads the extension with jiti as toolsmith does, caching in `folder`. */
function loadThroughCache(folder: string): void {
	const jiti = createJiti(join(scratch, "loader.js"), { moduleCache: false, interopDefault: true, fsCache: folder });
	jiti.evalModule(readFileSync(extension, "utf8"), {
		id: extension,
		filename: extension,
		ext: ".ts",
		async: false,
		forceTranspile: true,
	});
}

/** Fills `folder` with jiti's own cache entry for the extension, then puts the attacker's line first. */
function plant(folder: string): string[] {
	mkdirSync(folder, { recursive: true });
	loadThroughCache(folder);
	const files = readdirSync(folder).map((name) => join(folder, name));
	for (const file of files) {
		writeFileSync(
			file,
			`require("node:fs").writeFileSync(${JSON.stringify(mark)}, "ran");\n${readFileSync(file, "utf8")}`,
		);
	}
	return files;
}

beforeAll(() => {
	mkdirSync(join(scratch, "ext"));
	writeFileSync(extension, "export default function (_api: unknown) {}\n");
	mkdirSync(project);
	mkdirSync(home);
	plant(join(project, "node_modules", ".cache", "jiti"));
	plant(join(sharedTmp, "jiti"));
});

describe("the transpile cache extensions are loaded through", () => {
	it("runs a planted entry when jiti is left to its defaults (the attack is real)", () => {
		const folder = join(scratch, "control");
		const [file] = plant(folder);
		expect(file).toBeDefined();
		loadThroughCache(folder);
		expect(existsSync(mark)).toBe(true);
		rmSync(mark);
	});

	it("never uses jiti's default folders: toolsmith dev loads the extension and the planted code does not run", async () => {
		const run = await runCli(["dev", extension, "--no-watch"], {
			cwd: project,
			input: "tools\n",
			env: { TMPDIR: sharedTmp, HOME: home, XDG_CACHE_HOME: undefined, JITI_FS_CACHE: undefined },
		});
		expect(run.code).toBe(0);
		expect(run.stderr).toBe("");
		expect(existsSync(mark)).toBe(false);
		// It cached in the user's own folder instead, private to the user.
		const own = join(home, ".cache", "toolsmith", "jiti");
		expect(readdirSync(own).length).toBeGreaterThan(0);
		expect(statSync(own).mode & 0o077).toBe(0);
	});

	it("uses no cache rather than a folder another user made first (needs root to make it another user's)", async (context) => {
		if (process.getuid?.() !== 0) context.skip("only root can make a folder another user's");
		// A HOME that cannot hold a cache (a file), and the fallback under TMPDIR made first by
		// another user, open to all, with an entry planted.
		const open = join(sharedTmp, "toolsmith-jiti-0");
		plant(open);
		execFileSync("chmod", ["0777", open]);
		execFileSync("chown", ["-R", "65534:65534", open]);
		const notAFolder = join(scratch, "home-file");
		writeFileSync(notAFolder, "");
		const run = await runCli(["dev", extension, "--no-watch"], {
			cwd: project,
			input: "tools\n",
			env: { TMPDIR: sharedTmp, HOME: notAFolder, XDG_CACHE_HOME: undefined },
		});
		expect(run.code).toBe(0);
		expect(run.stderr).toBe("");
		expect(existsSync(mark)).toBe(false);
	});
});

/**
 * The compat tool factories honor `operations` and bash's `spawnHook`: a pi extension that sends
 * read/write/edit/bash to another world (a fake remote: a second folder; a fake sandbox: a wrapper
 * script; bubblewrap when installed) has its tools act there, never on the local folder.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { type LoadExtensionsResult, loadExtensions } from "../../../src/extensions/node-loader.js";
import { runTool } from "./_run-tool.js";

const remoteExtension = `
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile, access } from "node:fs/promises";
import { createBashTool, createEditTool, createReadTool, createWriteTool } from "@mariozechner/pi-coding-agent";

export default function (pi) {
	const local = process.env.OPS_LOCAL;
	const remote = process.env.OPS_REMOTE;
	const calls = [];
	globalThis.__opsCalls = calls;
	const there = (p) => p.replace(local, remote);
	const files = {
		readFile: (p) => { calls.push("readFile"); return readFile(there(p)); },
		access: (p) => { calls.push("access"); return access(there(p)); },
		writeFile: (p, c) => { calls.push("writeFile"); return writeFile(there(p), c); },
		mkdir: (d) => { calls.push("mkdir"); return mkdir(there(d), { recursive: true }).then(() => {}); },
	};
	const exec = (command, cwd, { onData, signal, timeout, env }) => new Promise((resolve, reject) => {
		calls.push("exec");
		const child = spawn("bash", ["-c", command], { cwd: there(cwd), env, stdio: ["ignore", "pipe", "pipe"] });
		child.stdout.on("data", onData);
		child.stderr.on("data", onData);
		child.on("close", (code) => (signal?.aborted ? reject(new Error("aborted")) : resolve({ exitCode: code })));
	});
	for (const [name, make] of [["read", createReadTool], ["write", createWriteTool], ["edit", createEditTool]]) {
		const base = make(local);
		pi.registerTool({ ...base, name: "remote_" + name, execute: (id, params, signal, onUpdate) =>
			make(local, { operations: files }).execute(id, params, signal, onUpdate) });
	}
	const bash = createBashTool(local, {
		operations: { exec },
		spawnHook: ({ command, cwd, env }) => ({ command: "echo hooked; " + command, cwd, env: { ...env, HOOKED: "yes" } }),
	});
	pi.registerTool({ ...bash, name: "remote_bash" });
	// pi's WriteOperations are writeFile and mkdir only (no access, no readFile).
	const writeOnly = createWriteTool(local, { operations: { writeFile: files.writeFile, mkdir: files.mkdir } });
	pi.registerTool({ ...writeOnly, name: "write_only" });
	const sandboxed = createBashTool(local, {
		operations: { exec: (command, cwd, options) => exec(process.env.OPS_WRAPPER + " " + JSON.stringify(command), cwd, options) },
	});
	pi.registerTool({ ...sandboxed, name: "sandbox_bash" });
}
`;

const shellPathExtension = `
import { createBashTool } from "@mariozechner/pi-coding-agent";
export default function (pi) {
	pi.registerTool(createBashTool(process.cwd(), { shellPath: "/bin/sh" }));
}
`;

const ignoredOptionExtension = `
import { createReadTool } from "@mariozechner/pi-coding-agent";
export default function (pi) {
	pi.registerTool({ ...createReadTool(process.cwd(), { autoResizeImages: false }), name: "plain_read" });
}
`;

describe("compat factories honor operations and spawnHook", () => {
	let root: string;
	let local: string;
	let remote: string;
	let loaded: LoadExtensionsResult;
	const saved = { ...process.env };

	beforeAll(async () => {
		root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-ops-")));
		local = join(root, "local");
		remote = join(root, "remote");
		mkdirSync(local);
		mkdirSync(remote);
		writeFileSync(join(remote, "notes.txt"), "remote one\nremote two\n");
		writeFileSync(join(local, "notes.txt"), "local one\n");
		const wrapper = join(root, "fake-sandbox.sh");
		writeFileSync(
			wrapper,
			`#!/bin/bash\necho "$1" >> ${JSON.stringify(join(root, "sandbox.log"))}\nexec bash -c "$1"\n`,
			{
				mode: 0o755,
			},
		);
		process.env.OPS_LOCAL = local;
		process.env.OPS_REMOTE = remote;
		// Bubblewrap when it is installed and usable; otherwise the recording wrapper alone.
		process.env.OPS_WRAPPER = bwrapWrapper(root) ?? wrapper;
		writeFileSync(join(root, "remote-ext.mjs"), remoteExtension);
		loaded = await loadExtensions([join(root, "remote-ext.mjs")], {
			cwd: local,
			env: new NodeExecutionEnv({ cwd: local }),
		});
	});

	afterAll(() => {
		for (const key of ["OPS_LOCAL", "OPS_REMOTE", "OPS_WRAPPER"]) {
			if (saved[key] === undefined) delete process.env[key];
		}
		rmSync(root, { recursive: true, force: true });
	});

	const run = (name: string, args: unknown) => runTool(loaded, name, args);
	const calls = () => (globalThis as { __opsCalls?: string[] }).__opsCalls ?? [];

	it("loads without diagnostics", () => {
		expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
	});

	it("read goes through operations.readFile (the remote file, not the local one)", async () => {
		const result = await run("remote_read", { path: "notes.txt" });
		expect(result.isError).toBe(false);
		expect(result.text).toContain("remote two");
		expect(result.text).not.toContain("local one");
		expect(calls()).toContain("readFile");
	});

	it("write and edit go through operations.writeFile/mkdir, leaving the local folder alone", async () => {
		const wrote = await run("remote_write", { path: "sub/new.txt", content: "hello there\n" });
		expect(wrote.isError).toBe(false);
		expect(readFileSync(join(remote, "sub/new.txt"), "utf8")).toBe("hello there\n");
		expect(existsSync(join(local, "sub"))).toBe(false);
		const edited = await run("remote_edit", {
			path: "notes.txt",
			edits: [{ oldText: "remote two", newText: "edited" }],
		});
		expect(edited.isError).toBe(false);
		expect(readFileSync(join(remote, "notes.txt"), "utf8")).toBe("remote one\nedited\n");
		expect(readFileSync(join(local, "notes.txt"), "utf8")).toBe("local one\n");
		expect(calls()).toEqual(expect.arrayContaining(["writeFile", "mkdir"]));
	});

	it("write given only pi's WriteOperations (writeFile, mkdir) writes there, and nothing lands locally", async () => {
		const wrote = await run("write_only", { path: "only/w.txt", content: "w\n" });
		expect(wrote).toEqual({ isError: false, text: "Successfully wrote 2 bytes to only/w.txt" });
		expect(readFileSync(join(remote, "only/w.txt"), "utf8")).toBe("w\n");
		expect(existsSync(join(local, "only"))).toBe(false);
	});

	it("bash runs through operations.exec after the spawnHook (command, cwd, env)", async () => {
		const result = await run("remote_bash", { command: "pwd; echo $HOOKED" });
		expect(result.isError).toBe(false);
		expect(result.text).toBe(`hooked\n${remote}\nyes\n`);
		expect(calls()).toContain("exec");
	});

	it("the sandbox-style exec wraps every command", async () => {
		const result = await run("sandbox_bash", { command: "echo inside" });
		expect(result.isError).toBe(false);
		expect(result.text).toContain("inside");
		expect(readFileSync(join(root, "sandbox.log"), "utf8")).toBe("echo inside\n");
	});

	it("under bubblewrap, the command cannot write outside its folder", async (context) => {
		if (!process.env.OPS_WRAPPER?.endsWith("bwrap-sandbox.sh")) {
			context.skip("bubblewrap is not installed or not usable here");
		}
		const outside = join(root, "escaped.txt");
		const result = await run("sandbox_bash", { command: `echo x > ${JSON.stringify(outside)}` });
		expect(result.isError).toBe(true);
		expect(existsSync(outside)).toBe(false);
	});

	it("an option that changes what runs and is not implemented fails the load, naming option and extension", async () => {
		const path = join(root, "shell-path-ext.mjs");
		writeFileSync(path, shellPathExtension);
		const other = await loadExtensions([path], { cwd: local, env: new NodeExecutionEnv({ cwd: local }) });
		const failed = other.diagnostics.find((d) => d.code === "E_FACTORY_FAILED");
		expect(failed?.path).toBe(path);
		expect(failed?.message).toContain("shellPath");
		expect(failed?.message).toContain(path);
		expect(other.registry.infos().some((info) => info.source === path)).toBe(false);
	});
});

describe("compat factory options toolsmith does not implement", () => {
	it("get a W_UNSUPPORTED_API warning naming the option and the extension", async () => {
		const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-ops-opt-")));
		try {
			const path = join(root, "ignored-option-ext.mjs");
			writeFileSync(path, ignoredOptionExtension);
			const loaded = await loadExtensions([path], { cwd: root, env: new NodeExecutionEnv({ cwd: root }) });
			const warning = loaded.diagnostics.find((d) => d.code === "W_UNSUPPORTED_API");
			expect(warning?.path).toBe(path);
			expect(warning?.message).toContain("autoResizeImages");
			expect(warning?.message).toContain(path);
			expect(loaded.registry.infos().some((info) => info.name === "plain_read")).toBe(true);
		} finally {
			rmSync(root, { recursive: true, force: true });
		}
	});

	it("name an extension under node_modules (a pi package) that calls the factory at its top level", async () => {
		const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-ops-opt-")));
		try {
			const path = join(root, "node_modules", "pi-pkg", "index.mjs");
			mkdirSync(join(root, "node_modules", "pi-pkg"), { recursive: true });
			writeFileSync(
				path,
				`import { createReadTool } from "@mariozechner/pi-coding-agent";
const plain = createReadTool(process.cwd(), { autoResizeImages: false });
export default function (pi) {
	pi.registerTool({ ...plain, name: "plain_read" });
}
`,
			);
			const loaded = await loadExtensions([path], { cwd: root, env: new NodeExecutionEnv({ cwd: root }) });
			expect(loaded.diagnostics.filter((d) => d.code === "W_UNSUPPORTED_API").map((d) => d.path)).toEqual([path]);
		} finally {
			rmSync(root, { recursive: true, force: true });
		}
	});
});

/** A wrapper that runs the command under bubblewrap, when /usr/bin/bwrap exists and works. */
function bwrapWrapper(root: string): string | undefined {
	if (!existsSync("/usr/bin/bwrap")) return undefined;
	const wrapper = join(root, "bwrap-sandbox.sh");
	writeFileSync(
		wrapper,
		`#!/bin/bash\necho "$1" >> ${JSON.stringify(join(root, "sandbox.log"))}\nexec /usr/bin/bwrap --ro-bind / / --dev /dev --bind "$PWD" "$PWD" --chdir "$PWD" bash -c "$1"\n`,
		{ mode: 0o755 },
	);
	const probe = spawnSync("/usr/bin/bwrap", ["--ro-bind", "/", "/", "true"]);
	if (probe.status !== 0) {
		console.warn(`bubblewrap does not work here (${probe.stderr}); the fake sandbox wrapper is used instead`);
		return undefined;
	}
	return wrapper;
}

/**
 * What the SSH env does when things go wrong, against a real loopback sshd (this machine is the
 * remote host, so a local temp folder is the remote folder and a remote pid is a local one): a
 * connection dropped mid-call, a changed or unknown host key, a refused login, a closed port, a
 * host without GNU tools, a bad working folder, awkward file names, and the kill of a remote
 * process tree. The file starts its own sshd: dropping its connections touches no other file.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, promises as fs, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MemoryExecutionEnv } from "../../../src/env/memory.js";
import { mutationScopeOf, withFileMutationQueue } from "../../../src/env/mutation-queue.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { connectSshEnv, SshError, SshExecutionEnv, type SshExecutionEnvOptions } from "../../../src/env/node-ssh.js";
import { osProcessGone } from "../env/_fixtures.js";
import { freePort, type Sshd, startSshd } from "./_sshd.js";

const started = await startSshd();
if (!started.sshd) console.warn(`SSH env failure tests skipped: ${started.reason}`);
const sshd = started.sshd as Sshd;

let root: string;
const envs: SshExecutionEnv[] = [];

/** A new env on the loopback sshd (closed after each test). */
function sshEnv(options: Partial<SshExecutionEnvOptions> = {}): SshExecutionEnv {
	const env = new SshExecutionEnv({
		destination: sshd.host,
		configFile: sshd.configFile,
		cwd: root,
		tempDir: join(root, ".tmp"),
		killGraceMs: 300,
		lingerMs: 2000,
		...options,
	});
	envs.push(env);
	return env;
}

/** A copy of the client config with `change` applied to its text. */
function configWith(name: string, change: (text: string) => string): string {
	const path = join(root, `${name}.ssh_config`);
	writeFileSync(path, change(readFileSync(sshd.configFile, "utf8")));
	return path;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!started.sshd)("SSH env failures", () => {
	beforeAll(async () => {
		root = realpathSync(await fs.mkdtemp(join(tmpdir(), "toolsmith-ssh-fail-")));
	});
	afterEach(async () => {
		for (const env of envs.splice(0)) await env.close();
	});
	afterAll(async () => {
		await sshd?.stop();
		if (root) await fs.rm(root, { recursive: true, force: true });
	});

	describe("a dropped connection", () => {
		it("fails a running command with connection_lost, and the next command reconnects", async () => {
			const env = sshEnv();
			const result = await env.exec("echo started; sleep 5", {
				onStdout: () => {
					sshd.dropConnections();
				},
			});
			expect(result.ok ? "ok" : result.error.code).toBe("connection_lost");
			if (!result.ok) expect(result.error.message).toMatch(/connection to .* was lost|session .* ended/i);
			expect(await env.exec("echo again")).toMatchObject({ ok: true, value: { exitCode: 0, stdout: "again\n" } });
		});

		it("kills, once it reconnects, the command the dropped connection left running", async () => {
			const env = sshEnv();
			let childPid = 0;
			let dropped = false;
			const running = env.exec("sleep 30 & echo $!; wait", {
				onStdout: (chunk) => {
					childPid = Number(new TextDecoder().decode(chunk).trim());
				},
			});
			// The pid marker comes on stderr, separately: give it time to arrive before the drop.
			for (let waited = 0; childPid === 0 && waited < 5000; waited += 20) await settle(20);
			await settle(300);
			expect(osProcessGone(childPid)).toBe(false);
			sshd.dropConnections();
			dropped = true;
			const result = await running;
			expect(dropped).toBe(true);
			expect(result.ok ? "ok" : result.error.code).toBe("connection_lost");
			if (!result.ok) expect(result.error.message).toMatch(/killed once the env reconnects/);
			// The drop alone leaves the command running on the host.
			expect(osProcessGone(childPid)).toBe(false);
			expect(await env.exec("echo again")).toMatchObject({ ok: true, value: { stdout: "again\n" } });
			for (let waited = 0; !osProcessGone(childPid) && waited < 5000; waited += 50) await settle(50);
			expect(osProcessGone(childPid)).toBe(true);
		});

		it("fails a file operation in flight with io_error ECONNRESET, and the next one reconnects", async () => {
			const env = sshEnv();
			await fs.writeFile(join(root, "big.bin"), Buffer.alloc(32 * 1024 * 1024, 0x61));
			expect((await env.connect()).ok).toBe(true);
			const reading = env.readBinaryFile("big.bin");
			await settle(30);
			sshd.dropConnections();
			const result = await reading;
			expect(result.ok ? "ok" : `${result.error.code} ${result.error.osCode}`).toBe("io_error ECONNRESET");
			if (!result.ok) expect(result.error.message).toMatch(/lost|ended/);
			expect(await env.readTextFile("big.bin").then((read) => read.ok && read.value.length)).toBe(32 * 1024 * 1024);
		});

		it("leaves the old file whole when the connection dies while a write's payload is on its way", async () => {
			const env = sshEnv();
			await fs.mkdir(join(root, "atomic"), { recursive: true });
			const target = join(root, "atomic/file.bin");
			await fs.writeFile(target, Buffer.alloc(1000, 0x41));
			expect((await env.connect()).ok).toBe(true);
			const writing = env.writeFile(target, new Uint8Array(64 * 1024 * 1024).fill(0x42));
			await settle(30);
			sshd.dropConnections();
			const result = await writing;
			expect(result.ok ? "ok" : `${result.error.code} ${result.error.osCode}`).toBe("io_error ECONNRESET");
			await settle(200);
			expect(readFileSync(target).equals(Buffer.alloc(1000, 0x41))).toBe(true);
			expect(await fs.readdir(join(root, "atomic"))).toEqual(["file.bin"]);
		});
	});

	describe("refused connections", () => {
		it("refuses a host whose key changed, saying so", async () => {
			const wrong = join(root, "wrong_host_key");
			execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "other", "-f", wrong]);
			const known = join(root, "changed_known_hosts");
			const key = readFileSync(`${wrong}.pub`, "utf8").trim().split(" ").slice(0, 2).join(" ");
			writeFileSync(known, `[127.0.0.1]:${sshd.port} ${key}\n`);
			const configFile = configWith("changed", (text) => text.replace(sshd.knownHostsFile, known));
			for (const hostKeys of ["strict", "accept-new"] as const) {
				const env = sshEnv({ configFile, hostKeys });
				const connected = await env.connect();
				expect(connected.ok).toBe(false);
				if (connected.ok) continue;
				expect(connected.error).toBeInstanceOf(SshError);
				expect(connected.error.code).toBe("host_key");
				expect(connected.error.message).toMatch(/changed/i);
			}
			// A file operation fails with the same reason instead of hanging or throwing.
			const read = await sshEnv({ configFile }).readTextFile("x");
			expect(read.ok ? "ok" : read.error.message).toMatch(/changed/i);
		});

		it("refuses an unknown host under strict host keys and records it under accept-new", async () => {
			const known = join(root, "empty_known_hosts");
			writeFileSync(known, "");
			const configFile = configWith("unknown", (text) =>
				text.replace(sshd.knownHostsFile, known).replace(/StrictHostKeyChecking yes\n/, ""),
			);
			const strict = await sshEnv({ configFile }).connect();
			expect(strict.ok ? "ok" : strict.error.code).toBe("host_key");
			if (!strict.ok) expect(strict.error.message).toMatch(/not known/);
			const accepting = sshEnv({ configFile, hostKeys: "accept-new" });
			expect((await accepting.connect()).ok).toBe(true);
			expect(readFileSync(known, "utf8")).toContain(`[127.0.0.1]:${sshd.port}`);
		});

		it("says the login was refused when the key is not authorized", async () => {
			const stranger = join(root, "stranger_key");
			execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "stranger", "-f", stranger]);
			const configFile = configWith("stranger", (text) => text.replace(sshd.identityFile, stranger));
			const connected = await sshEnv({ configFile }).connect();
			expect(connected.ok ? "ok" : connected.error.code).toBe("auth");
			if (!connected.ok) expect(connected.error.message).toMatch(/refused the login/);
		});

		it("says a closed port is unreachable", async () => {
			const port = await freePort();
			const configFile = configWith("closed", (text) => text.replace(`Port ${sshd.port}`, `Port ${port}`));
			const connected = await sshEnv({ configFile, connectTimeout: 5 }).connect();
			expect(connected.ok ? "ok" : connected.error.code).toBe("unreachable");
			if (!connected.ok) expect(connected.error.message).toMatch(/Could not connect/);
		});

		it("refuses a host without GNU tools as unsupported_host", async () => {
			// A host whose base64 is not GNU's (no -w0), as on BSD or macOS: a stand-in first on PATH.
			const bin = join(root, "nognu-bin");
			await fs.mkdir(bin, { recursive: true });
			writeFileSync(
				join(bin, "base64"),
				'#!/bin/sh\nfor a in "$@"; do [ "$a" = -w0 ] && { echo "base64: illegal option -- w" >&2; exit 64; }; done\nexec /usr/bin/base64 "$@"\n',
			);
			chmodSync(join(bin, "base64"), 0o755);
			// An ssh that runs each remote command with that PATH (the master and `ssh -G` as they are).
			const sshPath = join(root, "ssh-nognu");
			writeFileSync(
				sshPath,
				`#!/bin/bash\nn=$#\nif [ "$n" -ge 2 ] && [ "\${@:n-1:1}" = "--" ] && [[ " $* " != *" -G "* ]]; then\n  exec ssh "\${@:1:n-1}" "PATH=${bin}:\\$PATH; export PATH; \${!n}"\nfi\nexec ssh "$@"\n`,
			);
			chmodSync(sshPath, 0o755);
			const connected = await sshEnv({ sshPath }).connect();
			expect(connected.ok ? "ok" : connected.error.code).toBe("unsupported_host");
			if (!connected.ok) expect(connected.error.message).toContain("base64 -w0 (GNU coreutils)");
		});
	});

	describe("connectSshEnv", () => {
		it("resolves a folder relative to the remote home, and refuses a missing folder or a file", async () => {
			const home = realpathSync(homedir());
			const inHome = await fs.mkdtemp(join(home, ".toolsmith-ssh-test-"));
			try {
				const relative = inHome.slice(home.length + 1);
				const options = { configFile: sshd.configFile };
				const connected = await connectSshEnv(`${sshd.host}:${relative}`, options);
				expect(connected.ok).toBe(true);
				if (connected.ok) {
					envs.push(connected.value);
					expect(connected.value.cwd).toBe(inHome);
				}
				const missing = await connectSshEnv(`${sshd.host}:${root}/no/such/folder`, options);
				expect(missing.ok ? "ok" : missing.error.code).toBe("no_folder");
				if (!missing.ok) expect(missing.error.message).toContain(`${root}/no/such/folder`);
				await fs.writeFile(join(root, "plain.txt"), "x");
				const file = await connectSshEnv(`${sshd.host}:${root}/plain.txt`, options);
				expect(file.ok ? "ok" : file.error.code).toBe("no_folder");
				if (!file.ok) expect(file.error.message).toContain("is not a folder");
			} finally {
				await fs.rm(inHome, { recursive: true, force: true });
			}
		});
	});

	describe("names and values the helper must carry whole", () => {
		it("writes, reads and lists a name with a line break, and lists non-UTF-8 names as the Node env does", async () => {
			const dir = join(root, "names");
			await fs.mkdir(dir, { recursive: true });
			const env = sshEnv({ cwd: dir });
			expect((await env.writeFile("two\nlines.txt", "x\ny")).ok).toBe(true);
			expect(await env.readTextFile("two\nlines.txt")).toMatchObject({ ok: true, value: "x\ny" });
			expect(readFileSync(join(dir, "two\nlines.txt"), "utf8")).toBe("x\ny");
			writeFileSync(Buffer.concat([Buffer.from(`${dir}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]), "");
			const listed = await env.listDir(".");
			expect(listed).toEqual(await new NodeExecutionEnv({ cwd: dir }).listDir("."));
			expect(listed.ok && listed.value.find((entry) => entry.notUtf8)).toMatchObject({ notUtf8: true, kind: "file" });
			expect(listed.ok && listed.value.map((entry) => entry.name)).toContain("two\nlines.txt");
		});

		it("reports mtimeMs exactly as a local stat does", async () => {
			await fs.writeFile(join(root, "stamp.txt"), "x");
			const info = await sshEnv().fileInfo("stamp.txt");
			expect(info.ok && info.value.mtimeMs).toBe((await fs.stat(join(root, "stamp.txt"))).mtimeMs);
		});

		it("answers an aborted read at once and serves the next call", async () => {
			const env = sshEnv();
			await fs.writeFile(join(root, "abort.bin"), Buffer.alloc(16 * 1024 * 1024, 0x61));
			expect((await env.connect()).ok).toBe(true);
			const controller = new AbortController();
			const reading = env.readBinaryFile("abort.bin", { signal: controller.signal });
			await settle(10);
			controller.abort();
			const result = await reading;
			expect(result.ok ? "ok" : result.error.code).toBe("aborted");
			expect(await env.readTextFile("stamp.txt")).toMatchObject({ ok: true, value: "x" });
		});
	});

	describe("commands", () => {
		it("kills a child that left the process group (setsid) on abort and on timeout", async () => {
			const env = sshEnv();
			const command = "setsid sleep 30 & echo $!; wait";
			for (const stop of ["abort", "timeout"] as const) {
				const controller = new AbortController();
				let printed = "";
				const result = await env.exec(command, {
					...(stop === "timeout" ? { timeout: 1 } : { signal: controller.signal }),
					onStdout: (chunk) => {
						printed += new TextDecoder().decode(chunk);
						if (stop === "abort") controller.abort();
					},
				});
				expect(result.ok ? "ok" : result.error.code).toBe(stop === "abort" ? "aborted" : "timeout");
				const pid = Number(printed.trim());
				expect(pid).toBeGreaterThan(0);
				expect(osProcessGone(pid)).toBe(true);
			}
		});

		it("kills what a command started when the abort comes before its pid did", async () => {
			const env = sshEnv();
			expect((await env.connect()).ok).toBe(true);
			for (const delayMs of [0, 40, 80]) {
				const file = join(root, `early-abort-${delayMs}`);
				const controller = new AbortController();
				const running = env.exec(`sleep 30 & echo $! > ${file}; wait`, { signal: controller.signal });
				setTimeout(() => controller.abort(), delayMs);
				expect((await running).ok ? "ok" : "failed").toBe("failed");
				// Whatever started (the login may have been too far along to stop) is gone.
				await settle(300);
				const printed = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
				if (printed !== "") expect(osProcessGone(Number(printed))).toBe(true);
			}
		});

		it("holds the remote command back while a slow listener holds its output", async () => {
			const env = sshEnv();
			const counter = join(root, "blocks");
			const controller = new AbortController();
			// Writes 64 KB blocks forever, counting them; only the buffers on the way can take any.
			const running = env.exec(`i=0; while :; do head -c 65536 /dev/zero; i=$((i+1)); echo $i > ${counter}; done`, {
				signal: controller.signal,
				onStdout: () => new Promise<void>(() => undefined),
			});
			// The counter file is empty for a moment while the shell rewrites it.
			const count = async () => {
				for (;;) {
					const text = readFileSync(counter, "utf8").trim();
					if (text !== "") return Number(text);
					await settle(5);
				}
			};
			await settle(1500);
			const first = await count();
			await settle(500);
			const second = await count();
			controller.abort();
			expect((await running).ok).toBe(false);
			// Blocked: a few MB at most (a pipe, the SSH channel's 2 MB window), and no longer moving.
			expect(first).toBeLessThan(128);
			expect(second).toBe(first);
		});

		it("refuses commands under a path policy, or runs them with a warning when asked", async () => {
			const refused = await sshEnv({ policy: { read: [root] } }).exec("echo hi");
			expect(refused.ok ? "ok" : refused.error.code).toBe("spawn_error");
			if (!refused.ok) expect(refused.error.message).toMatch(/no sandbox/);
			const warned = await sshEnv({ policy: { read: [root], withoutSandbox: "warn" } }).exec("echo hi");
			expect(warned).toMatchObject({ ok: true, value: { stdout: "hi\n" } });
			expect(warned.ok && warned.value.warning).toMatch(/unconfined/);
		});
	});

	describe("two envs on one host", () => {
		it("share one mutation queue, whatever the spelling of the host, so no edit is lost", async () => {
			const dir = join(root, "queue");
			await fs.mkdir(dir, { recursive: true });
			await fs.writeFile(join(dir, "count.txt"), "0");
			const byAlias = sshEnv({ cwd: dir });
			const byAddress = sshEnv({
				destination: "127.0.0.1",
				configFile: "/dev/null",
				port: sshd.port,
				identityFile: sshd.identityFile,
				sshOptions: { UserKnownHostsFile: sshd.knownHostsFile, GlobalKnownHostsFile: "/dev/null" },
				cwd: dir,
			});
			expect(mutationScopeOf(byAlias)).toBe(mutationScopeOf(byAddress));
			expect(mutationScopeOf(byAlias)).not.toBe(mutationScopeOf(new MemoryExecutionEnv()));
			const edits = Array.from({ length: 12 }, (_, i) => {
				const env = i % 2 === 0 ? byAlias : byAddress;
				const path = i % 3 === 0 ? `${dir}/count.txt` : "./count.txt";
				return withFileMutationQueue(env, path, async () => {
					const read = await env.readTextFile(path);
					await settle(5);
					await env.writeFile(path, String(Number(read.ok ? read.value : "NaN") + 1));
				});
			});
			await Promise.all(edits);
			expect(readFileSync(join(dir, "count.txt"), "utf8")).toBe("12");
		});
	});
});

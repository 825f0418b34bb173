/**
 * The shell sandbox end to end, as an MCP client meets it: `toolsmith mcp --builtins` (confined by
 * default) as a child process, its `bash` tool called with what escaped the sandbox before: a Unix
 * datagram socketpair aimed at a socket outside, a setuid file left in the project, a fork bomb and
 * a /tmp filled to the host's memory, against the limits `--limit` sets.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../../src/env/_node-sandbox.js";
import { mcpCommand } from "../mcp/_cli-server.js";

const probe = process.platform === "linux" ? await probeSandbox() : { missing: "not Linux" };
const missing = "missing" in probe ? probe.missing : undefined;

/** Receives datagrams on a Unix socket and appends each to a file (Node cannot bind one). */
const RECEIVER =
	'socket(my $s, AF_UNIX, SOCK_DGRAM, 0) or die "socket: $!"; bind($s, pack_sockaddr_un($ARGV[0])) or die "bind: $!"; chmod 0777, $ARGV[0]; $| = 1; print "ready\\n"; while (defined recv($s, my $b, 100, 0)) { open(my $f, ">>", $ARGV[1]); print $f "$b\\n"; close $f }';

describe.skipIf(missing !== undefined)(
	`toolsmith mcp --builtins: bash's sandbox from the client's side${missing ? ` (skipped: ${missing})` : ""}`,
	() => {
		let scratch: string;
		let project: string;
		let socket: string;
		let arrived: string;
		let receiver: ChildProcess;
		let client: Client;
		let stderr = "";

		beforeAll(async () => {
			// Not under /tmp, so the sandbox's /tmp is its own (the project would keep the host's).
			const parent = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
			scratch = realpathSync(mkdtempSync(join(parent, "toolsmith-escapes-")));
			project = join(scratch, "project");
			mkdirSync(project);
			socket = join(scratch, "outside.sock");
			arrived = join(scratch, "arrived.txt");
			receiver = spawn("/usr/bin/perl", ["-MSocket", "-e", RECEIVER, socket, arrived], {
				stdio: ["ignore", "pipe", "inherit"],
			});
			await new Promise<void>((resolve, reject) => {
				receiver.stdout?.once("data", () => resolve());
				receiver.once("exit", (code) => reject(new Error(`the datagram receiver exited (${code})`)));
			});
			const command = mcpCommand(["--builtins", "--cwd", project, "--limit", "processes=32,tmp=1M"]);
			const transport = new StdioClientTransport({ ...command, cwd: project, stderr: "pipe" });
			transport.stderr?.on("data", (chunk: Buffer) => {
				stderr += chunk.toString("utf8");
			});
			client = new Client({ name: "sandbox-escapes", version: "0.0.0" });
			await client.connect(transport);
		}, 60_000);

		afterAll(async () => {
			await client?.close();
			receiver?.kill();
			if (scratch) rmSync(scratch, { recursive: true, force: true });
		});

		const bash = async (command: string) => {
			const result = await client.callTool({ name: "bash", arguments: { command } });
			const content = result.content as { type: string; text?: string }[];
			return { isError: result.isError === true, text: content.map((part) => part.text ?? "").join("\n") };
		};

		it("serves bash confined (the header says so)", () => {
			expect(stderr).toMatch(/confined/);
		});

		it("refuses a Unix datagram socketpair, so nothing reaches a datagram socket outside", async () => {
			const viaPerl = await bash(
				`perl -MSocket -e 'socketpair(my $a, my $b, AF_UNIX, SOCK_DGRAM, 0) or die "socketpair: $!\\n"; send($a, "perl", 0, pack_sockaddr_un("${socket}")) or die "send: $!\\n"; print "sent\\n"'`,
			);
			expect(viaPerl.isError).toBe(true);
			expect(viaPerl.text).toMatch(/socketpair: Operation not permitted/);
			// The issue's own reproduction, where python3 is installed.
			const python = await bash(
				`command -v python3 >/dev/null || { echo no-python; exit 0; }; python3 -c "import socket; a,b=socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b'python', '${socket}')"`,
			);
			if (!python.text.includes("no-python")) {
				expect(python.isError).toBe(true);
				expect(python.text).toMatch(/PermissionError|Operation not permitted/);
			}
			// A stream socket and a write outside are refused as before, in the same command.
			const same = await bash(
				`perl -MSocket -e 'socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!\\n"'; echo x > ../outside.txt`,
			);
			expect(same.text).toMatch(/socket: Operation not permitted/);
			expect(same.text).toMatch(/Read-only file system/);
			let got = "";
			try {
				got = readFileSync(arrived, "utf8");
			} catch {
				// Nothing arrived: the file was never made.
			}
			expect(got).toBe("");
		});

		it("leaves no setuid or setgid file in the project", async () => {
			const result = await bash(
				"touch tool && chmod 4755 tool; chmod g+s tool; install -m 4755 /bin/true tool2; ls -l tool tool2 2>&1; true",
			);
			expect(result.text).toMatch(/Operation not permitted/);
			const marked = readdirSync(project).filter((name) => (statSync(join(project, name)).mode & 0o6000) !== 0);
			expect(marked).toEqual([]);
		});

		it("stops a fork bomb at the process limit and says so", async () => {
			const result = await bash("bomb() { bomb | bomb & }; bomb; sleep 2; echo survived");
			expect(result.text).toMatch(/survived/);
			const cgroups = "sandbox" in probe ? await import("../../../src/env/_node-cgroup.js") : undefined;
			const support = await cgroups?.probeCgroups();
			if (support?.homes.pids) expect(result.text).toMatch(/reached the sandbox's limit of 32 processes/);
		});

		it("gives /tmp the size --limit says, and says when a command filled it", async () => {
			const result = await bash("head -c 5000000 /dev/zero > /tmp/fill");
			expect(result.isError).toBe(true);
			expect(result.text).toMatch(/No space left on device/);
			expect(result.text).toMatch(/filled \/tmp, a private tmpfs of 1 MiB/);
			expect(result.text).toMatch(/--limit tmp=SIZE/);
		});
	},
);

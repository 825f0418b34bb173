/**
 * The SSH env's targets and options, without a connection: how `user@host:/path` and its kin are
 * read, and which ssh options are refused before anything runs.
 */
import { describe, expect, it } from "vitest";
import { sshBaseArgs } from "../../../src/env/node-ssh/connection.js";
import { connectSshEnv, SshError, SshExecutionEnv } from "../../../src/env/node-ssh.js";
import { parseSshTarget } from "../../../src/env/ssh-target.js";

describe("parseSshTarget", () => {
	it.each([
		["host", { destination: "host" }],
		["user@host", { destination: "user@host" }],
		["user@host:/srv/app", { destination: "user@host", path: "/srv/app" }],
		["host:relative/dir", { destination: "host", path: "relative/dir" }],
		["host:", { destination: "host" }],
		["ssh://user@host:2222/srv/app", { destination: "user@host", port: 2222, path: "/srv/app" }],
		["ssh://host", { destination: "host" }],
		["ssh://host/", { destination: "host", path: "/" }],
		["ssh://user@host/a%20b", { destination: "user@host", path: "/a b" }],
		["[::1]:/srv", { destination: "::1", path: "/srv" }],
		["me@[fe80::1]:/x", { destination: "me@fe80::1", path: "/x" }],
		["build-box:/work/with:colon", { destination: "build-box", path: "/work/with:colon" }],
	])("reads %s", (text, expected) => {
		expect(parseSshTarget(text)).toEqual({ ok: true, value: expected });
	});

	it.each([
		["", /needed/],
		["   ", /needed/],
		["user@", /names no host/],
		[":/path", /names no host/],
		["-oProxyCommand=evil:/x", /may not start with "-"/],
		["host name:/x", /white space/],
		["ssh://host:99999/x", /ssh:\/\/user@host:port\/path/],
		["host\n:/x", /control character/],
	])("refuses %j, saying why", (text, message) => {
		const parsed = parseSshTarget(text);
		expect(parsed.ok).toBe(false);
		if (!parsed.ok) expect(parsed.error).toMatch(message);
	});
});

describe("the ssh options an env runs with", () => {
	const base = { destination: "host", cwd: "/srv" };

	it("puts the user's options first (ssh keeps the first value) and never forwards the agent or X11", () => {
		const args = sshBaseArgs({ ...base, sshOptions: { ProxyJump: "bastion", ServerAliveInterval: "5" } });
		expect(args).not.toBeInstanceOf(SshError);
		const list = args as string[];
		expect(list.indexOf("ProxyJump=bastion")).toBeLessThan(list.indexOf("ServerAliveInterval=15"));
		expect(list.indexOf("ServerAliveInterval=5")).toBeLessThan(list.indexOf("ServerAliveInterval=15"));
		for (const option of ["BatchMode=yes", "ForwardAgent=no", "ForwardX11=no", "StrictHostKeyChecking=yes"])
			expect(list).toContain(option);
	});

	it("trusts new hosts only when asked, and never a changed key", () => {
		expect(sshBaseArgs({ ...base, hostKeys: "accept-new" })).toContain("StrictHostKeyChecking=accept-new");
		const refused = sshBaseArgs({ ...base, sshOptions: { StrictHostKeyChecking: "no" } });
		expect(refused).toBeInstanceOf(SshError);
		expect((refused as SshError).message).toMatch(/accept-new/);
	});

	it.each([
		[{ sshOptions: { ControlPath: "/tmp/x" } }, /ControlPath/],
		[{ sshOptions: { ControlMaster: "auto" } }, /ControlMaster/],
		[{ sshOptions: { "Bad Name": "x" } }, /Invalid ssh option/],
		[{ sshOptions: { ProxyCommand: "a\nb" } }, /Invalid ssh option/],
		[{ port: 0 }, /port must be 1 to 65535/],
	])("refuses %j", (extra, message) => {
		const args = sshBaseArgs({ ...base, ...extra });
		expect(args).toBeInstanceOf(SshError);
		expect((args as SshError).code).toBe("invalid_argument");
		expect((args as SshError).message).toMatch(message);
	});

	it("gives a refused option's error from every method instead of throwing", async () => {
		const env = new SshExecutionEnv({ ...base, sshOptions: { StrictHostKeyChecking: "off" } });
		const read = await env.readTextFile("a.txt");
		expect(read.ok ? "ok" : read.error.code).toBe("io_error");
		const run = await env.exec("true");
		expect(run.ok ? "ok" : run.error.code).toBe("spawn_error");
		expect(await env.exists("a.txt")).toBe(false);
		const connected = await env.connect();
		expect(connected.ok ? "ok" : connected.error.code).toBe("invalid_argument");
		await env.close();
	});

	it("wants an absolute cwd and the host alone as destination", async () => {
		for (const options of [
			{ destination: "host", cwd: "relative" },
			{ destination: "host:/srv", cwd: "/srv" },
		]) {
			const connected = await new SshExecutionEnv(options).connect();
			expect(connected.ok ? "ok" : connected.error.code).toBe("invalid_argument");
		}
		const bad = await connectSshEnv("-oProxyCommand=x");
		expect(bad.ok ? "ok" : bad.error.code).toBe("invalid_argument");
	});
});

/**
 * The shell sandbox's limits as text and choices: the policy's limits with their defaults and
 * refusals, the script that sets rlimits and reports a full tmpfs, and where a command's cgroups
 * go, from `/proc/self/mountinfo` and `/proc/self/cgroup` as the kernel writes them on a v1 host,
 * a hybrid one, a v2 one with a systemd user manager, and in a container.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cgroupMounts, cgroupPaths, homeCandidates } from "../../../src/env/_node-cgroup.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import {
	DEFAULT_PROCESSES,
	DEFAULT_TMP_BYTES,
	defaultMemoryBytes,
	formatBytes,
	limitScript,
	resolveLimits,
	tmpReports,
} from "../../../src/env/node-limits.js";

describe("the policy's limits", () => {
	it("fills in the defaults and takes Infinity as none", () => {
		expect(resolveLimits(undefined)).toEqual({
			ok: true,
			value: { processes: DEFAULT_PROCESSES, memoryBytes: defaultMemoryBytes(), tmpBytes: DEFAULT_TMP_BYTES },
		});
		expect(DEFAULT_PROCESSES).toBe(2048);
		expect(DEFAULT_TMP_BYTES).toBe(1024 ** 3);
		expect(resolveLimits({ processes: Number.POSITIVE_INFINITY, tmpBytes: 1 << 20 })).toEqual({
			ok: true,
			value: { memoryBytes: defaultMemoryBytes(), tmpBytes: 1 << 20 },
		});
	});

	it.each([
		[{ processes: 0 }, /processes must be a whole number of at least 8/],
		[{ processes: 2.5 }, /processes must be a whole number/],
		[{ memoryBytes: 1000 }, /memoryBytes must be a whole number of at least 16777216 \(16 MiB\)/],
		[{ tmpBytes: -1 }, /tmpBytes must be/],
		[{ tmpBytes: Number.NaN }, /got NaN/],
		[{ processes: "10" }, /got 10/],
		[{ memory: 1 << 30 }, /has no "memory": use processes, memoryBytes or tmpBytes/],
	])("refuses %j, saying what it takes", (limits, message) => {
		const resolved = resolveLimits(limits as never);
		expect(resolved.ok).toBe(false);
		if (!resolved.ok) expect(resolved.error).toMatch(message);
	});

	it("makes a NodeExecutionEnv with bad limits throw at once, naming the limit", () => {
		expect(() => new NodeExecutionEnv({ policy: { read: ["."], limits: { processes: 1 } } })).toThrow(
			/NodeExecutionEnv: policy\.limits\.processes must be a whole number of at least 8/,
		);
	});

	it("writes sizes as people read them", () => {
		expect([512, 1024, 1536, 1024 ** 2, 1024 ** 3, 1.5 * 1024 ** 3].map(formatBytes)).toEqual([
			"512 bytes",
			"1 KiB",
			"1.5 KiB",
			"1 MiB",
			"1 GiB",
			"1.5 GiB",
		]);
	});
});

describe("the limit script", () => {
	/** Runs the script as the sandbox does (`sh -c <script> <shell> <command>`) with descriptor 4 as a file. */
	function runScript(script: string, command: string): { stdout: string; reports: string; status: number } {
		const dir = mkdtempSync(join(tmpdir(), "toolsmith-limit-script-"));
		try {
			const reports = join(dir, "reports");
			writeFileSync(reports, "");
			let status = 0;
			let stdout = "";
			try {
				stdout = execFileSync("/bin/sh", ["-c", `exec 4>>"$R"; exec /bin/sh -c "$S" /bin/sh "$C"`], {
					env: { PATH: process.env.PATH, R: reports, S: script, C: command },
					encoding: "utf8",
				});
			} catch (error) {
				const failed = error as { status: number; stdout: string };
				status = failed.status;
				stdout = failed.stdout;
			}
			return { stdout, reports: readFileSync(reports, "utf8"), status };
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	it("sets the rlimits, runs the command without descriptor 4, and keeps its exit code", () => {
		const script = limitScript({ processes: 300, memoryBytes: 1 << 30 }, []);
		const run = runScript(
			script,
			"ulimit -u 2>/dev/null || ulimit -p; ulimit -d; echo hi >&4 2>/dev/null || echo closed; exit 7",
		);
		expect(run.stdout.split("\n").slice(0, 3)).toEqual(["300", String(1 << 20), "closed"]);
		expect(run.status).toBe(7);
		expect(run.reports).toBe("");
	});

	it("reports a watched folder left without a free block, and not one with room", () => {
		// /proc has no free blocks at all; the working folder has room.
		const run = runScript(limitScript({}, ["/proc", "."]), "true");
		expect(run.reports).toBe("tmp /proc\n");
		expect(tmpReports(run.reports, { tmpBytes: 1 << 20 }, ["/proc", "."])).toEqual([
			expect.objectContaining({ limit: "tmp", value: 1 << 20, path: "/proc" }),
		]);
		// Without a tmp limit nothing is sized, so nothing is reported.
		expect(tmpReports(run.reports, {}, ["/proc"])).toEqual([]);
		// A line the command forged through /proc may name only a folder that is watched.
		expect(tmpReports("tmp /etc\ntmp /proc\n", { tmpBytes: 1 << 20 }, ["/proc"]).map((r) => r.path)).toEqual(["/proc"]);
	});

	it("quotes watched folders, so a name cannot become a command", () => {
		const run = runScript(limitScript({}, ["/nonexistent/'$(touch /tmp/x)'"]), "true");
		expect(run.status).toBe(0);
		expect(limitScript({}, ["/a'b"])).toContain(`'/a'\\''b'`);
	});
});

const V1_MOUNTINFO = [
	"25 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
	"31 30 0:27 / /sys/fs/cgroup ro,nosuid,nodev - tmpfs tmpfs rw,mode=755",
	"32 31 0:28 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
	"33 31 0:29 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
	"34 31 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct",
	"35 31 0:31 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
].join("\n");
const V1_CGROUP = ["8:pids:/", "4:memory:/process_api/abc", "3:cpu,cpuacct:/x", "0::/"].join("\n");

const V2_MOUNTINFO = "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate";
const V2_USER_CGROUP = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-1.scope";

describe("where a command's cgroups go", () => {
	it("reads the cgroup mounts and the process's groups, escapes included", () => {
		expect(cgroupMounts(V1_MOUNTINFO).map((m) => [m.version, m.point, m.controllers.join("+")])).toEqual([
			[1, "/sys/fs/cgroup/memory", "rw+memory"],
			[1, "/sys/fs/cgroup/pids", "rw+pids"],
			[1, "/sys/fs/cgroup/cpu,cpuacct", "rw+cpu+cpuacct"],
			[2, "/sys/fs/cgroup/unified", ""],
		]);
		expect(cgroupMounts("40 1 0:9 / /mnt/my\\040groups rw - cgroup2 none rw")[0]?.point).toBe("/mnt/my groups");
		const paths = cgroupPaths(V1_CGROUP);
		expect(paths.get("memory")).toBe("/process_api/abc");
		expect(paths.get("cpuacct")).toBe("/x");
		expect(paths.get("")).toBe("/");
	});

	it("on a v1 host: the process's own group in each controller's hierarchy", async () => {
		const mounts = cgroupMounts(V1_MOUNTINFO);
		const paths = cgroupPaths(V1_CGROUP);
		const never = async () => false;
		expect(await homeCandidates("pids", mounts, paths, never)).toEqual([{ version: 1, base: "/sys/fs/cgroup/pids" }]);
		expect(await homeCandidates("memory", mounts, paths, never)).toEqual([
			{ version: 1, base: "/sys/fs/cgroup/memory/process_api/abc" },
		]);
	});

	it("on a v2 host: the nearest ancestor that delegates both controllers, never the process's own group", async () => {
		const mounts = cgroupMounts(V2_MOUNTINFO);
		const paths = cgroupPaths(V2_USER_CGROUP);
		const asked: string[] = [];
		const delegating = new Set(["/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice"]);
		const delegates = async (folder: string) => {
			asked.push(folder);
			return delegating.has(folder);
		};
		expect(await homeCandidates("memory", mounts, paths, delegates)).toEqual([
			{ version: 2, base: "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice" },
		]);
		expect(asked).toEqual(["/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice"]);
		// Nothing delegated up to the root: no home (the root is where the process's ancestors end).
		asked.length = 0;
		const none = async (folder: string) => {
			asked.push(folder);
			return false;
		};
		expect(await homeCandidates("pids", mounts, paths, none)).toEqual([]);
		expect(asked.at(-1)).toBe("/sys/fs/cgroup");
	});

	it("in a container at the root of its cgroup namespace, or with no cgroup mounted: none", async () => {
		const mounts = cgroupMounts(V2_MOUNTINFO);
		expect(await homeCandidates("pids", mounts, cgroupPaths("0::/"), async () => true)).toEqual([]);
		expect(await homeCandidates("pids", [], cgroupPaths("0::/a/b"), async () => true)).toEqual([]);
		// A group outside what the mount shows (another namespace's view).
		const bound = cgroupMounts("29 23 0:26 /docker/x /sys/fs/cgroup rw - cgroup2 cgroup2 rw");
		expect(await homeCandidates("pids", bound, cgroupPaths("0::/other/y"), async () => true)).toEqual([]);
	});
});

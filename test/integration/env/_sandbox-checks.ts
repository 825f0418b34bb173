/**
 * What a command sees and can do in the shell sandbox, asked from inside it: the same observations
 * run in the test process (root in CI) and, through `_sandbox-observe.ts`, in a child process of
 * an unprivileged user, so one set of expectations holds for both.
 */
import { existsSync, readlinkSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import type { ExecResult, PathPolicy } from "../../../src/contract/env.js";
import { probeCgroups } from "../../../src/env/_node-cgroup.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";

/**
 * The folders of one run: `cwd` is the only root, `outside` holds a secret, a listening Unix
 * stream socket and a bound Unix datagram socket.
 */
export interface ConfinementSetup {
	readonly cwd: string;
	readonly outside: string;
	readonly socket: string;
	readonly datagramSocket: string;
}

export interface Observations {
	readonly uid: string;
	/** `CapEff`, `CapPrm` and `CapBnd` of the command, as /proc prints them. */
	readonly capabilities: readonly string[];
	/** The namespaces the command shares with the process that started it. */
	readonly sharedNamespaces: readonly string[];
	/** The remount escape: its exit code, and whether it wrote outside the roots. */
	readonly remount: { readonly exitCode: number; readonly wroteOutside: boolean };
	/** Whether writing back a host-wide kernel setting's own value succeeded. */
	readonly sysctlWritable: boolean;
	readonly sethostname: boolean;
	/** Whether the command could make a user namespace of its own. */
	readonly nestedUserNamespace: boolean;
	/** What connecting to the Unix socket outside the roots gave, without and with `unixSockets: true`. */
	readonly unixSocket: string;
	readonly unixSocketGranted: string;
	readonly writesInside: boolean;
	/** Under `confineReads`: the secret outside, a program run, and HOME's listing. */
	readonly confinedReads: { readonly secret: string; readonly node: string; readonly home: string };
	/** Without `confineReads`: the secret outside (readable: only writes are confined). */
	readonly secret: string;
	/**
	 * A datagram `socketpair` end sending to the datagram socket outside: `sent` (delivered: the
	 * socket is bound) or the error, without and with `unixSockets: true`; and a stream pair made.
	 */
	readonly unixDatagram: { readonly refused: string; readonly granted: string; readonly streamPair: string };
	/** Netlink and vsock sockets: `ok` or the error, without and with `network: true`. */
	readonly families: {
		readonly netlink: string;
		readonly vsock: string;
		readonly netlinkWithNetwork: string;
		readonly vsockWithNetwork: string;
	};
	/** chmod 4755 and 2755, and a creating open with mode 4755, in the working folder: `ok` or the error. */
	readonly setuid: { readonly chmod: string; readonly setgid: string; readonly create: string };
	/** Files in the working folder with a setuid or setgid bit, as the host sees them afterwards. */
	readonly setuidFilesLeft: readonly string[];
	/** The mount options of the working folder (a write root) inside the sandbox. */
	readonly writeRootOptions: readonly string[];
	/** Writing a file straight into /dev. */
	readonly devWrite: string;
	/**
	 * Under limits of 16 processes, 100 MiB of memory and a 1 MiB tmpfs: how many of 40 forks
	 * succeeded and the error of the first that failed; a 150 MB allocation in one process; three
	 * processes of 40 MB each (the exit codes, and whether all three finished); 2 MB written to
	 * /tmp and to /dev/shm; and what each result reported.
	 */
	readonly limits: {
		readonly forked: number;
		readonly forkError: string;
		readonly forkReached: readonly string[];
		readonly oneBig: string;
		readonly threeFinished: string;
		readonly threeReached: readonly string[];
		readonly tmp: string;
		readonly tmpReached: readonly string[];
	};
	/** The controllers this process gave commands cgroups of (the rest fall back to rlimits). */
	readonly cgroups: readonly string[];
}

const NAMESPACES = ["user", "pid", "uts", "ipc", "net", "mnt"];

/** The result of `command` run in `cwd` under `policy`; throws if it could not run. */
async function runFull(
	setup: ConfinementSetup,
	command: string,
	policy: Partial<PathPolicy> = {},
): Promise<ExecResult> {
	const env = new NodeExecutionEnv({ cwd: setup.cwd, policy: { read: [setup.cwd], ...policy }, killGraceMs: 200 });
	const result = await env.exec(command, { timeout: 60 });
	if (!result.ok) throw new Error(`${command}: ${result.error.message}`);
	return result.value;
}

/** stdout of `command` run in `cwd` under `policy`, trimmed; an error's message if it could not run. */
async function run(setup: ConfinementSetup, command: string, policy: Partial<PathPolicy> = {}): Promise<string> {
	return (await runFull(setup, command, policy)).stdout.trim();
}

/** A perl one-liner (perl-base: on every Debian, and readable by every user), with `Socket` and `Fcntl`. */
const perl = (code: string) => `/usr/bin/perl -MSocket -MFcntl -e '${code.replace(/'/g, `'\\''`)}'`;

/** The errno name of perl's `$!` (so `EPERM`, not the locale's sentence). */
const ERRNO =
	'my %n = map { my $v = eval "POSIX::$_()"; defined $v ? ($v => $_) : () } qw(EPERM EACCES EAFNOSUPPORT EAGAIN ENOMEM ENOSPC EROFS EINVAL); sub e { $n{0+$!} // "errno " . (0+$!) }';

const LIMITS = { processes: 16, memoryBytes: 100 * 1024 * 1024, tmpBytes: 1024 * 1024 };

const connect = (socket: string) =>
	`"${process.execPath}" -e 'const s=require("net").connect(${JSON.stringify(socket)});s.on("connect",()=>{console.log("connected");s.destroy()});s.on("error",(e)=>console.log(e.code))'`;

export async function observeConfinement(setup: ConfinementSetup): Promise<Observations> {
	const outsideFile = `${setup.outside}/escaped.txt`;
	const nsLines = await run(setup, NAMESPACES.map((ns) => `readlink /proc/self/ns/${ns}`).join("; "));
	const inner = nsLines.split("\n");
	const sharedNamespaces = NAMESPACES.filter((ns, index) => inner[index] === readlinkSync(`/proc/self/ns/${ns}`));
	const remount = await run(
		setup,
		`mount -o remount,bind,rw / 2>/dev/null && echo x > "${outsideFile}" 2>/dev/null; echo $?`,
	);
	return {
		uid: await run(setup, "id -u"),
		capabilities: (await run(setup, "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status")).split("\n"),
		sharedNamespaces,
		remount: { exitCode: Number(remount), wroteOutside: existsSync(outsideFile) },
		sysctlWritable:
			(await run(
				setup,
				'v=$(cat /proc/sys/kernel/printk_ratelimit) && (echo "$v" > /proc/sys/kernel/printk_ratelimit) 2>/dev/null && echo wrote',
			)) === "wrote",
		sethostname: (await run(setup, "hostname toolsmith-sandbox 2>/dev/null && echo changed")) === "changed",
		nestedUserNamespace: (await run(setup, "unshare -U true 2>/dev/null && echo made")) === "made",
		unixSocket: await run(setup, connect(setup.socket)),
		unixSocketGranted: await run(setup, connect(setup.socket), { unixSockets: true }),
		writesInside: (await run(setup, "echo y > made.txt && cat made.txt")) === "y",
		confinedReads: {
			secret: await run(setup, `cat "${setup.outside}/secret.txt" 2>&1 || true`, { confineReads: true }),
			node: await run(setup, `"${process.execPath}" -e 'console.log(6*7)'`, { confineReads: true }),
			home: await run(setup, 'ls -A "$HOME"', { confineReads: true }),
		},
		secret: await run(setup, `cat "${setup.outside}/secret.txt"`),
		...(await observeDoors(setup)),
		limits: await observeLimits(setup),
		cgroups: Object.keys((await probeCgroups()).homes),
	};
}

async function observeDoors(setup: ConfinementSetup) {
	const datagram = perl(
		`use POSIX; ${ERRNO}; socketpair(my $a, my $b, AF_UNIX, SOCK_DGRAM, 0) or do { print e(), "\n"; exit }; defined send($a, "x", 0, pack_sockaddr_un(${JSON.stringify(setup.datagramSocket)})) ? print "sent\n" : print e(), "\n"`,
	);
	const family = (domain: number) =>
		perl(`use POSIX; ${ERRNO}; socket(my $s, ${domain}, SOCK_DGRAM, 0) ? print "ok\n" : print e(), "\n"`);
	const NETLINK = 16;
	const VSOCK = 40;
	const setuidFilesLeft = async () =>
		(await readdir(setup.cwd, { withFileTypes: true }))
			.filter((entry) => entry.isFile())
			.filter((entry) => (statSync(`${setup.cwd}/${entry.name}`).mode & 0o6000) !== 0)
			.map((entry) => entry.name);
	const mountinfo = await run(setup, "cat /proc/self/mountinfo");
	const own = mountinfo.split("\n").find((line) => line.split(" ")[4] === setup.cwd);
	return {
		unixDatagram: {
			refused: await run(setup, datagram),
			granted: await run(setup, datagram, { unixSockets: true }),
			streamPair: await run(
				setup,
				perl(`use POSIX; ${ERRNO}; socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) ? print "ok\n" : print e(), "\n"`),
			),
		},
		families: {
			netlink: await run(setup, family(NETLINK)),
			vsock: await run(setup, family(VSOCK)),
			netlinkWithNetwork: await run(setup, family(NETLINK), { network: true }),
			vsockWithNetwork: await run(setup, family(VSOCK), { network: true }),
		},
		setuid: {
			chmod: await run(setup, `touch plain && chmod 4755 plain 2>/dev/null && echo ok || echo refused`),
			setgid: await run(
				setup,
				perl(`use POSIX; ${ERRNO}; open(my $f, ">", "g") or die; chmod(02755, "g") ? print "ok\n" : print e(), "\n"`),
			),
			create: await run(
				setup,
				perl(
					`use POSIX; ${ERRNO}; umask 0; sysopen(my $f, "made-setuid", O_CREAT | O_WRONLY, 04755) ? print "ok\n" : print e(), "\n"`,
				),
			),
		},
		setuidFilesLeft: await setuidFilesLeft(),
		writeRootOptions: (own?.split(" ")[5] ?? "").split(","),
		devWrite: await run(setup, "{ echo x > /dev/made-here; } 2>&1 || true"),
	};
}

async function observeLimits(setup: ConfinementSetup) {
	const limits = { limits: LIMITS };
	const fork = await runFull(
		setup,
		perl(
			`use POSIX; ${ERRNO}; my $n = 0; for (1..40) { my $p = fork(); if (!defined $p) { print "$n ", e(), "\n"; exit } if ($p == 0) { sleep 5; POSIX::_exit(0) } $n++ } print "$n none\n"`,
		),
		limits,
	);
	const [forked = "", forkError = ""] = fork.stdout.trim().split(" ");
	const oneBig = await run(setup, `${perl('my $x = "a" x 150_000_000; print "ok\n"')} 2>&1 || echo failed`, limits);
	const three = await runFull(
		setup,
		`for i in 1 2 3; do ${perl('my $x = "a" x 40_000_000; sleep 2; print "done\n"')} & done; wait`,
		limits,
	);
	const tmp = await runFull(
		setup,
		"head -c 2000000 /dev/zero > /tmp/fill 2>/dev/null; echo tmp=$?; head -c 2000000 /dev/zero > /dev/shm/fill 2>/dev/null; echo shm=$?",
		limits,
	);
	const reached = (result: ExecResult) =>
		(result.limitsReached ?? []).map((limit) => (limit.path ? `${limit.limit} ${limit.path}` : limit.limit));
	return {
		forked: Number(forked),
		forkError,
		forkReached: reached(fork),
		oneBig,
		threeFinished:
			three.stdout
				.trim()
				.split("\n")
				.filter((line) => line === "done").length === 3
				? "all"
				: "not all",
		threeReached: reached(three),
		tmp: tmp.stdout.trim(),
		tmpReached: reached(tmp),
	};
}

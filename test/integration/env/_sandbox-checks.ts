/**
 * What a command sees and can do in the shell sandbox, asked from inside it: the same observations
 * run in the test process (root in CI) and, through `_sandbox-observe.ts`, in a child process of
 * an unprivileged user, so one set of expectations holds for both.
 */
import { existsSync, readlinkSync } from "node:fs";
import type { PathPolicy } from "../../../src/contract/env.js";
import { NodeExecutionEnv } from "../../../src/env/node.js";

/** The folders of one run: `cwd` is the only root, `outside` holds a secret and a listening Unix socket. */
export interface ConfinementSetup {
	readonly cwd: string;
	readonly outside: string;
	readonly socket: string;
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
}

const NAMESPACES = ["user", "pid", "uts", "ipc", "net", "mnt"];

/** stdout of `command` run in `cwd` under `policy`, trimmed; an error's message if it could not run. */
async function run(setup: ConfinementSetup, command: string, policy: Partial<PathPolicy> = {}): Promise<string> {
	const env = new NodeExecutionEnv({ cwd: setup.cwd, policy: { read: [setup.cwd], ...policy }, killGraceMs: 200 });
	const result = await env.exec(command, { timeout: 20 });
	if (!result.ok) throw new Error(`${command}: ${result.error.message}`);
	return result.value.stdout.trim();
}

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
	};
}

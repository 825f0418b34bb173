/**
 * The file helpers of an SSH env (Node only): a few long-lived sessions over the connection, each
 * running `AGENT_SCRIPT` (`remote.ts`) and answering one request at a time. A request is a
 * function name and its arguments (and, for writes, a payload); the reply is the function's
 * output, or its error text, or `lost` when the session ended under it. Helpers start when first
 * needed, up to the pool's size, and a dead one is replaced by the next request.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { SshError } from "../ssh-types.js";
import { ensureMaster, masterAlive, masterLost, type SshConnection, sessionArgs } from "./connection.js";
import { AGENT_SCRIPT, shellQuote } from "./remote.js";

/** What the remote host has, as its first helper found it. */
export interface RemoteCaps {
	readonly home: string;
	/** Absolute paths of the programs, or "" where missing. */
	readonly bash: string;
	readonly setsid: string;
	readonly rg: string;
	readonly fd: string;
}

export type AgentReply =
	| { readonly ok: true; readonly data: Buffer }
	| { readonly ok: false; readonly message: string }
	| { readonly ok: "lost"; readonly error: SshError };

interface Agent {
	readonly child: ChildProcess;
	readonly started: Promise<RemoteCaps | SshError>;
	/** The reply being waited for. */
	current: ((line: string | SshError) => void) | undefined;
	busy: boolean;
	dead: boolean;
}

/** The helpers of one connection. */
export interface AgentPool {
	readonly connection: SshConnection;
	readonly size: number;
	readonly agents: Agent[];
	readonly waiting: ((agent: Agent | SshError) => void)[];
	caps: RemoteCaps | undefined;
	nextId: number;
}

const pools = new WeakMap<SshConnection, AgentPool>();

/** The pool of `connection` (one per connection, whatever env asks). */
export function agentPool(connection: SshConnection, size: number): AgentPool {
	let pool = pools.get(connection);
	if (!pool) {
		pool = { connection, size: Math.max(1, size), agents: [], waiting: [], caps: undefined, nextId: 1 };
		pools.set(connection, pool);
	}
	return pool;
}

/** Connect (when not connected: also after a lost connection) and learn what the host has. */
export async function remoteCaps(pool: AgentPool): Promise<RemoteCaps | SshError> {
	if (pool.caps && masterAlive(pool.connection)) return pool.caps;
	const agent = await acquire(pool);
	if (agent instanceof SshError) return agent;
	release(pool, agent);
	return pool.caps ?? new SshError("unsupported_host", pool.connection.destination, "The remote helper did not start");
}

/**
 * Run `fn` with `args` in a helper (after `payload` is sent on its stdin). Never rejects. Once
 * `signal` fires the caller gets `aborted` at once; the helper finishes the request and is freed.
 */
export async function request(
	pool: AgentPool,
	fn: string,
	args: readonly string[],
	payload?: Uint8Array,
	signal?: AbortSignal,
): Promise<AgentReply | "aborted"> {
	if (signal?.aborted) return "aborted";
	const agent = await acquire(pool);
	if (agent instanceof SshError) return { ok: "lost", error: agent };
	const id = pool.nextId++;
	const reply = new Promise<string | SshError>((resolve) => {
		agent.current = resolve;
	});
	const stdout = agent.child.stdout as { ref?: () => void; unref?: () => void } | null;
	stdout?.ref?.();
	try {
		agent.child.stdin?.write(`${requestLine(id, fn, args)}\n`);
		if (payload && payload.length > 0) agent.child.stdin?.write(payload);
	} catch {
		// A write to a session that just ended: its exit answers the request.
	}
	const done = reply.then((line) => {
		stdout?.unref?.();
		release(pool, agent);
		return parseReply(line, id);
	});
	if (!signal) return done;
	let onAbort: (() => void) | undefined;
	const aborted = new Promise<"aborted">((resolve) => {
		onAbort = () => resolve("aborted");
		signal.addEventListener("abort", onAbort, { once: true });
	});
	try {
		return await Promise.race([done, aborted]);
	} finally {
		if (onAbort) signal.removeEventListener("abort", onAbort);
	}
}

function parseReply(line: string | SshError, id: number): AgentReply {
	if (line instanceof SshError) return { ok: "lost", error: line };
	const first = line.indexOf(" ");
	const second = line.indexOf(" ", first + 1);
	const status = line.slice(first + 1, second < 0 ? undefined : second);
	const body = second < 0 ? "" : line.slice(second + 1);
	if (line.slice(0, first) !== String(id) || (status !== "ok" && status !== "err"))
		return { ok: false, message: `EPROTO unexpected reply from the remote helper: ${line.slice(0, 200)}` };
	const data = Buffer.from(body, "base64");
	return status === "ok" ? { ok: true, data } : { ok: false, message: data.toString("utf8") };
}

/**
 * The request line: `_r <id> <fn> <args>`, the function (or a program's path) and each argument one
 * single-quoted word. An argument with a line break (which would end the line early) is rebuilt on
 * the remote side by `printf %b`.
 */
function requestLine(id: number, fn: string, args: readonly string[]): string {
	let prefix = "";
	const words = args.map((arg, index) => {
		if (!arg.includes("\n")) return shellQuote(arg);
		const escaped = arg.replaceAll("\\", "\\\\").replaceAll("\n", "\\0012");
		prefix += `_v${index}=$(printf '%bx' ${shellQuote(escaped)}); _v${index}=\${_v${index}%x}; `;
		return `"$_v${index}"`;
	});
	return `${prefix}_r ${id} ${shellQuote(fn)} ${words.join(" ")}`;
}

/** A free live helper: an idle one, a new one while the pool has room, or the next one freed. */
async function acquire(pool: AgentPool): Promise<Agent | SshError> {
	for (;;) {
		const idle = pool.agents.find((agent) => !agent.busy && !agent.dead);
		let agent: Agent | SshError;
		if (idle) {
			idle.busy = true;
			agent = idle;
		} else if (pool.agents.length < pool.size) {
			const failure = await ensureMaster(pool.connection);
			if (failure) return failure;
			const started = startAgent(pool);
			started.busy = true;
			agent = started;
		} else {
			agent = await new Promise<Agent | SshError>((resolve) => pool.waiting.push(resolve));
		}
		if (agent instanceof SshError) return agent;
		const caps = await agent.started;
		if (caps instanceof SshError) {
			agent.dead = true;
			removeAgent(pool, agent);
			return caps;
		}
		pool.caps ??= caps;
		if (!agent.dead) return agent;
	}
}

function release(pool: AgentPool, agent: Agent): void {
	agent.busy = false;
	agent.current = undefined;
	if (agent.dead) {
		removeAgent(pool, agent);
		return;
	}
	const next = pool.waiting.shift();
	if (next) {
		agent.busy = true;
		next(agent);
	}
}

/** End an idle helper now (its session is killed; its exit finds it dead already). */
function retire(pool: AgentPool, agent: Agent): void {
	if (agent.dead || agent.busy) return;
	agent.dead = true;
	agent.child.kill("SIGTERM");
	removeAgent(pool, agent);
}

function removeAgent(pool: AgentPool, agent: Agent): void {
	const index = pool.agents.indexOf(agent);
	if (index < 0) return;
	pool.agents.splice(index, 1);
	// Someone waiting for a helper gets a new one (or the error of starting it).
	const next = pool.waiting.shift();
	if (next)
		void acquire(pool).then(
			(got) => next(got),
			(error: unknown) => next(new SshError("connection_lost", pool.connection.destination, String(error))),
		);
}

function startAgent(pool: AgentPool): Agent {
	const args = sessionArgs(pool.connection);
	const child = spawn(args[0] as string, [...args.slice(1), "--", `sh -c ${shellQuote(AGENT_SCRIPT)}`], {
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stderr = "";
	let readyResolve: (value: RemoteCaps | SshError) => void = () => {};
	const agent: Agent = {
		child,
		started: new Promise((resolve) => {
			readyResolve = resolve;
		}),
		current: undefined,
		busy: false,
		dead: false,
	};
	let ready = false;
	let parts: Buffer[] = [];
	child.stdout?.on("data", (chunk: Buffer) => {
		let start = 0;
		for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
			parts.push(chunk.subarray(start, newline));
			const line = Buffer.concat(parts).toString("latin1");
			parts = [];
			start = newline + 1;
			if (!ready) {
				ready = true;
				// From now on only a request in flight keeps the process alive (see `request`).
				(child.stdout as { unref?: () => void } | null)?.unref?.();
				readyResolve(parseReady(pool.connection.destination, line));
			} else agent.current?.(line);
		}
		if (start < chunk.length) parts.push(chunk.subarray(start));
	});
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr = (stderr + chunk.toString("utf8")).slice(-4000);
	});
	child.stdin?.on("error", () => {});
	const ended = () => {
		if (agent.dead) return;
		agent.dead = true;
		const said = stderr.trim() ? ` (${stderr.trim().split("\n").pop()})` : "";
		// Helpers start over a live master, so a session that ends (ssh's 255, or a signal) lost
		// the connection, started or not; one whose remote shell gave up is the host's doing.
		const lost =
			masterLost(pool.connection) ??
			(ready || child.exitCode === 255 || child.signalCode !== null
				? new SshError(
						"connection_lost",
						pool.connection.destination,
						`The session to ${pool.connection.destination} ended${said}; the next call reconnects`,
					)
				: new SshError(
						"unsupported_host",
						pool.connection.destination,
						`The env's helper could not start on ${pool.connection.destination}${said || ` (exit code ${child.exitCode})`}: the remote login shell must run \`sh -c\` commands`,
					));
		readyResolve(lost);
		agent.current?.(lost);
		// A busy helper is removed when its request lets go of it.
		if (!agent.busy) removeAgent(pool, agent);
		// The idle helpers share its connection: a lost one has taken them along, even if their
		// own sessions have not noticed yet. End them, so the next call starts over instead of
		// failing on each of them in turn.
		if (lost.code === "connection_lost") for (const other of [...pool.agents]) if (!other.busy) retire(pool, other);
	};
	child.once("exit", ended);
	child.once("error", (error) => {
		stderr += `\n${error.message}`;
		ended();
	});
	// A helper does not keep the process alive once started: its stdout stays referenced only
	// until the ready line (the caller is waiting for it) and while a request is in flight.
	child.unref();
	for (const stream of [child.stdin, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
	pool.agents.push(agent);
	return agent;
}

function parseReady(destination: string, line: string): RemoteCaps | SshError {
	const words = line.trim().split(" ");
	if (words[0] === "toolsmith-ssh" && words[1] === "ready") {
		const field = (index: number) =>
			Buffer.from(words[index] ?? "", "base64")
				.toString("utf8")
				.trim();
		return { home: field(2), bash: field(3), setsid: field(4), rg: field(5), fd: field(6) };
	}
	if (words[0] === "toolsmith-ssh" && words[1] === "unsupported")
		return new SshError(
			"unsupported_host",
			destination,
			`${destination} lacks ${words.slice(2).join(" ")}, which the SSH env needs (a POSIX shell with GNU coreutils and findutils)`,
		);
	return new SshError(
		"unsupported_host",
		destination,
		`${destination} answered ${JSON.stringify(line.slice(0, 200))} instead of starting the env's helper: the remote login shell must run \`sh -c\` commands and print nothing else on stdout`,
	);
}

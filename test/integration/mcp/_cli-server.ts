/**
 * `toolsmith mcp` as a real child process for the MCP integration tests: a copy of docs/examples in
 * a temp folder (the tests edit it) plus a probe extension that writes to stdout on purpose, marks
 * aborts and `session_shutdown` in a file, and has a tool that waits until aborted.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { cliArgs, repoRoot } from "../cli/_run.js";

export interface Project {
	readonly dir: string;
	readonly marks: string;
	/** What the probe extension wrote to its marks file so far. */
	marked(): string[];
	remove(): void;
}

/** docs/examples copied into a temp folder, with the probe extension next to them. */
export function makeProject(): Project {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-mcp-cli-")));
	cpSync(join(repoRoot, "docs/examples"), dir, { recursive: true });
	const marks = join(dir, "marks.txt");
	writeFileSync(marks, "");
	writeFileSync(
		join(dir, "probe.ts"),
		`import { appendFileSync } from "node:fs";
import { defineTool, type ExtensionAPI, Type } from "toolsmith-sdk";

const MARKS = ${JSON.stringify(marks)};

export default function (api: ExtensionAPI) {
	console.log("probe: loaded (console.log)");
	console.info("probe: loaded (console.info)");
	process.stdout.write("probe: loaded (process.stdout.write)\\n");
	api.on("session_shutdown", () => appendFileSync(MARKS, "shutdown\\n"));
	api.registerTool(
		defineTool({
			name: "wait",
			label: "Wait",
			description: "Wait until the call is aborted, printing to stdout meanwhile.",
			parameters: Type.Object({}),
			execute(_id, _args, signal) {
				console.log("probe: wait started");
				appendFileSync(MARKS, "started\\n");
				return new Promise((_resolve, reject) => {
					signal?.addEventListener("abort", () => {
						appendFileSync(MARKS, "aborted\\n");
						reject(new Error("aborted"));
					});
				});
			},
		}),
	);
}
`,
	);
	return {
		dir,
		marks,
		marked: () => readFileSync(marks, "utf8").split("\n").filter(Boolean),
		remove: () => rmSync(dir, { recursive: true, force: true }),
	};
}

/** The command line that starts `toolsmith mcp` of the current sources (see `cliArgs`). */
export function mcpCommand(args: readonly string[]): { command: string; args: string[] } {
	return { command: process.execPath, args: [...cliArgs, "mcp", ...args] };
}

export interface RawServer {
	/** Send one JSON-RPC message. */
	send(message: object): void;
	/** Write text to stdin as it is (several messages in one write, say). */
	sendRaw(text: string): void;
	/** The messages received so far, each stdout line parsed (a line that is not JSON throws). */
	messages(): Record<string, unknown>[];
	/** Resolves with the first message `match` accepts (rejects after `timeoutMs`). */
	waitFor(match: (m: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
	stdout(): string;
	stderr(): string;
	kill(signal: NodeJS.Signals): void;
	endStdin(): void;
	/** Resolves with the exit code once the process has exited. */
	exited: Promise<number | null>;
}

/** `toolsmith mcp` spawned directly, to see its stdout byte for byte and to send it signals. */
export function startRaw(args: readonly string[], cwd: string): RawServer {
	const { command, args: argv } = mcpCommand(args);
	const child = spawn(command, argv, { cwd, stdio: ["pipe", "pipe", "pipe"] });
	let stdout = "";
	let stderr = "";
	const listeners = new Set<() => void>();
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		stdout += chunk;
		for (const listener of listeners) listener();
	});
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
	const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
	const messages = () =>
		stdout
			.split("\n")
			.filter((line) => line !== "")
			.map((line) => JSON.parse(line) as Record<string, unknown>);
	return {
		send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
		sendRaw: (text) => child.stdin.write(text),
		messages,
		waitFor(match, timeoutMs = 20_000) {
			return new Promise((resolve, reject) => {
				const check = () => {
					const found = messages().find(match);
					if (!found) return;
					listeners.delete(check);
					clearTimeout(timer);
					resolve(found);
				};
				const timer = setTimeout(() => {
					listeners.delete(check);
					reject(new Error(`no matching message in ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`));
				}, timeoutMs);
				listeners.add(check);
				check();
			});
		},
		stdout: () => stdout,
		stderr: () => stderr,
		kill: (signal) => child.kill(signal),
		endStdin: () => child.stdin.end(),
		exited,
	};
}

export const INITIALIZE = {
	jsonrpc: "2.0",
	id: 0,
	method: "initialize",
	params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

/** The text blocks of a `tools/call` result, joined by newlines. */
export function textOf(result: object): string {
	const content = "content" in result && Array.isArray(result.content) ? result.content : [];
	return (content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("\n");
}

/** Resolves once `check` holds, polling every 50 ms; rejects after `timeoutMs`, naming `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
	const end = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/** `toolsmith mcp <args> --http 0` started in `cwd`, once it printed the URL it serves. */
export async function startHttp(args: readonly string[], cwd: string): Promise<{ server: RawServer; url: URL }> {
	const server = startRaw([...args, "--http", "0"], cwd);
	await until(() => /http:\/\/\S+\/mcp/.test(server.stderr()), "the URL on stderr", 30_000).catch((error: Error) => {
		server.kill("SIGTERM");
		throw new Error(`${error.message}; stderr:\n${server.stderr()}`);
	});
	return { server, url: new URL((/http:\/\/\S+\/mcp/.exec(server.stderr()) as RegExpExecArray)[0]) };
}

/**
 * Calls the probe's `wait` tool through `client`, cancels the request once the tool started, and
 * resolves once the call rejected and the tool saw its signal aborted (read from the marks file).
 */
export async function cancelWait(client: Client, project: Project): Promise<void> {
	const controller = new AbortController();
	const waiting = client.callTool({ name: "wait", arguments: {} }, undefined, { signal: controller.signal });
	await until(() => project.marked().includes("started"), "the wait tool to start");
	controller.abort();
	const outcome = await waiting.then(
		() => "resolved",
		() => "rejected",
	);
	if (outcome !== "rejected") throw new Error("the cancelled call resolved instead of rejecting");
	await until(() => project.marked().includes("aborted"), "the wait tool's signal to be aborted");
}

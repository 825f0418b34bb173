/**
 * An inspector over a real extension host in a temp folder, for the server and browser tests:
 * the demo tools copied from docs/examples, a NodeExecutionEnv wrapped in a RecordingEnv, and a
 * reader of the event stream.
 */
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { NodeExecutionEnv } from "../../../src/env/node.js";
import { createExtensionHost, type ExtensionHost } from "../../../src/extensions/node-host.js";
import { type RecordingEnv, recordingEnv } from "../../../src/harness/record.js";
import { type InspectorOptions, type InspectorServer, startInspector } from "../../../src/inspector/node-server.js";
import type { InspectorEvent } from "../../../src/inspector/protocol.js";
import { InspectorSession } from "../../../src/inspector/session.js";
import { repoRoot } from "../cli/_run.js";

export interface Inspected {
	readonly dir: string;
	readonly tools: string;
	readonly host: ExtensionHost;
	readonly recorder: RecordingEnv;
	readonly server: InspectorServer;
	/** `path` on the server, with the token. */
	url(path: string): string;
	close(): Promise<void>;
}

/** A temp project with `tools/hello.ts` and `tools/countdown.ts` and an inspector over it. */
export async function startInspected(
	options: {
		assetsDir?: string;
		builtins?: boolean;
		extensions?: readonly string[];
		/** More extension files to copy into `tools/` (paths in the repository). */
		files?: readonly string[];
		/** Files to write into `tools/` before the host starts: name → source. */
		sources?: Readonly<Record<string, string>>;
		/** The limits on what clients leave unread (event streams, JSON answers). */
		streams?: Pick<
			InspectorOptions,
			"maxEventStreams" | "maxUnsentEventBytes" | "maxPendingAnswerBytes" | "answerTimeoutMs"
		>;
	} = {},
): Promise<Inspected> {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-inspector-")));
	const tools = join(dir, "tools");
	mkdirSync(tools);
	for (const name of options.extensions ?? ["hello.ts", "countdown.ts"]) {
		copyFileSync(join(repoRoot, "docs/examples", name), join(tools, name));
	}
	for (const file of options.files ?? []) copyFileSync(join(repoRoot, file), join(tools, basename(file)));
	for (const [name, source] of Object.entries(options.sources ?? {})) writeFileSync(join(tools, name), source);
	const recorder = recordingEnv(new NodeExecutionEnv({ cwd: dir }));
	const host = createExtensionHost({
		paths: [tools],
		cwd: dir,
		env: recorder,
		watch: true,
		builtins: options.builtins ?? true,
		catchStrayErrors: true,
	});
	const session = new InspectorSession(host, recorder);
	const server = await startInspector({
		host,
		session,
		cwd: dir,
		envKind: "node",
		extensionPaths: [tools],
		...(options.assetsDir ? { assetsDir: options.assetsDir } : {}),
		...options.streams,
	});
	return {
		dir,
		tools,
		host,
		recorder,
		server,
		url: (path) => `http://127.0.0.1:${server.port}${path}${path.includes("?") ? "&" : "?"}token=${server.token}`,
		async close() {
			await server.close();
			await host.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** A raw HTTP request (fetch cannot set `Host`), answering status, headers and body. */
export function rawRequest(
	port: number,
	path: string,
	headers: Record<string, string>,
	method = "GET",
	body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
	return new Promise((resolve, reject) => {
		const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
			let text = "";
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => (text += chunk));
			res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
		});
		req.on("error", reject);
		req.end(body);
	});
}

/** Reads the event stream; `next(predicate)` resolves with the first matching event from now on or already seen. */
export function eventStream(url: string): {
	next(predicate: (event: InspectorEvent) => boolean, timeoutMs?: number): Promise<InspectorEvent>;
	seen: InspectorEvent[];
	close(): void;
} {
	const seen: InspectorEvent[] = [];
	const waiters: { predicate: (event: InspectorEvent) => boolean; resolve: (e: InspectorEvent) => void }[] = [];
	const controller = new AbortController();
	void (async () => {
		try {
			const response = await fetch(url, { signal: controller.signal });
			const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
			let buffer = "";
			for (;;) {
				const { value, done } = await reader.read();
				if (done) return;
				buffer += value;
				let end = buffer.indexOf("\n\n");
				while (end >= 0) {
					const frame = buffer.slice(0, end);
					buffer = buffer.slice(end + 2);
					end = buffer.indexOf("\n\n");
					const data = frame
						.split("\n")
						.filter((l) => l.startsWith("data: "))
						.map((l) => l.slice(6))
						.join("\n");
					if (data === "") continue;
					const event = JSON.parse(data) as InspectorEvent;
					seen.push(event);
					for (const waiter of [...waiters]) {
						if (waiter.predicate(event)) {
							waiters.splice(waiters.indexOf(waiter), 1);
							waiter.resolve(event);
						}
					}
				}
			}
		} catch {
			// closed
		}
	})();
	return {
		seen,
		next(predicate, timeoutMs = 10_000) {
			const found = seen.find(predicate);
			if (found) return Promise.resolve(found);
			return new Promise((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error("no matching event in time")), timeoutMs);
				waiters.push({
					predicate,
					resolve: (e) => {
						clearTimeout(timer);
						resolve(e);
					},
				});
			});
		},
		close: () => controller.abort(),
	};
}

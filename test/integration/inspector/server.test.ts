/**
 * The inspector's server without a browser: the token, Host and Origin checks, validation by the
 * executor's rules, calls with their updates and abort, reloads on the event stream, provider
 * views, and Save as fixture replayed by `toolsmith test`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/exec/execute.js";
import { startInspector } from "../../../src/inspector/node-server.js";
import type {
	CallStarted,
	FixtureResponse,
	InspectorCall,
	InspectorState,
	ProvidersResponse,
	ValidateResponse,
} from "../../../src/inspector/protocol.js";
import { InspectorSession } from "../../../src/inspector/session.js";
import { runCli } from "../cli/_run.js";
import { eventStream, type Inspected, rawRequest, startInspected } from "./_server.js";

let assets: string;
let it_: Inspected;

beforeAll(async () => {
	assets = mkdtempSync(join(tmpdir(), "toolsmith-inspector-assets-"));
	writeFileSync(join(assets, "index.html"), '<script type="module" src="app.js?token=__TOKEN__"></script>');
	writeFileSync(join(assets, "app.js"), "export {};");
	writeFileSync(join(assets, "app.css"), "body{}");
	it_ = await startInspected({ assetsDir: assets, extensions: ["hello.ts", "countdown.ts", "read-override.ts"] });
});

afterAll(async () => {
	await it_?.close();
	rmSync(assets, { recursive: true, force: true });
});

async function post<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
	const response = await fetch(it_.url(path), {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(body),
	});
	return { status: response.status, body: (await response.json()) as T };
}

async function callAndWait(tool: string, args: unknown): Promise<InspectorCall> {
	const events = eventStream(it_.url("/api/events"));
	try {
		const { body } = await post<CallStarted>("/api/call", { tool, args });
		const end = await events.next((e) => e.type === "call" && e.call.id === body.id && e.call.status !== "running");
		return (end as { call: InspectorCall }).call;
	} finally {
		events.close();
	}
}

describe("requests are refused without the token, with a foreign Host or Origin", () => {
	const host = () => `127.0.0.1:${it_.server.port}`;

	it("serves the page with the token, and puts the token into the asset addresses", async () => {
		const page = await rawRequest(it_.server.port, `/?token=${it_.server.token}`, { host: host() });
		expect(page.status).toBe(200);
		expect(page.body).toContain(`app.js?token=${it_.server.token}`);
		expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
		expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
		expect(page.headers["referrer-policy"]).toBe("no-referrer");
	});

	it.each([
		["no token", "/api/state", {}],
		["a wrong token", `/api/state?token=${"0".repeat(48)}`, {}],
		["the token in a wrong header", "/api/state", { authorization: "Bearer x" }],
		["no token on the event stream", "/api/events", {}],
		["no token on the page", "/", {}],
		["no token on an asset", "/app.js", {}],
	])("403 with %s", async (_label, path, extra) => {
		const response = await rawRequest(it_.server.port, path, { host: host(), ...extra });
		expect(response.status).toBe(403);
		expect(JSON.parse(response.body).error).toMatch(/token/);
	});

	it("403 for a wrong Host (DNS rebinding) even with the token", async () => {
		const response = await rawRequest(it_.server.port, `/api/state?token=${it_.server.token}`, {
			host: `evil.example:${it_.server.port}`,
		});
		expect(response.status).toBe(403);
		expect(JSON.parse(response.body).error).toMatch(/Host "evil.example/);
	});

	it("403 for a foreign Origin even with the token, on reads and on calls", async () => {
		for (const [method, path] of [
			["GET", "/api/state"],
			["POST", "/api/call"],
		] as const) {
			const response = await rawRequest(
				it_.server.port,
				`${path}?token=${it_.server.token}`,
				{ host: host(), origin: "http://evil.example", "content-type": "application/json" },
				method,
				method === "POST" ? JSON.stringify({ tool: "bash", args: { command: "touch pwned" } }) : undefined,
			);
			expect(response.status).toBe(403);
			expect(JSON.parse(response.body).error).toMatch(/Origin/);
		}
		expect(it_.recorder.io.some((e) => e.op === "exec")).toBe(false);
	});

	it("accepts its own Origin and the localhost spellings of its Host", async () => {
		for (const name of ["127.0.0.1", "localhost"]) {
			const response = await rawRequest(it_.server.port, `/api/state?token=${it_.server.token}`, {
				host: `${name}:${it_.server.port}`,
				origin: `http://${name}:${it_.server.port}`,
			});
			expect(response.status).toBe(200);
		}
	});

	it("refuses a POST that is not JSON (a cross-site form cannot send one without a preflight)", async () => {
		const response = await rawRequest(
			it_.server.port,
			`/api/call?token=${it_.server.token}`,
			{ host: host(), "content-type": "text/plain" },
			"POST",
			JSON.stringify({ tool: "hello", args: { name: "x" } }),
		);
		expect(response.status).toBe(415);
	});

	it("on another interface, takes any Host with the token but still no foreign Origin", async () => {
		const token = "a-token-for-the-network-1";
		const open = await startInspector({
			host: it_.host,
			session: new InspectorSession(it_.host),
			cwd: it_.dir,
			envKind: "node",
			extensionPaths: [],
			hostname: "0.0.0.0",
			token,
			assetsDir: assets,
		});
		try {
			const asLan = { host: `192.0.2.7:${open.port}` };
			expect((await rawRequest(open.port, `/api/state?token=${token}`, asLan)).status).toBe(200);
			expect((await rawRequest(open.port, "/api/state", asLan)).status).toBe(403);
			const sameOrigin = { ...asLan, origin: `http://192.0.2.7:${open.port}` };
			expect((await rawRequest(open.port, `/api/state?token=${token}`, sameOrigin)).status).toBe(200);
			const foreign = { ...asLan, origin: "http://evil.example" };
			expect((await rawRequest(open.port, `/api/state?token=${token}`, foreign)).status).toBe(403);
		} finally {
			await open.close();
		}
	});

	it("will not listen on another interface without a token", async () => {
		await expect(
			startInspector({
				host: it_.host,
				session: new InspectorSession(it_.host),
				cwd: it_.dir,
				envKind: "node",
				extensionPaths: [],
				hostname: "0.0.0.0",
				assetsDir: assets,
			}),
		).rejects.toThrow(/token/);
	});
});

describe("the API", () => {
	it("lists the tools with source, mode and kind", async () => {
		const state = (await (await fetch(it_.url("/api/state"))).json()) as InspectorState;
		const hello = state.tools.find((t) => t.name === "hello");
		expect(hello).toMatchObject({ kind: "extension", source: "tools/hello.ts", mode: "parallel" });
		expect(state.tools.find((t) => t.name === "write")?.kind).toBe("builtin");
		expect(state.tools.find((t) => t.name === "read")).toMatchObject({
			kind: "override",
			source: "tools/read-override.ts",
		});
		expect(state.prompt).toContain("hello");
	});

	it("validates as the executor does: same message, problems by path, repaired values", async () => {
		const bad = await post<ValidateResponse>("/api/validate", { tool: "countdown", args: { from: 500 } });
		expect(bad.body.ok).toBe(false);
		if (bad.body.ok) return;
		expect(bad.body.problems.map((p) => p.path)).toEqual(["/from"]);
		const tool = it_.host.registry.snapshot().get("countdown")!;
		const executed = await executeToolCalls(
			[{ type: "toolCall", id: "x", name: "countdown", arguments: { from: 500 } }],
			{
				tools: it_.host.tools(),
			},
		);
		expect(executed.results[0]?.content[0]).toEqual({ type: "text", text: bad.body.message });
		expect(tool.name).toBe("countdown");
		const repaired = await post<ValidateResponse>("/api/validate", { tool: "countdown", args: { from: "3" } });
		expect(repaired.body).toEqual({ ok: true, value: { from: 3 } });
		const unknown = await post<{ error: string }>("/api/validate", { tool: "nope", args: {} });
		expect(unknown.status).toBe(404);
	});

	it("runs a call through the executor and shows the rendered result, content and details", async () => {
		const call = await callAndWait("hello", { name: "Ada" });
		expect(call.status).toBe("ok");
		expect(call.renderedCall.lines.join("")).toContain("Ada");
		const rendered = call.renderedResult?.lines.join("") ?? "";
		expect(rendered).toContain("Hello, Ada.");
		expect(rendered).toContain("\u001b[32m"); // the renderer's success colour, as ANSI
		expect(call.result).toMatchObject({ content: [{ type: "text", text: "Hello, Ada." }], details: { name: "Ada" } });
		expect(call.durationMs).toBeGreaterThanOrEqual(0);
	});

	it("streams partial updates and aborts a running call", async () => {
		const events = eventStream(it_.url("/api/events"));
		try {
			const { body } = await post<CallStarted>("/api/call", { tool: "countdown", args: { from: 50, intervalMs: 50 } });
			await events.next((e) => e.type === "update" && e.id === body.id && e.update.partial !== null);
			const aborted = await post<{ aborted: boolean }>("/api/abort", { id: body.id });
			expect(aborted.body.aborted).toBe(true);
			const end = (await events.next(
				(e) => e.type === "call" && e.call.id === body.id && e.call.status !== "running",
			)) as {
				call: InspectorCall;
			};
			expect(end.call.status).toBe("aborted");
			expect(end.call.updates.length).toBeGreaterThan(0);
			expect(end.call.updates[0]?.rendered.lines.join("")).toContain("to go");
			expect(end.call.recordable).toBe(false);
		} finally {
			events.close();
		}
	});

	it("shows each provider's JSON with its rewrite report", async () => {
		const response = await fetch(it_.url("/api/providers?tool=countdown"));
		const body = (await response.json()) as ProvidersResponse;
		expect(body.providers.map((p) => p.provider)).toEqual(["openai-chat", "openai-responses", "anthropic", "google"]);
		const google = body.providers.find((p) => p.provider === "google")!;
		expect(JSON.stringify(google.json)).toContain("countdown");
		expect(body.providers.every((p) => Array.isArray(p.rewrites))).toBe(true);
	});

	it("saves the calls as a fixture that toolsmith test passes, leaving the aborted call out", async () => {
		writeFileSync(join(it_.dir, "notes.txt"), "first line\n");
		const write = await callAndWait("write", { path: "out.txt", content: "written\n" });
		expect(write.status).toBe("ok");
		const read = await callAndWait("read", { path: "notes.txt" });
		expect(read.status).toBe("ok");
		const saved = await post<FixtureResponse>("/api/fixture", { name: "my session" });
		expect(saved.status).toBe(200);
		expect(saved.body.displayPath).toBe("test/fixtures/my-session.json");
		expect(saved.body.warnings.join("\n")).toMatch(/aborted call of countdown/);
		const text = readFileSync(saved.body.path, "utf8");
		const fixture = JSON.parse(text);
		// Portable: it names no folder of this machine, and replays in the memory env's own.
		expect(text).not.toContain(it_.dir);
		expect(fixture.cwd).toBeUndefined();
		expect(fixture.extensions).toEqual(["../../tools"]);
		expect(fixture.steps.map((s: { calls: { tool: string }[] }) => s.calls[0]?.tool)).toEqual([
			"hello",
			"write",
			"read",
		]);
		expect(fixture.files["notes.txt"]).toBe("first line\n");
		const again = await post<FixtureResponse>("/api/fixture", { name: "my session" });
		expect(again.body.displayPath).toBe("test/fixtures/my-session-2.json");

		const run = await runCli(["test", saved.body.path]);
		expect(run.stderr).toMatch(/^info .*read-override\.ts .*replaces the built-in/);
		expect(run.stderr).not.toMatch(/^(error|warning)/m);
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/pass .*my-session\.json\s+3\/3/);
		expect(run.stdout).toMatch(/1 fixture passed/);
	});
});

describe("live reload", () => {
	it("sends the reload line and the new tools; a broken save sends its diagnostic and keeps the last good version", async () => {
		const events = eventStream(it_.url("/api/events"));
		try {
			const file = join(it_.tools, "hello.ts");
			const source = readFileSync(file, "utf8");
			writeFileSync(file, source.replace("`Hello, ", "`Howdy, "));
			const reload = await events.next((e) => e.type === "reload" && e.reload.ok);
			if (reload.type !== "reload") throw new Error("unreachable");
			expect(reload.reload.lines[0]).toMatch(/reloaded.*tools\/hello\.ts/);
			expect(reload.reload.changed).toEqual(["hello"]);
			expect((await callAndWait("hello", { name: "Ada" })).result).toMatchObject({
				content: [{ text: "Howdy, Ada." }],
			});

			writeFileSync(file, `${source}\nconst broken = ;\n`);
			const failed = await events.next((e) => e.type === "reload" && !e.reload.ok);
			if (failed.type !== "reload") throw new Error("unreachable");
			expect(failed.reload.lines[0]).toMatch(/reload failed/);
			const diagnostic = failed.reload.diagnostics[0]!;
			expect(diagnostic.text).toMatch(/^error tools\/hello\.ts:\d+:\d+ /);
			expect(failed.state.tools.find((t) => t.name === "hello")?.diagnostics[0]?.text).toBe(diagnostic.text);
			expect((await callAndWait("hello", { name: "Ada" })).result).toMatchObject({
				content: [{ text: "Howdy, Ada." }],
			});
			writeFileSync(file, source);
			await events.next((e) => e.type === "reload" && e.reload.ok && e.reload.at > failed.reload.at);
		} finally {
			events.close();
		}
	});
});

// Last: its calls would join the fixture the API test saves.
describe("tool renderers of extensions", () => {
	it("draws calls and results as an extension's tool renderer says (registerToolRenderer)", async () => {
		const file = join(it_.tools, "draw-hello.ts");
		writeFileSync(
			file,
			`export default (api) => api.registerToolRenderer((name, next) => name === "hello"
				? { renderCall: (args) => "drawn: hello " + args.name, renderResult: () => "result drawn by a resolver" }
				: next());\n`,
		);
		try {
			await it_.host.reload(it_.tools);
			const call = await callAndWait("hello", { name: "Ada" });
			expect(call.renderedCall.lines).toEqual(["drawn: hello Ada"]);
			expect(call.renderedResult?.lines).toEqual(["result drawn by a resolver"]);
		} finally {
			rmSync(file, { force: true });
			await it_.host.reload(it_.tools);
		}
		expect((await callAndWait("hello", { name: "Ada" })).renderedCall.lines.join("")).not.toContain("drawn:");
	});
});

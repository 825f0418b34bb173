import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { complete, runDevLoop } from "../../../src/cli/_dev.js";
import { StringEnum, Type } from "../../../src/contract/schema.js";
import { defineTool } from "../../../src/contract/tool.js";
import type { ToolRenderers } from "../../../src/extensions/api.js";
import { ansiTheme, plainTheme } from "../../../src/render/theme.js";
import { type FakeIO, fakeHost, fakeIO } from "./_fake-host.js";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }], details: {} });

const greet = defineTool({
	name: "greet",
	label: "Greet",
	description: "Say hello.",
	parameters: Type.Object({ name: Type.String(), loud: Type.Optional(Type.Boolean()) }),
	async execute(_id, { name, loud }) {
		const line = `Hello, ${name}!`;
		return text(loud ? line.toUpperCase() : line);
	},
	renderCall: (args, theme) => `${theme.bold("greet")} ${args.name}`,
	renderResult: (result) => [`said: ${(result.content[0] as { text: string }).text}`],
});

const progress = defineTool({
	name: "progress",
	label: "Progress",
	description: "Count to three, reporting each step.",
	parameters: Type.Object({ mode: StringEnum(["fast", "slow"]) }),
	executionMode: "sequential",
	async execute(_id, _params, _signal, onUpdate) {
		for (let i = 1; i <= 3; i++) {
			onUpdate?.(text(`step ${i}/3`));
			await new Promise((r) => setImmediate(r));
		}
		return text("counted to 3");
	},
});

const brokenRenderer = defineTool({
	name: "broken",
	label: "Broken",
	description: "Its renderer throws.",
	parameters: Type.Object({}),
	async execute() {
		return text("raw output\nsecond line");
	},
	renderResult: () => {
		throw new Error("details.items is undefined");
	},
});

const failing = defineTool({
	name: "failing",
	label: "Failing",
	description: "Always throws.",
	parameters: Type.Object({ n: Type.Array(Type.Number()) }),
	async execute() {
		throw new Error("nope");
	},
});

const waiting = defineTool({
	name: "wait",
	label: "Wait",
	description: "Waits until aborted.",
	parameters: Type.Object({}),
	execute: (_id, _params, signal) =>
		new Promise<never>((_resolve, reject) => {
			signal?.addEventListener("abort", () => reject(new Error("stopped waiting")), { once: true });
		}),
});

const tools = [greet, progress, brokenRenderer, failing, waiting];

/** Counts through `progress`, called with ctx.executeTool, passing on how many steps it heard. */
const relay = defineTool({
	name: "relay",
	label: "Relay",
	description: "Counts through progress.",
	parameters: Type.Object({}),
	async execute(_id, _params, signal, _onUpdate, ctx) {
		let heard = 0;
		const outcome = await ctx.executeTool!("progress", { mode: "fast" }, { signal, onUpdate: () => heard++ });
		return text(`${outcome.toolCall.id} heard ${heard} steps`);
	},
});
const normalize = (s: string) => s.replace(/\d+ ms/g, "N ms");

async function script(lines: string[], io: FakeIO = fakeIO()) {
	const host = fakeHost(tools);
	const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: false });
	io.stdin.end(`${lines.join("\n")}\n`);
	const code = await exit;
	return { code, out: normalize(io.out()), err: io.err(), host };
}

describe("dev loop over piped stdin", () => {
	it("draws calls as the extensions' tool renderers say (registerToolRenderer), also for unknown tools", async () => {
		const io = fakeIO();
		const host = fakeHost(tools);
		const runtime = host.runtime as typeof host.runtime & { resolveToolRenderers?: unknown };
		runtime.resolveToolRenderers = (name: string, next: () => ToolRenderers | undefined) =>
			name === "greet" || name === "nothere"
				? { renderCall: () => `drawn by a resolver: ${name}`, renderResult: () => "result drawn by a resolver" }
				: next();
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: false });
		io.stdin.end('call greet {"name":"Ada"}\ncall nothere {}\ncall progress {"mode":"fast"}\n');
		await exit;
		const out = normalize(io.out());
		expect(out).toContain('> call greet {"name":"Ada"}\ndrawn by a resolver: greet\n  result drawn by a resolver\n');
		expect(out).toContain("> call nothere {}\ndrawn by a resolver: nothere\n  result drawn by a resolver\n✗ error");
		expect(out).toContain('progress {"mode":"fast"}\n');
	});

	it("runs calls with renderers, falls back when there is none, and exits 0 at end of input", async () => {
		const { code, out, err, host } = await script([
			'call greet {"name":"Ada"}',
			"# a comment is ignored",
			"",
			'call progress {"mode":"fast"}',
		]);
		expect(code).toBe(0);
		expect(err).toBe("");
		expect(host.closed).toBe(1);
		expect(out).toMatchInlineSnapshot(`
			"> call greet {"name":"Ada"}
			greet Ada
			  said: Hello, Ada!
			✓ ok · N ms
			> call progress {"mode":"fast"}
			progress {"mode":"fast"}
			  … step 1/3
			  … step 2/3
			  … step 3/3
			  counted to 3
			✓ ok · N ms
			"
		`);
	});

	it("shows a nested call's partial updates at its depth, each once, before the nested call is drawn", async () => {
		const io = fakeIO();
		const host = fakeHost([...tools, relay]);
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: false });
		io.stdin.end("call relay {}\n");
		await exit;
		expect(normalize(io.out())).toMatchInlineSnapshot(`
			"> call relay {}
			relay
			    … step 1/3 · call-1/1
			    … step 2/3 · call-1/1
			    … step 3/3 · call-1/1
			  ↳ progress {"mode":"fast"}
			      counted to 3
			    ✓ ok · call-1/1 · N ms
			  call-1/1 heard 3 steps
			✓ ok · N ms
			"
		`);
	});

	it("shows the renderer's error next to the fallback, and tool errors as errors", async () => {
		const { code, out } = await script(["call broken", 'call failing {"n":[1]}']);
		expect(code).toBe(0);
		expect(out).toMatchInlineSnapshot(`
			"> call broken
			broken
			  raw output
			  second line
			  ! renderResult of broken failed: details.items is undefined
			✓ ok · N ms
			> call failing {"n":[1]}
			failing {"n":[1]}
			  nope
			✗ error · N ms
			"
		`);
	});

	it("prints the executor's error for invalid arguments and unknown tools", async () => {
		const { code, out } = await script(['call failing {"n":"x"}', "call nothere {}"]);
		expect(code).toBe(0);
		expect(out).toMatch(/^failing \{"n":"x"\}\n {2}.*"failing".*\n(.*\n)*✗ error · N ms$/m);
		expect(out).toMatch(/^nothere\n {2}Tool nothere not found.*greet, progress, broken, failing, wait.*\n✗ error/m);
	});

	it("lists tools, prints the prompt and the help", async () => {
		const { out } = await script(["tools", "prompt", "help"]);
		expect(out).toMatchInlineSnapshot(`
			"> tools
			  name      source          mode        parameters
			  greet     tools/greet.ts  parallel    name: string, loud?: boolean
			  progress  built-in        sequential  mode: fast|slow
			  broken    built-in        parallel    (none)
			  failing   built-in        parallel    n: number[]
			  wait      built-in        parallel    (none)

			  command  source          description
			  /hello   tools/greet.ts  Say hello
			> prompt
			Available tools:
			- greet: Say hello.
			- progress: Count to three, reporting each step.
			- broken: Its renderer throws.
			- failing: Always throws.
			- wait: Waits until aborted.
			> help
			Commands:
			  call <tool> [json-args]   Run a tool through the executor, e.g. call read {"path":"README.md"}
			  tools                     List the active tools (and the extensions' commands)
			  /<command> [args]         Run a command an extension registered
			  prompt                    Show the tools section of the system prompt
			  expand on|off             Show results in full (on, the default) or as a preview
			  reload [path]             Reload one extension, or all of them
			  help                      Show this help
			  exit                      Close the host and leave (also Ctrl-D; Ctrl-C twice)
			Ctrl-C aborts a running call. Lines starting with # are ignored.
			"
		`);
	});

	it("reports lines it cannot run on stderr and exits 1 at end of input", async () => {
		const { code, out, err } = await script(["frobnicate", "call greet {name:", "call", "expand maybe", "reload"]);
		expect(code).toBe(1);
		expect(out).toContain("> frobnicate");
		expect(err.replace(/JSON \(.*\);/, "JSON (…);")).toMatchInlineSnapshot(`
			"unknown command 'frobnicate' (type help for the list)
			call greet: the arguments are not valid JSON (…); write them as one JSON object
			usage: call <tool> [json-args], e.g. call read {"path":"README.md"}
			usage: expand on|off
			reload: this host cannot reload on demand
			"
		`);
	});

	it("runs extension commands as /name args, and reports unknown ones and handler failures", async () => {
		const log: string[] = [];
		const io = fakeIO();
		const exit = runDevLoop(fakeHost(tools, log), { io, theme: plainTheme, cwd: "/project", interactive: false });
		io.stdin.end("/hello there  you\n/hello fail\n/nope\n");
		expect(await exit).toBe(1);
		expect(log).toEqual(["hello(there  you)"]);
		expect(io.out()).toContain("/hello failed: the handler broke\n");
		expect(io.err()).toBe("unknown command '/nope': no extension registered it (type tools for the list)\n");
	});

	it("completes commands, tool names after call, and extension commands", () => {
		const host = fakeHost(tools);
		expect(complete(host, "ca")).toEqual([["call"], "ca"]);
		expect(complete(host, "call pro")).toEqual([["progress"], "pro"]);
		expect(complete(host, "call ")).toEqual([["greet", "progress", "broken", "failing", "wait"], ""]);
		expect(complete(host, "/he")).toEqual([["/hello"], "/he"]);
		expect(complete(host, "e")).toEqual([["expand", "exit"], "e"]);
		expect(complete(host, "tools x")).toEqual([[], "tools x"]);
	});

	it("stops at exit without reading further and closes the host once", async () => {
		const { code, out, host } = await script(["exit", 'call greet {"name":"never"}']);
		expect(code).toBe(0);
		expect(out).not.toContain("never\n");
		expect(host.closed).toBe(1);
	});

	it("prints reload lines and diagnostics as they arrive, with file:line:col", async () => {
		const io = fakeIO();
		const host = fakeHost(tools);
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: false });
		host.emitReload({
			path: "/project/weather.ts",
			durationMs: 18.4,
			added: ["forecast"],
			removed: ["old"],
			changed: ["current"],
			diagnostics: [],
		});
		host.emitReload({
			path: "/project/weather.ts",
			durationMs: 7,
			added: [],
			removed: [],
			changed: [],
			diagnostics: [
				{
					severity: "error",
					message: "Unexpected token",
					path: "/project/weather.ts",
					line: 3,
					column: 7,
					code: "E_EXTENSION_LOAD",
				},
			],
		});
		host.emitReload({
			path: "/project/new.ts",
			kind: "load",
			durationMs: 5,
			added: ["fresh"],
			removed: [],
			changed: [],
			diagnostics: [],
		});
		host.emitReload({
			path: "/project/new.ts",
			kind: "unload",
			durationMs: 1,
			added: [],
			removed: ["fresh"],
			changed: [],
			diagnostics: [],
		});
		host.emitReload({ path: "/project/same.ts", durationMs: 2, added: [], removed: [], changed: [], diagnostics: [] });
		host.emitDiagnostic({
			severity: "warning",
			message: "tool name 'a.b' is not valid for google",
			path: "/elsewhere/x.ts",
		});
		io.stdin.end();
		expect(await exit).toBe(0);
		expect(io.out()).toMatchInlineSnapshot(`
			"reloaded weather.ts in 18 ms · +forecast -old ~current
			reload failed weather.ts in 7 ms · the previous version stays active
			  error weather.ts:3:7 Unexpected token [E_EXTENSION_LOAD]
			loaded new.ts in 5 ms · +fresh
			unloaded new.ts in 1 ms · -fresh
			reloaded same.ts in 2 ms · no tool changes
			warning /elsewhere/x.ts tool name 'a.b' is not valid for google
			"
		`);
	});

	it("shows a diagnostic once when it also comes inside its reload event, and loose ones on their own", async () => {
		const io = fakeIO();
		const host = fakeHost(tools);
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: false });
		const broken = {
			severity: "error" as const,
			message: "Unexpected token",
			path: "/project/w.ts",
			line: 2,
			column: 5,
		};
		host.emitDiagnostic(broken);
		host.emitReload({
			path: "/project/w.ts",
			durationMs: 4,
			added: [],
			removed: [],
			changed: [],
			diagnostics: [broken],
		});
		host.emitDiagnostic({ severity: "warning", message: "a handler failed", path: "/project/h.ts" });
		expect(io.out()).toBe(
			"reload failed w.ts in 4 ms · the previous version stays active\n  error w.ts:2:5 Unexpected token\n",
		);
		for (let i = 0; i < 500 && !io.out().includes("handler"); i++) await new Promise((r) => setTimeout(r, 2));
		expect(io.out()).toMatch(/\nwarning h\.ts a handler failed\n$/);
		io.stdin.end();
		expect(await exit).toBe(0);
	});

	it("colors with the ANSI theme", async () => {
		const io = fakeIO();
		const host = fakeHost(tools);
		const exit = runDevLoop(host, { io, theme: ansiTheme, cwd: "/project", interactive: false });
		io.stdin.end('call greet {"name":"Ada"}\n');
		await exit;
		expect(io.out()).toContain("\x1b[1mgreet\x1b[22m Ada");
		expect(io.out()).toContain("\x1b[32m✓ ok\x1b[39m");
	});

	it("shows a preview when expand is off", async () => {
		const long = defineTool({
			name: "long",
			label: "Long",
			description: "Many lines.",
			parameters: Type.Object({}),
			execute: async () => text(Array.from({ length: 14 }, (_, i) => `line ${i + 1}`).join("\n")),
		});
		const io = fakeIO();
		const exit = runDevLoop(fakeHost([long]), { io, theme: plainTheme, cwd: "/project", interactive: false });
		io.stdin.end("expand off\ncall long\n");
		await exit;
		expect(normalize(io.out())).toContain("  line 10\n  … 4 more lines\n✓ ok");
	});
});

describe("Ctrl-C", () => {
	async function waitFor(check: () => boolean) {
		for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
		expect(check()).toBe(true);
	}

	it("aborts a running call, then the loop goes on", async () => {
		const io = fakeIO();
		const host = fakeHost(tools);
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: false });
		io.stdin.write("call wait\n");
		await waitFor(() => io.out().includes("wait\n"));
		io.interrupt();
		await waitFor(() => io.out().includes("aborted"));
		io.stdin.end('call greet {"name":"after"}\n');
		expect(await exit).toBe(0);
		expect(normalize(io.out())).toMatchInlineSnapshot(`
			"> call wait
			wait
			^C aborting the call (Ctrl-C again to exit)
			  stopped waiting
			✗ aborted · N ms
			> call greet {"name":"after"}
			greet after
			  said: Hello, after!
			✓ ok · N ms
			"
		`);
	});

	it("exits with 130 on a second Ctrl-C and closes the host", async () => {
		const io = fakeIO();
		const host = fakeHost(tools);
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: false });
		io.interrupt();
		expect(io.out()).toContain("(Ctrl-C again to exit)");
		io.interrupt();
		expect(await exit).toBe(130);
		expect(host.closed).toBe(1);
	});

	it("a command between two Ctrl-C presses disarms the exit", async () => {
		const io = fakeIO();
		const host = fakeHost(tools);
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: false });
		io.interrupt();
		io.stdin.write("tools\n");
		await waitFor(() => io.out().includes("> tools"));
		io.interrupt();
		io.stdin.end();
		expect(await exit).toBe(0);
	});
});

describe("dev loop on a terminal", () => {
	function terminalIO() {
		const io = fakeIO();
		let written = "";
		// readline needs a real Writable for its terminal output; it is the same stream as stdout.
		const stdout = new Writable({
			write(chunk: Buffer, _encoding: string, done: () => void) {
				written += chunk.toString();
				done();
			},
		});
		Object.assign(stdout, { isTTY: true, columns: 60 });
		return { io: { ...io, stdout }, out: () => written, stdin: io.stdin };
	}

	async function waitFor(check: () => boolean) {
		for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 2));
		expect(check()).toBe(true);
	}

	it("prompts, redraws partial updates in place, aborts with Ctrl-C and exits 130 on the second", async () => {
		const { io, out, stdin } = terminalIO();
		const host = fakeHost(tools);
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: true });
		await waitFor(() => out().includes("toolsmith> "));
		stdin.write('call progress {"mode":"fast"}\r');
		await waitFor(() => out().includes("✓ ok"));
		// Each partial replaces the previous one: cursor up over its lines, then clear to the end.
		expect(out()).toContain(
			"  step 1/3\n\x1b[1A\r\x1b[J  step 2/3\n\x1b[1A\r\x1b[J  step 3/3\n\x1b[1A\r\x1b[J  counted to 3\n",
		);
		stdin.write("call wait\r");
		await waitFor(() => out().includes("wait\n"));
		stdin.write("\x03");
		await waitFor(() => out().includes("✗ aborted"));
		expect(out()).toContain("^C aborting the call (Ctrl-C again to exit)");
		stdin.write("\x03");
		expect(await exit).toBe(130);
		expect(host.closed).toBe(1);
	});

	it("redraws a nested call's partial updates in place at its depth", async () => {
		const { io, out, stdin } = terminalIO();
		const host = fakeHost([...tools, relay]);
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: true });
		await waitFor(() => out().includes("toolsmith> "));
		stdin.write("call relay {}\r");
		await waitFor(() => out().includes("heard 3 steps"));
		expect(out()).toContain(
			"    … step 1/3\n\x1b[1A\r\x1b[J    … step 2/3\n\x1b[1A\r\x1b[J    … step 3/3\n\x1b[1A\r\x1b[J  ↳ progress",
		);
		stdin.write("exit\r");
		expect(await exit).toBe(0);
	});

	it("cuts long lines to the terminal width and reprints the prompt after a reload line", async () => {
		const { io, out, stdin } = terminalIO();
		const host = fakeHost(tools);
		const exit = runDevLoop(host, { io, theme: plainTheme, cwd: "/project", interactive: true });
		await waitFor(() => out().includes("toolsmith> "));
		stdin.write(`call greet {"name":"${"x".repeat(100)}"}\r`);
		await waitFor(() => out().includes("✓ ok"));
		expect(out()).toMatch(/\n {2}said: Hello, x+…\n/);
		const before = out().length;
		host.emitReload({ path: "/project/a.ts", durationMs: 3, added: ["n"], removed: [], changed: [], diagnostics: [] });
		const after = out().slice(before);
		expect(after.startsWith("\r\x1b[Kreloaded a.ts in 3 ms · +n\n")).toBe(true);
		expect(after).toContain("toolsmith> ");
		stdin.write("exit\r");
		expect(await exit).toBe(0);
	});
});

/**
 * What `@mariozechner/pi-coding-agent` (and `@earendil-works/pi-coding-agent`) resolve to inside
 * extensions: the parts tool-only pi extensions use, on top of toolsmith's tools and env.
 */

import { resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { ExecutionEnv } from "../../contract/env.js";
import { describeValue } from "../../contract/errors.js";
import type { RenderComponent } from "../../contract/render.js";
import { err } from "../../contract/result.js";
import type { AgentTool, ToolContext, ToolDefinition } from "../../contract/tool.js";
import { wrapToolDefinition } from "../../contract/tool.js";
import { execError, fileError } from "../../env/errors.js";
import { createOperationsEnv, type EnvOperations } from "../../env/from-operations.js";
import { mutationScopeOf, withFileMutationQueue as queueOnEnv, setMutationScope } from "../../env/mutation-queue.js";
import { createBashTool } from "../../tools/bash.js";
import { createEditTool } from "../../tools/edit.js";
import { createFindTool } from "../../tools/find.js";
import { createGrepTool } from "../../tools/grep.js";
import { createLsTool } from "../../tools/ls.js";
import { createReadTool } from "../../tools/read.js";
import { createWriteTool } from "../../tools/write.js";
import { createHeadlessUI } from "../_ui.js";
import { callingExtension, compatEnv, envForCwd, reportCompat } from "./state.js";

export { StringEnum, Type } from "../../contract/schema.js";
export { defineTool } from "../../contract/tool.js";
export {
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	formatSize,
	truncateHead,
	truncateLine,
	truncateTail,
} from "../../tools/truncate.js";

/** Options of the reference factories; toolsmith passes the ones its tools know (limits) through. */
type FactoryOptions = Record<string, unknown> | undefined;
type Factory = (options?: never) => ToolDefinition;

/**
 * Options of the reference factories that change where a tool acts or what it runs, and that
 * toolsmith does not implement: a factory given one throws instead of running the tool locally.
 */
const UNSUPPORTED_WHERE: Readonly<Record<string, string>> = {
	shellPath: "toolsmith runs commands through its env's shell (bash); pass `operations` with your own exec instead",
};

/** Options of toolsmith's own tool factories, passed through. */
const TOOLSMITH_OPTIONS: ReadonlySet<string> = new Set([
	"maxLines",
	"maxBytes",
	"countLinesUpTo",
	"maxImageBytes",
	"commandPrefix",
	"updateIntervalMs",
	"tempFilePrefix",
]);

/** Reference options toolsmith accepts and ignores because they change nothing about where a tool acts. */
const IGNORED: ReadonlySet<string> = new Set(["autoResizeImages"]);

/** What the compat layer takes out of a reference factory's options before passing the rest on. */
function splitOptions(
	tool: string,
	options: FactoryOptions,
): { rest: FactoryOptions; operations: EnvOperations | undefined; spawnHook: SpawnHook | undefined } {
	if (!options) return { rest: options, operations: undefined, spawnHook: undefined };
	const { operations, spawnHook, ...rest } = options;
	for (const key of Object.keys(rest)) {
		if (rest[key] === undefined) continue;
		const why = UNSUPPORTED_WHERE[key];
		if (why) {
			const path = callingExtension();
			throw new Error(
				`create${capital(tool)}Tool${path ? ` (called by ${path})` : ""}: the option \`${key}\` is not supported (${why}); the tool was not created, so nothing runs in a place the extension did not choose.`,
			);
		}
		if (IGNORED.has(key) || !TOOLSMITH_OPTIONS.has(key)) {
			delete rest[key];
			const path = callingExtension() ?? "(an extension)";
			reportCompat(`${tool}:${key}`, {
				severity: "warning",
				code: "W_UNSUPPORTED_API",
				message: `${path} passed the option \`${key}\` to create${capital(tool)}Tool, which toolsmith does not implement; it is ignored (it does not change where the tool acts).`,
				path,
			});
		}
	}
	if (operations !== undefined && (typeof operations !== "object" || operations === null)) {
		throw new Error(
			`create${capital(tool)}Tool: \`operations\` must be an object of callbacks, got ${typeof operations}.`,
		);
	}
	if (tool === "find" && operations !== undefined && typeof (operations as EnvOperations).glob !== "function") {
		const path = callingExtension();
		throw new Error(
			`createFindTool${path ? ` (called by ${path})` : ""}: \`operations\` without \`glob\` cannot find files (the reference then runs fd on the local disk); pass glob(pattern, cwd, { ignore, limit }) so the search happens where the operations act. The tool was not created.`,
		);
	}
	if (spawnHook !== undefined && (tool !== "bash" || typeof spawnHook !== "function")) {
		throw new Error(
			tool === "bash"
				? `createBashTool: \`spawnHook\` must be a function ({ command, cwd, env }) => { command, cwd, env }.`
				: `create${capital(tool)}Tool: \`spawnHook\` is an option of createBashTool only.`,
		);
	}
	return {
		rest,
		operations: operations as EnvOperations | undefined,
		spawnHook: spawnHook as SpawnHook | undefined,
	};
}

function capital(name: string): string {
	return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The reference's `BashSpawnHook`: adjusts command, cwd and environment before a command runs. */
type SpawnHook = (context: { command: string; cwd: string; env: Record<string, string | undefined> }) => {
	command: string;
	cwd: string;
	env: Record<string, string | undefined>;
};

/**
 * An env whose `exec` first passes `{ command, cwd, env }` through `spawnHook` and runs what it
 * returns (the full environment it returns replaces the process environment: variables it drops
 * are removed).
 */
function hooked(base: ExecutionEnv, spawnHook: SpawnHook): ExecutionEnv {
	const exec: ExecutionEnv["exec"] = async (command, options = {}) => {
		const cwd = options.cwd ? resolve(base.cwd, options.cwd) : base.cwd;
		const current: Record<string, string | undefined> = { ...process.env, ...options.env };
		const next = spawnHook({ command, cwd, env: { ...current } });
		const env: Record<string, string | undefined> = { ...next.env };
		for (const key of Object.keys(current)) if (!(key in env)) env[key] = undefined;
		return base.exec(next.command, { ...options, cwd: next.cwd, env });
	};
	return new Proxy(base, {
		get(target, key, receiver) {
			if (key === "exec") return exec;
			const value = Reflect.get(target, key, receiver);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}

/**
 * A definition bound to `cwd`: it runs on the caller's env when that env works in `cwd` (so
 * in-memory tests and the host's mutation queue apply), otherwise on a Node env for `cwd`. With
 * `operations` it always runs on an env built from them (`createOperationsEnv`), and bash's
 * `spawnHook` rewrites every command first: where the extension said the tool acts, it acts.
 */
function bound(tool: string, factory: Factory, cwd: string, options: FactoryOptions): ToolDefinition {
	const { rest, operations, spawnHook } = splitOptions(tool, options);
	const definition = factory(rest as never);
	const folder = resolve(cwd);
	let own: ExecutionEnv | undefined;
	if (operations) {
		// The reference keeps bash's full-output file on the local disk; only temp files and their
		// appends reach the local env, everything the tool acts on goes through the operations.
		// Grep's operations cannot list a folder: as the reference (which runs rg on the local disk)
		// does, the folder is listed locally, and every file is read through the operations.
		const local = tool === "grep" && operations.isDirectory ? LOCAL_LISTING : NONE;
		if (local === LOCAL_LISTING) {
			const path = callingExtension() ?? "(an extension)";
			reportCompat("grep:operations", {
				severity: "warning",
				code: "W_UNSUPPORTED_API",
				message: `${path} passed \`operations\` to createGrepTool: they cannot list a folder, so grep lists folders on the local disk (as the reference does) and reads each file through operations.readFile.`,
				path,
			});
		}
		own = createOperationsEnv(operations, { cwd: folder, fallback: tempOnly(envForCwd(folder), tool, local) });
		// The reference keeps one queue per path for the whole process, and its examples build new
		// operations for every call (ssh.ts): queue with the host's env so those calls queue together.
		setMutationScope(own, mutationScopeOf(envForCwd(folder)));
	}
	if (spawnHook) own = hooked(own ?? envForCwd(folder), spawnHook);
	return {
		...definition,
		execute(toolCallId, params, signal, onUpdate, ctx?: ToolContext) {
			const context: ToolContext = own
				? { ...(ctx ?? contextFor(folder)), env: own, cwd: folder, ...(signal ? { signal } : {}) }
				: ctx && ctx.env.cwd === folder
					? ctx
					: { ...contextFor(folder), ...(signal ? { signal } : {}) };
			return definition.execute(toolCallId, params, signal, onUpdate, context);
		},
	};
}

/** Env methods a tool's operations leave to the local disk: none, or (grep) listing folders. */
const NONE: ReadonlySet<string> = new Set();
const LOCAL_LISTING: ReadonlySet<string> = new Set(["listDir"]);

/**
 * A view of `env` that only creates temp files and appends to the ones it created (and runs the
 * methods named in `local`). Everything else
 * fails as an env fails (an error result, never a throw) naming what the operations lack, so a
 * tool given pi's `WriteOperations` (no `access`) still writes, and nothing reaches the local disk.
 */
function tempOnly(env: ExecutionEnv, tool: string, local: ReadonlySet<string>): ExecutionEnv {
	const created = new Set<string>();
	const lacking = (what: string) =>
		`the operations given to create${capital(tool)}Tool have no ${what}, and toolsmith does not do it on the local disk instead`;
	return new Proxy(env, {
		get(target, key) {
			if (typeof key !== "string" || key === "kind" || key === "cwd") return Reflect.get(target, key);
			if (local.has(key)) {
				const method = Reflect.get(target, key);
				return typeof method === "function" ? method.bind(target) : method;
			}
			if (key === "absolutePath") return (path: string) => target.absolutePath(path);
			if (key === "createTempFile") {
				return async (options?: { prefix?: string; suffix?: string }) => {
					const made = await target.createTempFile(options);
					if (made.ok) created.add(made.value);
					return made;
				};
			}
			if (key === "appendFile") {
				return async (path: string, data: string | Uint8Array) =>
					created.has(path) ? target.appendFile(path, data) : err(fileError("io_error", path, lacking("appendFile")));
			}
			if (key === "exists") return async () => false;
			if (key === "exec") {
				return async (command: string) => err(execError("spawn_error", describeValue(command), lacking("exec")));
			}
			if (typeof Reflect.get(target, key) !== "function") return undefined;
			return async (path: unknown) => err(fileError("io_error", describeValue(path), lacking(key)));
		},
	});
}

function contextFor(cwd: string): ToolContext {
	return { env: envForCwd(cwd), cwd, hasUI: false, ui: createHeadlessUI(() => {}) };
}

function agentTool(definition: ToolDefinition, cwd: string): AgentTool {
	const folder = resolve(cwd);
	return wrapToolDefinition(definition, (info) => ({
		...contextFor(folder),
		...(info.signal ? { signal: info.signal } : {}),
	}));
}

export function createReadToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound("read", createReadTool as Factory, cwd, options);
}
export function createWriteToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound("write", createWriteTool as Factory, cwd, options);
}
export function createEditToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound("edit", createEditTool as Factory, cwd, options);
}
export function createBashToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound("bash", createBashTool as Factory, cwd, options);
}

export function createGrepToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound("grep", createGrepTool as Factory, cwd, options);
}
export function createFindToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound("find", createFindTool as Factory, cwd, options);
}
export function createLsToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound("ls", createLsTool as Factory, cwd, options);
}

/** The reference's `createReadTool(cwd, options)`: an AgentTool working in `cwd`. */
export function compatCreateReadTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createReadToolDefinition(cwd, options), cwd);
}
export function compatCreateWriteTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createWriteToolDefinition(cwd, options), cwd);
}
export function compatCreateEditTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createEditToolDefinition(cwd, options), cwd);
}
export function compatCreateBashTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createBashToolDefinition(cwd, options), cwd);
}
export function compatCreateGrepTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createGrepToolDefinition(cwd, options), cwd);
}
export function compatCreateFindTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createFindToolDefinition(cwd, options), cwd);
}
export function compatCreateLsTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createLsToolDefinition(cwd, options), cwd);
}
export {
	compatCreateBashTool as createBashTool,
	compatCreateEditTool as createEditTool,
	compatCreateFindTool as createFindTool,
	compatCreateGrepTool as createGrepTool,
	compatCreateLsTool as createLsTool,
	compatCreateReadTool as createReadTool,
	compatCreateWriteTool as createWriteTool,
};

/** The reference's `withFileMutationQueue(path, fn)`: the queue of the host's env. */
export function withFileMutationQueue<T>(path: string, fn: () => Promise<T>): Promise<T> {
	return queueOnEnv(compatEnv(), path, fn);
}

interface NamedEvent {
	readonly toolName: string;
}

/** Narrowing helper of the reference API: is this `tool_call`/`tool_result` event for `name`? */
export function isToolCallEventType(name: string, event: NamedEvent): boolean {
	return event.toolName === name;
}
export const isBashToolResult = (event: NamedEvent): boolean => event.toolName === "bash";
export const isReadToolResult = (event: NamedEvent): boolean => event.toolName === "read";
export const isEditToolResult = (event: NamedEvent): boolean => event.toolName === "edit";
export const isWriteToolResult = (event: NamedEvent): boolean => event.toolName === "write";
export const isGrepToolResult = (event: NamedEvent): boolean => event.toolName === "grep";
export const isFindToolResult = (event: NamedEvent): boolean => event.toolName === "find";
export const isLsToolResult = (event: NamedEvent): boolean => event.toolName === "ls";

/** A rule across the width (`─`), passed through `color` (plain by default): pi's `DynamicBorder`. */
export class DynamicBorder implements RenderComponent {
	constructor(private readonly color: (text: string) => string = (text) => text) {}

	invalidate(): void {}

	render(width: number): string[] {
		return [this.color("─".repeat(Math.max(1, Math.floor(width))))];
	}
}

/**
 * pi's key hints. A headless host has no keybindings to look up, so a keybinding is shown by its
 * id (`keyHint("app.interrupt", "to stop")` → `app.interrupt to stop`); `rawKeyHint` shows the key.
 */
export function keyText(keybinding: string): string {
	return String(keybinding);
}
export function keyHint(keybinding: string, description: string): string {
	return `${keyText(keybinding)} ${description}`;
}
export function rawKeyHint(key: string, description: string): string {
	return `${key} ${description}`;
}

/** A theme whose every style function returns the text unchanged (plain output has no colors). */
function plainStyles(): Readonly<Record<string, unknown>> {
	const identity = (text: unknown) => (typeof text === "string" ? text : describeValue(text ?? ""));
	return new Proxy(Object.freeze({}), {
		get: (_target, key) => (typeof key === "string" ? identity : undefined),
	});
}

/** pi's theme getters for its components (`Markdown`, `SelectList`, …): plain styles. */
export const getMarkdownTheme = (): Readonly<Record<string, unknown>> => plainStyles();
export const getSelectListTheme = (): Readonly<Record<string, unknown>> => plainStyles();
export const getSettingsListTheme = (): Readonly<Record<string, unknown>> => plainStyles();

/** What `parseFrontmatter` returns: the YAML block's value (`{}` without one) and the text after it. */
export interface ParsedFrontmatter<T> {
	readonly frontmatter: T;
	readonly body: string;
}

/** The YAML block and the body of `content` (line endings made `\n`), or undefined when it has no block. */
function splitFrontmatter(content: string): { yaml: string; body: string } | undefined {
	const text = content.replace(/\r\n?/g, "\n");
	if (!text.startsWith("---")) return undefined;
	const end = text.indexOf("\n---", 3);
	if (end < 0) return undefined;
	return { yaml: text.slice(4, end), body: text.slice(end + 4).trim() };
}

/**
 * pi's `parseFrontmatter(content)`: a leading `---` … `---` block parsed as YAML (a YAML error
 * throws, as in pi), and the rest, trimmed. Without a block the front matter is `{}` and the body
 * the whole text. Line endings become `\n`.
 */
export function parseFrontmatter<T = Record<string, unknown>>(content: string): ParsedFrontmatter<T> {
	const parts = splitFrontmatter(content);
	if (!parts) return { frontmatter: {} as T, body: content.replace(/\r\n?/g, "\n") };
	const value: unknown = parseYaml(parts.yaml);
	return { frontmatter: (value ?? {}) as T, body: parts.body };
}

/** pi's `stripFrontmatter(content)`: the body `parseFrontmatter` gives. */
export function stripFrontmatter(content: string): string {
	return parseFrontmatter(content).body;
}

/** Languages by file extension, as pi names them for its highlighter. */
const LANGUAGES: Readonly<Record<string, string>> = {
	ts: "typescript",
	tsx: "typescript",
	js: "javascript",
	jsx: "javascript",
	mjs: "javascript",
	cjs: "javascript",
	py: "python",
	rb: "ruby",
	go: "go",
	rs: "rust",
	java: "java",
	kt: "kotlin",
	c: "c",
	h: "c",
	cpp: "cpp",
	cc: "cpp",
	hpp: "cpp",
	cs: "csharp",
	php: "php",
	swift: "swift",
	sh: "bash",
	bash: "bash",
	zsh: "bash",
	fish: "fish",
	ps1: "powershell",
	json: "json",
	yaml: "yaml",
	yml: "yaml",
	toml: "toml",
	xml: "xml",
	html: "html",
	htm: "html",
	css: "css",
	scss: "scss",
	less: "less",
	md: "markdown",
	markdown: "markdown",
	sql: "sql",
	lua: "lua",
	r: "r",
	scala: "scala",
	dart: "dart",
	ex: "elixir",
	exs: "elixir",
	erl: "erlang",
	hs: "haskell",
	ml: "ocaml",
	clj: "clojure",
	vim: "vim",
	dockerfile: "dockerfile",
	graphql: "graphql",
	proto: "protobuf",
	tf: "hcl",
	nix: "nix",
	groovy: "groovy",
	gradle: "groovy",
	cmake: "cmake",
};

/** pi's `getLanguageFromPath(path)`: the highlighter's language for the file's extension, if it has one. */
export function getLanguageFromPath(filePath: string): string | undefined {
	const name = String(filePath).split(/[\\/]/).pop() ?? "";
	const dot = name.lastIndexOf(".");
	if (dot <= 0) return undefined;
	return LANGUAGES[name.slice(dot + 1).toLowerCase()];
}

/** pi's `highlightCode(code, lang)`: the code's lines, plain (a headless host draws no colors). */
export function highlightCode(code: string, _lang?: string): string[] {
	return String(code).split("\n");
}

/** pi 1.x's narrowing helper for its `powershell` tool's results. */
export const isPowerShellToolResult = (event: NamedEvent): boolean => event.toolName === "powershell";

/** The reference's `ToolsOptions`: options per built-in tool, for the factories that make several. */
type ToolsOptions = Readonly<Record<string, FactoryOptions>> | undefined;

/** The reference's `createCodingTools(cwd, options)`: `read`, `bash`, `edit`, `write`, working in `cwd`. */
export function createCodingTools(cwd: string, options?: ToolsOptions): AgentTool[] {
	return [
		compatCreateReadTool(cwd, options?.read),
		compatCreateBashTool(cwd, options?.bash),
		compatCreateEditTool(cwd, options?.edit),
		compatCreateWriteTool(cwd, options?.write),
	];
}

/** The reference's `createReadOnlyTools(cwd, options)`: `read`, `grep`, `find`, `ls`, working in `cwd`. */
export function createReadOnlyTools(cwd: string, options?: ToolsOptions): AgentTool[] {
	return [
		compatCreateReadTool(cwd, options?.read),
		compatCreateGrepTool(cwd, options?.grep),
		compatCreateFindTool(cwd, options?.find),
		compatCreateLsTool(cwd, options?.ls),
	];
}

/** What the reference's `BashOperations.exec` is given. */
interface LocalExecOptions {
	readonly onData: (data: Buffer) => void;
	readonly signal?: AbortSignal;
	/** Seconds. */
	readonly timeout?: number;
	/** The whole environment of the command (variables it lacks are removed). */
	readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The reference's `BashOperations` for the local machine. */
export interface LocalBashOperations {
	exec(command: string, cwd: string, options: LocalExecOptions): Promise<{ exitCode: number | null }>;
}

/**
 * The reference's `createLocalBashOperations()`: commands run on this machine, through the env of
 * their folder (the host's when it works there, so a sandbox or path policy applies). Output (stdout
 * and stderr) goes to `onData`; a timeout rejects with `timeout:<seconds>` and an abort with
 * `aborted`, as in the reference. `shellPath` is refused, as the tool factories refuse it.
 */
export function createLocalBashOperations(options?: { shellPath?: string }): LocalBashOperations {
	if (options?.shellPath !== undefined) {
		throw new Error(
			`createLocalBashOperations: the option \`shellPath\` is not supported (${UNSUPPORTED_WHERE.shellPath}).`,
		);
	}
	return {
		async exec(command, cwd, { onData, signal, timeout, env }) {
			let environment: Record<string, string | undefined> | undefined;
			if (env) {
				environment = { ...env };
				for (const key of Object.keys(process.env)) if (!(key in environment)) environment[key] = undefined;
			}
			const send = (chunk: Uint8Array) => onData(Buffer.from(chunk));
			const result = await envForCwd(resolve(cwd)).exec(command, {
				cwd: resolve(cwd),
				onStdout: send,
				onStderr: send,
				...(environment ? { env: environment } : {}),
				...(signal ? { signal } : {}),
				...(timeout !== undefined && timeout > 0 ? { timeout } : {}),
			});
			if (result.ok) return { exitCode: result.value.exitCode };
			if (result.error.code === "timeout") throw new Error(`timeout:${timeout}`);
			if (result.error.code === "aborted") throw new Error("aborted");
			throw result.error;
		},
	};
}

/** The reference's `EventBus` with `clear()`: channels of handlers, for extensions that talk to each other. */
export interface CompatEventBus {
	emit(channel: string, data: unknown): void;
	on(channel: string, handler: (data: unknown) => unknown): () => void;
	clear(): void;
}

/**
 * The reference's `createEventBus()`: `emit(channel, data)` calls the channel's handlers; a handler
 * that throws or rejects is logged with `console.error` and the others still run.
 */
export function createEventBus(): CompatEventBus {
	const channels = new Map<string, Set<(data: unknown) => unknown>>();
	return {
		emit(channel, data) {
			for (const handler of [...(channels.get(channel) ?? [])]) {
				const failed = (error: unknown) => console.error(`Event handler error (${channel}):`, error);
				try {
					const value = handler(data);
					if (value instanceof Promise) value.catch(failed);
				} catch (error) {
					failed(error);
				}
			}
		},
		on(channel, handler) {
			const set = channels.get(channel) ?? new Set();
			channels.set(channel, set);
			const once = (data: unknown) => handler(data);
			set.add(once);
			return () => {
				set.delete(once);
			};
		},
		clear() {
			channels.clear();
		},
	};
}

export {
	getAgentDir,
	getDocsPath,
	getExamplesPath,
	getPackageDir,
	getReadmePath,
	getShellConfig,
	SettingsManager,
	type ShellConfig,
} from "./pi-coding-agent-host.js";

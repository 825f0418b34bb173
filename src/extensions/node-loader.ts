/**
 * Loading extensions from disk: discovery, a fresh jiti import per extension, the `engines` check,
 * and activation in an `ExtensionRuntime`. Node-only.
 *
 * Loading one extension (`loadExtension`) is a step of its own that can be re-run at any time: it
 * imports the extension and its local modules afresh and swaps the new version in only when every
 * step succeeded, so a hot-reload host calls it for the file that changed.
 */
import { realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ExecutionEnv } from "../contract/env.js";
import type { ToolDefinition } from "../contract/tool.js";
import { NodeExecutionEnv } from "../env/node.js";
import { builtinsFromOption } from "../tools/builtins.js";
import { importFresh } from "./_node-jiti.js";
import { missingImports } from "./_node-missing-imports.js";
import type {
	DiagnosticListener,
	ExtensionDiagnostic,
	ExtensionFactory,
	ExtensionLogger,
	LoadedExtension,
} from "./api.js";
import { type DiscoveredExtension, discoverExtensions } from "./node-discovery.js";
import { nodeProvisions } from "./node-provided.js";
import { checkEngines } from "./node-version.js";
import type { ToolRegistry } from "./registry.js";
import { createExtensionRuntime, DEFAULT_LOAD_TIMEOUT_MS, type ExtensionRuntime } from "./runtime.js";

/** Options for `loadExtensions`: the working folder, the env, the runtime and registry to load into, the built-ins, the load time limit, a logger and a diagnostic listener. */
export interface LoadExtensionsOptions {
	/**
	 * Relative extension paths resolve against it, and the default env works in it. With an `env`,
	 * tools work in `env.cwd`. `process.cwd()` by default.
	 */
	readonly cwd?: string;
	/** The env tools and `api.exec` use; a `NodeExecutionEnv` in `cwd` by default. */
	readonly env?: ExecutionEnv;
	/** Load into this runtime (its registry, env and bus) instead of a new one. */
	readonly runtime?: ExtensionRuntime;
	/** Fill this registry instead of a new one (ignored with `runtime`). */
	readonly registry?: ToolRegistry;
	/** Built-in tools of a new registry: `true` (default) for read, bash, edit, write; or your own list. */
	readonly builtins?: boolean | readonly ToolDefinition[];
	/**
	 * Bound for each extension's module evaluation (its top level, a top-level `await` included) and,
	 * separately, for its default export, in milliseconds. Default 10 000. An extension that passes it
	 * gets an `E_LOAD_TIMEOUT` diagnostic and the others load.
	 */
	readonly loadTimeoutMs?: number;
	/** Where `ctx.ui.notify` goes. */
	readonly log?: ExtensionLogger;
	/** Hears every diagnostic as it happens, including those raised after loading. */
	readonly onDiagnostic?: DiagnosticListener;
	/** Values of the flags extensions register, by name (see `ExtensionRuntimeOptions.flags`); ignored with `runtime`. */
	readonly flags?: Readonly<Record<string, boolean | string>>;
}

/** What `loadExtensions` produced: the loaded extensions, every diagnostic, the registry and the runtime. */
export interface LoadExtensionsResult {
	/** The extensions that loaded, in load order. */
	readonly extensions: LoadedExtension[];
	/** Everything that went wrong (and the notes), in order. Loading never throws. */
	readonly diagnostics: ExtensionDiagnostic[];
	readonly registry: ToolRegistry;
	/** Emit `session_start` through it once the host is ready; reload single extensions with `loadExtension`. */
	readonly runtime: ExtensionRuntime;
}

/** What `importExtension` produced: the factory, the local modules it pulled in, diagnostics and timing. */
export interface ImportExtensionResult {
	/** The default export, when the module loaded and it is a function. */
	readonly factory: ExtensionFactory | undefined;
	/** Local module files the import pulled in, entry first (also when it failed, so they can be watched). */
	readonly modules: string[];
	readonly diagnostics: ExtensionDiagnostic[];
	readonly durationMs: number;
}

/** What `loadExtension` produced: the version now active (if the load succeeded), its modules, diagnostics and timing. */
export interface LoadExtensionResult {
	/** The version now active, or undefined when this load failed (a previous version stays active). */
	readonly extension: LoadedExtension | undefined;
	readonly modules: string[];
	readonly diagnostics: ExtensionDiagnostic[];
	readonly durationMs: number;
}

type CompatModule = typeof import("./node-compat/index.js");
let compatModule: Promise<CompatModule> | undefined;
let virtualModules: Record<string, unknown> | undefined;
let compatEnv: ExecutionEnv | undefined;

/** The compat layer, imported once on first use. */
function compatLayer(): Promise<CompatModule> {
	compatModule ??= import("./node-compat/index.js");
	return compatModule;
}

/**
 * The compat modules, loaded once on first use, pointed at the env of the latest Node host, and
 * toolsmith's own entries as the Node entry provides them, so an extension that imports them
 * (`loadMcpTools`, say) gets this running instance, installed next to it or not.
 */
async function compat(env: ExecutionEnv): Promise<Record<string, unknown>> {
	const mod = await compatLayer();
	if (!virtualModules) {
		const entries = await (await nodeProvisions())?.entries();
		if (entries) virtualModules ??= { ...mod.VIRTUAL_MODULES, ...entries };
	}
	if (env.kind === "node" && env !== compatEnv) {
		compatEnv = env;
		mod.setCompatEnv(env);
	}
	return virtualModules ?? mod.VIRTUAL_MODULES;
}

/**
 * The files of an extension installed under `node_modules` (a pi package) that belong to its own
 * package: under its root and not under a `node_modules` inside it. They are not "local" (they are
 * not watched or evicted), but their imports are the extension's own, so the missing-imports check
 * reads them as it reads a local extension's modules.
 */
function ownPackageFiles(found: DiscoveredExtension, evaluated: readonly string[]): string[] {
	if (!found.path.includes("/node_modules/")) return [];
	const root = `${found.root}/`;
	return evaluated.filter(
		(file) => file !== found.path && file.startsWith(root) && !file.slice(root.length).includes("node_modules/"),
	);
}

function entryOf(entry: DiscoveredExtension | string, cwd: string): DiscoveredExtension {
	if (typeof entry !== "string") return entry;
	let path = resolve(cwd, entry);
	try {
		path = realpathSync.native(path);
	} catch {
		// the import reports a missing file
	}
	return { path, root: dirname(path), kind: "file" };
}

/**
 * The default export of an ESM module, or a CommonJS `module.exports` function. jiti's interop
 * proxy answers `.default` even when there is none, so only an own `default` key counts.
 */
function defaultExport(mod: unknown): unknown {
	if (typeof mod === "function") return mod;
	if (typeof mod !== "object" || mod === null || !("default" in mod)) return undefined;
	return (mod as { default: unknown }).default;
}

/** Options for `importExtension`: where relative paths resolve, the env of the compat layer, the time limit. */
export interface ImportExtensionOptions {
	/** Relative paths resolve against it; `process.cwd()` by default. */
	readonly cwd?: string;
	/** The env the pi compatibility layer's tools use; a `NodeExecutionEnv` by default. */
	readonly env?: ExecutionEnv;
	/**
	 * Bound for the module's evaluation (a top-level `await` that never settles), in milliseconds;
	 * `DEFAULT_LOAD_TIMEOUT_MS` (10 000) by default. Past it the result has no factory and an
	 * `E_LOAD_TIMEOUT` diagnostic; the evaluation itself cannot be stopped and is left behind.
	 */
	readonly timeoutMs?: number;
}

/**
 * Import one extension afresh and check its `engines` range, without running it. Never throws.
 * `factory` is set only when the extension may be activated.
 */
export async function importExtension(
	entry: DiscoveredExtension | string,
	options: ImportExtensionOptions = {},
): Promise<ImportExtensionResult> {
	const started = performance.now();
	const found = entryOf(entry, options.cwd ?? process.cwd());
	const path = found.path;
	const diagnostics: ExtensionDiagnostic[] = [];
	const done = (factory: ExtensionFactory | undefined, modules: string[]): ImportExtensionResult => ({
		factory,
		modules,
		diagnostics,
		durationMs: performance.now() - started,
	});
	const fromPackage = checkEngines(found.engines, path, found.packageJson ?? "package.json");
	if (fromPackage) {
		diagnostics.push(fromPackage);
		return done(undefined, [path]);
	}
	const modules = await compat(options.env ?? new NodeExecutionEnv());
	// The compat layer names the extension calling it from the stack, also for one under node_modules
	// (a pi package): the entry before it runs its top level, the files it imported afterwards.
	const compatApi = await compatLayer();
	compatApi.noteExtensionFiles([path]);
	const outcome = await importFresh(path, modules, options.timeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS);
	compatApi.noteExtensionFiles(outcome.modules);
	if (!outcome.ok) {
		diagnostics.push(outcome.diagnostic);
		return done(undefined, outcome.modules);
	}
	diagnostics.push(
		...missingImports(path, [...outcome.modules, ...ownPackageFiles(found, outcome.evaluated)], modules),
	);
	const mod = outcome.module as Record<string, unknown> | ((...args: never[]) => unknown) | null | undefined;
	const engines = (mod as { engines?: { toolsmith?: unknown } } | null | undefined)?.engines;
	const fromModule = checkEngines(
		typeof engines === "object" && engines !== null ? engines.toolsmith : undefined,
		path,
		"its `engines` export",
	);
	if (fromModule) {
		diagnostics.push(fromModule);
		return done(undefined, outcome.modules);
	}
	const candidate = defaultExport(mod);
	if (typeof candidate !== "function") {
		const what =
			candidate === undefined || candidate === null
				? "has no default export"
				: `default-exports ${typeof candidate === "object" ? "an object" : `a ${typeof candidate}`}, not a function`;
		diagnostics.push({
			severity: "error",
			code: "E_NO_FACTORY",
			message: `${path} ${what}; an extension must default-export a function that receives the extension API (export default function (api) { … }).`,
			path,
		});
		return done(undefined, outcome.modules);
	}
	return done(candidate as ExtensionFactory, outcome.modules);
}

/**
 * Send the compat layer's diagnostics (an unsupported option of a pi tool factory) to `report`:
 * for hosts that activate what `importExtension` gave themselves, as `loadExtension` does.
 */
export async function reportCompatTo(report: (diagnostic: ExtensionDiagnostic) => void): Promise<void> {
	(await compatLayer()).setCompatReporter(report);
}

/**
 * Load (or reload) one extension into `runtime`: import it fresh, check it, run its default export
 * and swap its registrations in. `loadTimeoutMs` bounds the import and, separately, the default
 * export (10 000 ms each by default). When any step fails the previous version (if any) stays active
 * and the diagnostics say why. Never throws.
 */
export async function loadExtension(
	entry: DiscoveredExtension | string,
	runtime: ExtensionRuntime,
	options: { readonly loadTimeoutMs?: number } = {},
): Promise<LoadExtensionResult> {
	const started = performance.now();
	const found = entryOf(entry, runtime.cwd);
	// The compat layer's diagnostics (an unsupported factory option) go to the runtime loading now,
	// and those raised while the extension's top level or default export runs are part of this
	// load's result.
	const compatApi = await compatLayer();
	const fromCompat: ExtensionDiagnostic[] = [];
	compatApi.setCompatReporter((diagnostic) => {
		fromCompat.push(diagnostic);
		runtime.report(diagnostic);
	});
	const imported = await importExtension(found, {
		cwd: runtime.cwd,
		env: runtime.env,
		...(options.loadTimeoutMs !== undefined ? { timeoutMs: options.loadTimeoutMs } : {}),
	});
	for (const diagnostic of imported.diagnostics) runtime.report(diagnostic);
	if (!imported.factory) {
		return {
			extension: undefined,
			modules: imported.modules,
			diagnostics: imported.diagnostics,
			durationMs: performance.now() - started,
		};
	}
	const activated = await runtime.activate(found.path, imported.factory, {
		root: found.root,
		modules: imported.modules,
		...(found.engines !== undefined ? { engines: found.engines } : {}),
		importMs: imported.durationMs,
		...(options.loadTimeoutMs !== undefined ? { timeoutMs: options.loadTimeoutMs } : {}),
	});
	compatApi.setCompatReporter(runtime.report);
	return {
		extension: activated.extension,
		modules: imported.modules,
		diagnostics: [...imported.diagnostics, ...fromCompat, ...activated.diagnostics],
		durationMs: performance.now() - started,
	};
}

/**
 * Discover and load extensions, one after another in discovery order (which is the order that
 * wins tool-name clashes). A broken extension is a diagnostic, never a reason to stop. Never throws.
 */
export async function loadExtensions(
	paths: readonly string[],
	options: LoadExtensionsOptions = {},
): Promise<LoadExtensionsResult> {
	const cwd = options.runtime?.cwd ?? resolve(options.cwd ?? process.cwd());
	const diagnostics: ExtensionDiagnostic[] = [];
	const listener = options.onDiagnostic;
	const runtime =
		options.runtime ??
		createExtensionRuntime({
			env: options.env ?? new NodeExecutionEnv({ cwd }),
			// Tools work where their env works; `cwd` only locates the extensions then.
			cwd: options.env?.cwd ?? cwd,
			...(options.registry ? { registry: options.registry } : {}),
			builtins: builtinsFromOption(options.builtins),
			...(options.log ? { log: options.log } : {}),
			...(listener ? { onDiagnostic: listener } : {}),
			...(options.flags ? { flags: options.flags } : {}),
		});
	const discovered = await discoverExtensions(paths, { cwd });
	for (const diagnostic of discovered.diagnostics) {
		diagnostics.push(diagnostic);
		runtime.report(diagnostic);
	}
	const extensions: LoadedExtension[] = [];
	for (const entry of discovered.extensions) {
		// Reserve the load-order slot first, so a name clash is decided by discovery order.
		runtime.registry.reserveSource(entry.path);
		const result = await loadExtension(entry, runtime, {
			...(options.loadTimeoutMs !== undefined ? { loadTimeoutMs: options.loadTimeoutMs } : {}),
		});
		diagnostics.push(...result.diagnostics);
		if (result.extension) extensions.push(result.extension);
	}
	// Only the extension host connects MCP servers: say so rather than leave their tools silently missing.
	if (!options.runtime) {
		for (const server of runtime.mcpServers()) {
			const diagnostic: ExtensionDiagnostic = {
				severity: "warning",
				code: "E_MCP_SERVER",
				message: `${server.extensionPath} registered the MCP server "${server.name}", which loadExtensions does not connect: its tools are not available here. The extension host (createExtensionHost; toolsmith dev, mcp and inspect) connects it.`,
				path: server.extensionPath,
			};
			diagnostics.push(diagnostic);
			runtime.report(diagnostic);
		}
	}
	return { extensions, diagnostics, registry: runtime.registry, runtime };
}

/** What `importModule` gave: the module's exports, or why it did not load. */
export type ImportModuleResult =
	| { readonly ok: true; readonly module: unknown }
	| { readonly ok: false; readonly diagnostic: ExtensionDiagnostic };

/**
 * Import one module (a scenario file, say) afresh as extensions are imported: TypeScript through
 * jiti, pi's packages and toolsmith's own entries resolved to this running instance. Unlike
 * `importExtension` it takes any exports (no factory needed) and runs nothing. Never throws.
 */
export async function importModule(
	path: string,
	options: { readonly timeoutMs?: number } = {},
): Promise<ImportModuleResult> {
	const modules = await compat(compatEnv ?? new NodeExecutionEnv());
	const outcome = await importFresh(resolve(path), modules, options.timeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS);
	return outcome.ok ? { ok: true, module: outcome.module } : { ok: false, diagnostic: outcome.diagnostic };
}

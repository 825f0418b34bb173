/**
 * Finding extensions on disk: files, folders of files, and packages that name their entries in a
 * package.json manifest. Node-only.
 */
import { type Dirent, existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { errorMessage } from "../contract/errors.js";
import type { ExtensionDiagnostic } from "./api.js";

/** One extension entry found by discovery. */
export interface DiscoveredExtension {
	/** Absolute real path of the entry module: the extension's identity. */
	readonly path: string;
	/** The folder it belongs to: its package folder, or the folder holding a single file. */
	readonly root: string;
	/** `file`: a module on its own; `index`: a folder's index; `manifest`: named by a package.json. */
	readonly kind: "file" | "index" | "manifest";
	/** The package.json of its package folder, when there is one. */
	readonly packageJson?: string;
	/** `engines.toolsmith` from that package.json, when declared. */
	readonly engines?: string;
}

/** What `discoverExtensions` found: the extension entries, and the problems met on the way. */
export interface DiscoveryResult {
	readonly extensions: DiscoveredExtension[];
	readonly diagnostics: ExtensionDiagnostic[];
}

/** Options for `discoverExtensions`: the folder relative paths resolve against. */
export interface DiscoverOptions {
	/** Relative paths resolve against it; `process.cwd()` by default. */
	readonly cwd?: string;
}

/** Files a folder scan picks up. Explicit paths may also name `.cts`/`.cjs` modules. */
const SCANNED = /\.(ts|mts|js|mjs)$/;
const LOADABLE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const INDEX_FILES = ["index.ts", "index.mts", "index.js", "index.mjs"];

interface PackageInfo {
	readonly file: string;
	readonly entries?: readonly string[];
	readonly engines?: string;
}

function expandHome(path: string): string {
	if (path === "~") return homedir();
	if (path.startsWith("~/")) return join(homedir(), path.slice(2));
	return path;
}

function readPackage(dir: string, diagnostics: ExtensionDiagnostic[]): PackageInfo | undefined {
	const file = join(dir, "package.json");
	if (!existsSync(file)) return undefined;
	let pkg: unknown;
	try {
		pkg = JSON.parse(readFileSync(file, "utf8"));
	} catch (error) {
		diagnostics.push({
			severity: "error",
			code: "E_MANIFEST",
			message: `${file} is not valid JSON (${errorMessage(error)}); its folder was skipped.`,
			path: file,
		});
		return { file, entries: [] };
	}
	if (typeof pkg !== "object" || pkg === null) return { file };
	const record = pkg as Record<string, unknown>;
	const manifest = pickManifest(record.toolsmith) ?? pickManifest(record.pi);
	const engines = record.engines as Record<string, unknown> | undefined;
	const range = typeof engines === "object" && engines !== null ? engines.toolsmith : undefined;
	return {
		file,
		...(manifest ? { entries: manifest } : {}),
		...(range !== undefined ? { engines: String(range) } : {}),
	};
}

function pickManifest(section: unknown): string[] | undefined {
	if (typeof section !== "object" || section === null) return undefined;
	const list = (section as Record<string, unknown>).extensions;
	if (!Array.isArray(list)) return undefined;
	return list.filter((item): item is string => typeof item === "string");
}

function indexOf(dir: string): string | undefined {
	for (const name of INDEX_FILES) {
		const file = join(dir, name);
		if (existsSync(file)) return file;
	}
	return undefined;
}

/**
 * The entries of a folder that is one extension package (manifest or index), or undefined when
 * the folder is not one.
 */
function packageEntries(
	dir: string,
	diagnostics: ExtensionDiagnostic[],
): { entries: DiscoveredExtension[]; isPackage: boolean } {
	const pkg = readPackage(dir, diagnostics);
	const common = {
		root: dir,
		...(pkg ? { packageJson: pkg.file } : {}),
		...(pkg?.engines !== undefined ? { engines: pkg.engines } : {}),
	};
	if (pkg?.entries) {
		const entries: DiscoveredExtension[] = [];
		for (const entry of pkg.entries) {
			const target = resolve(dir, entry);
			let file: string | undefined = target;
			if (existsSync(target) && statSync(target).isDirectory()) file = indexOf(target);
			if (!file || !existsSync(file)) {
				diagnostics.push({
					severity: "error",
					code: "E_MANIFEST",
					message: `${pkg.file} names the extension entry "${entry}", which does not exist; fix the path in its manifest.`,
					path: pkg.file,
				});
				continue;
			}
			entries.push({ ...common, path: file, kind: "manifest" });
		}
		return { entries, isPackage: true };
	}
	const index = indexOf(dir);
	if (index) return { entries: [{ ...common, path: index, kind: "index" }], isPackage: true };
	return { entries: [], isPackage: false };
}

function scanFolder(dir: string, diagnostics: ExtensionDiagnostic[]): DiscoveredExtension[] {
	const found: DiscoveredExtension[] = [];
	let entries: Dirent[];
	try {
		entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
			a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
		);
	} catch (error) {
		diagnostics.push({
			severity: "error",
			code: "E_PATH_NOT_FOUND",
			message: `Could not list ${dir}: ${errorMessage(error)}.`,
			path: dir,
		});
		return found;
	}
	for (const entry of entries) {
		const name = entry.name;
		if (name.startsWith(".") || name === "node_modules") continue;
		const full = join(dir, name);
		let isFile = entry.isFile();
		let isDirectory = entry.isDirectory();
		if (entry.isSymbolicLink()) {
			try {
				const target = statSync(full);
				isFile = target.isFile();
				isDirectory = target.isDirectory();
			} catch {
				continue; // a dangling symlink is not an extension
			}
		}
		if (isFile) {
			if (SCANNED.test(name) && !name.endsWith(".d.ts") && !name.endsWith(".d.mts")) {
				found.push({ path: full, root: dir, kind: "file" });
			}
		} else if (isDirectory) {
			found.push(...packageEntries(full, diagnostics).entries);
		}
	}
	return found;
}

/**
 * Find extension entries. Each path may be a module file, a package folder (a package.json with
 * `toolsmith.extensions` or `pi.extensions`, or an `index.ts`/`index.js`), or a folder whose
 * `*.ts`/`*.mts`/`*.js`/`*.mjs` files and package sub-folders (one level deep) are extensions.
 * Results keep the order of `paths` (folders sorted by name) and are de-duplicated by real path.
 * Never throws: a missing path is an `E_PATH_NOT_FOUND` diagnostic.
 */
export async function discoverExtensions(
	paths: readonly string[],
	options: DiscoverOptions = {},
): Promise<DiscoveryResult> {
	const cwd = options.cwd ?? process.cwd();
	const diagnostics: ExtensionDiagnostic[] = [];
	const extensions: DiscoveredExtension[] = [];
	const seen = new Set<string>();
	const add = (entry: DiscoveredExtension): void => {
		let real = entry.path;
		try {
			real = realpathSync.native(entry.path);
		} catch {
			// keep the path as given; loading will report it
		}
		if (seen.has(real)) return;
		seen.add(real);
		extensions.push({ ...entry, path: real });
	};
	for (const raw of paths) {
		const expanded = expandHome(raw);
		const target = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
		let stats: ReturnType<typeof statSync>;
		try {
			stats = statSync(target);
		} catch {
			diagnostics.push({
				severity: "error",
				code: "E_PATH_NOT_FOUND",
				message: `Extension path ${target} does not exist${raw !== target ? ` (given as "${raw}")` : ""}.`,
				path: target,
			});
			continue;
		}
		if (stats.isDirectory()) {
			const pkg = packageEntries(target, diagnostics);
			const entries = pkg.isPackage ? pkg.entries : scanFolder(target, diagnostics);
			for (const entry of entries) add(entry);
			continue;
		}
		if (!LOADABLE.test(target)) {
			diagnostics.push({
				severity: "error",
				code: "E_EXTENSION_LOAD",
				message: `${target} is not a module toolsmith can load: use a .ts, .mts, .cts, .js, .mjs or .cjs file.`,
				path: target,
			});
			continue;
		}
		add({ path: target, root: dirname(target), kind: "file" });
	}
	return { extensions, diagnostics };
}

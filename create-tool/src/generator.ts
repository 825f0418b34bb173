/**
 * The generator behind `npm create toolsmith` and `toolsmith new`: renders the templates of
 * `templates/` into a new project, or adds one tool to an existing project. Nothing is ever half
 * written: a project is rendered into a temporary folder next to its target and moved into place in
 * one rename; a tool's files are checked for clashes before the first one is written.
 *
 * Node only, and free of other dependencies, so both packages can bundle it.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, readdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Error codes of the generator, one per way it refuses. */
export type GeneratorErrorCode =
	| "E_TARGET_NOT_EMPTY"
	| "E_INVALID_PACKAGE_NAME"
	| "E_UNKNOWN_TEMPLATE"
	| "E_INVALID_TOOL_NAME"
	| "E_TOOL_EXISTS"
	| "E_NOT_A_PROJECT"
	| "E_OUTSIDE_PROJECT"
	| "E_TEMPLATES";

/** A refusal: the message says what is wrong and what to do; nothing was written. */
export class GeneratorError extends Error {
	override readonly name = "GeneratorError";
	readonly code: GeneratorErrorCode;
	constructor(code: GeneratorErrorCode, message: string) {
		super(message);
		this.code = code;
	}
}

export interface TemplateInfo {
	readonly name: string;
	readonly description: string;
	/** Whether the project starts with a tool rendered from `_new-tool`. */
	readonly newTool: boolean;
}

export type PackageManager = "npm" | "pnpm" | "yarn" | "bun";
export const PACKAGE_MANAGERS: readonly PackageManager[] = ["npm", "pnpm", "yarn", "bun"];

/** The tool a fresh `tool` project starts with, and the name `toolsmith new` suggests. */
export const DEFAULT_TOOL_NAME = "word_count";

const TOOL_FRAGMENT = "_new-tool";
const BASE = "_base";
/** npm leaves `.gitignore` out of packages, so templates keep it under another name. */
const RENAMED: Readonly<Record<string, string>> = { _gitignore: ".gitignore" };

/** The project templates in `templatesDir`, sorted by name (`tool` first: it is the default). */
export function listTemplates(templatesDir: string): TemplateInfo[] {
	let names: string[];
	try {
		names = readdirSync(templatesDir, { withFileTypes: true })
			.filter((entry) => entry.isDirectory() && /^[a-z]/.test(entry.name))
			.map((entry) => entry.name);
	} catch (error) {
		throw new GeneratorError("E_TEMPLATES", `cannot read the templates folder ${templatesDir}: ${String(error)}`);
	}
	const infos = names.map((name) => {
		const file = join(templatesDir, name, "template.json");
		let raw: { description?: unknown; newTool?: unknown } = {};
		try {
			raw = JSON.parse(readFileSync(file, "utf8")) as typeof raw;
		} catch (error) {
			throw new GeneratorError("E_TEMPLATES", `the template ${name} has no readable template.json: ${String(error)}`);
		}
		return {
			name,
			description: typeof raw.description === "string" ? raw.description : "",
			newTool: raw.newTool === true,
		};
	});
	return infos.sort((a, b) => (a.name === "tool" ? -1 : b.name === "tool" ? 1 : a.name.localeCompare(b.name)));
}

// ---------------------------------------------------------------------------------------------
// Names

/**
 * Why `name` cannot be an npm package name, or `undefined` when it can. The rules npm applies to new
 * packages: at most 214 characters, lower case, URL-safe, not starting with `.` or `_`, an optional
 * `@scope/`.
 */
export function packageNameProblem(name: string): string | undefined {
	if (name === "") return "it is empty";
	if (name.length > 214) return "it is longer than 214 characters";
	if (name !== name.trim()) return "it starts or ends with a space";
	if (name !== name.toLowerCase()) return "it has upper-case letters";
	const match = /^(?:@([^/]+)\/)?(.+)$/.exec(name);
	const scope = match?.[1];
	const bare = match?.[2] ?? name;
	for (const part of scope === undefined ? [bare] : [scope, bare]) {
		if (part.startsWith(".") || part.startsWith("_")) return "it starts with . or _";
		if (!/^[a-z0-9._~-]+$/.test(part)) return "it has characters other than a-z, 0-9, -, ., _ and ~";
	}
	if (["node_modules", "favicon.ico"].includes(bare)) return `${bare} is reserved`;
	return undefined;
}

/** A valid package name close to `name` (for the error that refuses `name`). */
export function suggestPackageName(name: string): string {
	const scoped = /^@([^/]+)\/(.+)$/.exec(name.trim());
	const clean = (part: string) =>
		part
			.trim()
			.toLowerCase()
			.normalize("NFKD")
			.replace(/[\u0300-\u036f]/g, "")
			.replace(/[^a-z0-9._~-]+/g, "-")
			.replace(/^[._-]+/, "")
			.replace(/-+/g, "-")
			.replace(/-$/, "")
			.slice(0, 200);
	const bare = clean(scoped ? scoped[2]! : name) || "my-tools";
	return scoped && clean(scoped[1]!) ? `@${clean(scoped[1]!)}/${bare}` : bare;
}

/**
 * Why `name` cannot name a tool, or `undefined`. Stricter than any one provider, so the tool works
 * with all of them: a letter first, then letters, digits and `_`, at most 64 characters.
 */
export function toolNameProblem(name: string): string | undefined {
	if (name === "") return "it is empty";
	if (name.length > 64) return "it is longer than 64 characters";
	if (!/^[a-zA-Z]/.test(name)) return "it does not start with a letter";
	if (!/^[a-zA-Z0-9_-]+$/.test(name)) return "it has characters other than letters, digits, _ and -";
	return undefined;
}

/** The names a tool's files and code use, from its tool name (`word_count`). */
export function toolNames(
	name: string,
): Record<"toolName" | "toolIdent" | "ToolIdent" | "toolFile" | "toolLabel", string> {
	const words = name
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.split(/[^a-zA-Z0-9]+/)
		.filter((word) => word !== "")
		.map((word) => word.toLowerCase());
	const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
	const ToolIdent = words.map(capital).join("");
	return {
		toolName: name,
		toolIdent: ToolIdent.charAt(0).toLowerCase() + ToolIdent.slice(1),
		ToolIdent,
		toolFile: words.join("-"),
		toolLabel: capital(words.join(" ")),
	};
}

/**
 * The package manager that started us, from `npm_config_user_agent` (`pnpm/9.1.0 npm/? node/…`);
 * npm when there is none.
 */
export function packageManagerFromAgent(agent: string | undefined): PackageManager {
	const name = agent?.split("/")[0];
	return PACKAGE_MANAGERS.find((pm) => pm === name) ?? "npm";
}

/** The commands a README and the last words of `create` show for `pm`. */
export function packageManagerCommands(pm: PackageManager): { install: string; run: string; test: string } {
	switch (pm) {
		case "npm":
			return { install: "npm install", run: "npm run", test: "npm test" };
		case "pnpm":
			return { install: "pnpm install", run: "pnpm", test: "pnpm test" };
		case "yarn":
			return { install: "yarn", run: "yarn", test: "yarn test" };
		case "bun":
			// `bun test` is bun's own test runner; `bun run test` runs the package's script.
			return { install: "bun install", run: "bun run", test: "bun run test" };
	}
}

/**
 * The dependency spec for `toolsmith-sdk` from what a user typed: a version or range stays as it is;
 * a path (to a tarball or a folder) becomes `file:` with an absolute path, which still points at it
 * after the project was moved into place.
 */
export function toolsmithDependencySpec(spec: string, cwd: string): string {
	if (/^(file|link|npm|https?|git(\+\w+)?):/.test(spec)) return spec;
	const looksLikePath =
		spec.startsWith(".") || spec.startsWith("/") || spec.startsWith("~") || /\.(tgz|tar\.gz)$/.test(spec);
	if (!looksLikePath && !existsSync(resolve(cwd, spec))) return spec;
	const home = process.env.HOME ?? "";
	const expanded = spec.startsWith("~/") && home !== "" ? join(home, spec.slice(2)) : spec;
	return `file:${resolve(cwd, expanded)}`;
}

// ---------------------------------------------------------------------------------------------
// Rendering

type Values = Readonly<Record<string, string>>;

function renderText(text: string, values: Values, where: string): string {
	return text.replace(/\{\{(\w+)\}\}/g, (_all, key: string) => {
		const value = values[key];
		if (value === undefined) throw new GeneratorError("E_TEMPLATES", `${where} uses {{${key}}}, which has no value`);
		return value;
	});
}

function renderPath(path: string, values: Values): string {
	const parts = path.split("/").map((part) => {
		const renamed = RENAMED[part] ?? part;
		return renamed.replace(/__(\w+)__/g, (_all, key: string) => {
			const value = values[key];
			if (value === undefined)
				throw new GeneratorError("E_TEMPLATES", `the path ${path} uses __${key}__, which has no value`);
			return value;
		});
	});
	return parts.join("/");
}

/** Every file under `dir`, as `/`-separated paths relative to it. */
async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
	const entries = await readdir(join(dir, prefix), { withFileTypes: true });
	const files: string[] = [];
	for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
		const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
		if (entry.isDirectory()) files.push(...(await filesUnder(dir, path)));
		else if (entry.isFile()) files.push(path);
	}
	return files;
}

/** The files a set of template folders renders to: output path → content. Later folders win. */
async function render(folders: readonly string[], values: Values, skip: (path: string) => boolean = () => false) {
	const out = new Map<string, string>();
	for (const folder of folders) {
		for (const path of await filesUnder(folder)) {
			if (path === "template.json" || skip(path)) continue;
			const where = `${basename(folder)}/${path}`;
			out.set(renderPath(path, values), renderText(await readFile(join(folder, path), "utf8"), values, where));
		}
	}
	return out;
}

async function writeAll(root: string, files: ReadonlyMap<string, string>): Promise<void> {
	for (const [path, content] of files) {
		const file = join(root, ...path.split("/"));
		await mkdir(dirname(file), { recursive: true });
		await writeFile(file, content, { flag: "wx" });
	}
}

/** Whether `dir` is missing or an empty folder: where a new project may go. */
function isFreeTarget(dir: string): boolean {
	try {
		if (!lstatSync(dir).isDirectory()) return false;
	} catch {
		return true;
	}
	return readdirSync(dir).length === 0;
}

/**
 * Why a new project named `packageName` cannot go into `dir` (the name, or a folder that is not
 * empty), or `undefined`. `generateProject` refuses the same; `create` asks it while a name is typed.
 */
export function targetRefusal(dir: string, packageName: string = basename(dir)): GeneratorError | undefined {
	const problem = packageNameProblem(packageName);
	if (problem) {
		return new GeneratorError(
			"E_INVALID_PACKAGE_NAME",
			`'${packageName}' cannot be a package name (${problem}); try '${suggestPackageName(packageName)}'`,
		);
	}
	if (!isFreeTarget(dir)) {
		return new GeneratorError(
			"E_TARGET_NOT_EMPTY",
			`${dir} already exists and is not an empty folder; choose another name, or empty it first`,
		);
	}
	return undefined;
}

function toolNameRefusal(name: string): GeneratorError | undefined {
	const problem = toolNameProblem(name);
	return problem ? new GeneratorError("E_INVALID_TOOL_NAME", `'${name}' cannot name a tool (${problem})`) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Projects

export interface GenerateProjectOptions {
	readonly templatesDir: string;
	/** A project template (see `listTemplates`). */
	readonly template: string;
	/** Where the project goes: a folder that does not exist yet, or an empty one. */
	readonly targetDir: string;
	/** The package name; the target folder's name by default. */
	readonly packageName?: string;
	/** The tool a `newTool` template starts with; `word_count` by default. */
	readonly toolName?: string;
	/** The `toolsmith-sdk` dependency, as `toolsmithDependencySpec` returns it. */
	readonly toolsmithSpec: string;
	/** The `engines.toolsmith` range, e.g. `^1.1.0`. */
	readonly apiRange: string;
	readonly packageManager?: PackageManager;
}

export interface GeneratedProject {
	readonly dir: string;
	readonly packageName: string;
	/** Paths relative to `dir`, sorted. */
	readonly files: string[];
}

/**
 * Render a template into `targetDir`. Refuses (a `GeneratorError`, nothing written) a non-empty
 * target, an invalid package name, an unknown template. The project is written to a temporary folder
 * beside the target and renamed into place, so a failure at any point leaves no half project.
 */
export async function generateProject(options: GenerateProjectOptions): Promise<GeneratedProject> {
	const dir = resolve(options.targetDir);
	const templates = listTemplates(options.templatesDir);
	const template = templates.find((t) => t.name === options.template);
	if (!template) {
		throw new GeneratorError(
			"E_UNKNOWN_TEMPLATE",
			`there is no template '${options.template}'; the templates are: ${templates.map((t) => t.name).join(", ")}`,
		);
	}
	const packageName = options.packageName ?? basename(dir);
	const toolName = options.toolName ?? DEFAULT_TOOL_NAME;
	const refusal = targetRefusal(dir, packageName) ?? (template.newTool ? toolNameRefusal(toolName) : undefined);
	if (refusal) throw refusal;

	const values: Values = {
		packageName,
		toolsmithSpec: options.toolsmithSpec,
		apiRange: options.apiRange,
		...packageManagerCommands(options.packageManager ?? "npm"),
		...toolNames(toolName),
	};
	const folders = [join(options.templatesDir, BASE)].filter((folder) => existsSync(folder));
	if (template.newTool) folders.push(join(options.templatesDir, TOOL_FRAGMENT));
	folders.push(join(options.templatesDir, template.name));
	const files = await render(folders, values);

	const parent = dirname(dir);
	await mkdir(parent, { recursive: true });
	const staging = await mkdtemp(join(parent, `.${basename(dir)}-toolsmith-`));
	try {
		await writeAll(staging, files);
		// An empty target folder is replaced; checked again, as something may have appeared in it since.
		if (existsSync(dir)) {
			if (!isFreeTarget(dir)) {
				throw new GeneratorError("E_TARGET_NOT_EMPTY", `${dir} is no longer empty; nothing was written`);
			}
			await rmdir(dir);
		}
		await rename(staging, dir);
	} catch (error) {
		await rm(staging, { recursive: true, force: true });
		throw error;
	}
	return { dir, packageName, files: [...files.keys()].sort() };
}

// ---------------------------------------------------------------------------------------------
// One more tool in an existing project

export interface AddToolOptions {
	readonly templatesDir: string;
	/** The project folder (holding package.json). */
	readonly projectDir: string;
	readonly toolName: string;
	/** Append the tool to `src/tools/index.ts` (default true); without it, only the files are written. */
	readonly register?: boolean;
}

export interface AddedTool {
	readonly toolName: string;
	/** Paths relative to the project, sorted; `src/tools/index.ts` when the tool was registered there. */
	readonly files: string[];
	readonly registeredIn?: string;
}

const REGISTRY = "src/tools/index.ts";

/** Whether `path` is `root` or inside it (both real paths). */
function isInside(path: string, root: string): boolean {
	const rel = relative(root, path);
	return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The first symbolic link on the way from `root` (a real path) to `path` (relative, `/`-separated)
 * that leads outside `root` or nowhere (a dangling link), with where it leads; `undefined` when
 * writing `path` stays inside. Parts that do not exist yet are fine: they are made as real folders.
 */
function linkLeavingProject(root: string, path: string): { link: string; target: string } | undefined {
	let current = root;
	for (const part of path.split("/")) {
		const next = join(current, part);
		let isLink: boolean;
		try {
			isLink = lstatSync(next).isSymbolicLink();
		} catch {
			return undefined;
		}
		if (!isLink) {
			current = next;
			continue;
		}
		let target: string;
		try {
			target = realpathSync(next);
		} catch {
			let text = "";
			try {
				text = readlinkSync(next);
			} catch {
				// unreadable: named as the link itself
			}
			return { link: next, target: `${resolve(dirname(next), text)} (which does not exist)` };
		}
		if (!isInside(target, root)) return { link: next, target };
		current = target;
	}
	return undefined;
}

/**
 * Add the `_new-tool` files (source, test, fixture) for `toolName` to a project and register the tool
 * in its `src/tools/index.ts`. Refuses, writing nothing, when a file of the tool exists already, the
 * name cannot name a tool, the project has no `src/tools/index.ts` to register in (unless
 * `register: false`), or a file to write or update (or a folder on its way) is a symbolic link that
 * leads outside the project or nowhere. If writing fails half way, the files written so far are removed.
 */
export async function addTool(options: AddToolOptions): Promise<AddedTool> {
	const projectDir = resolve(options.projectDir);
	const refusal = toolNameRefusal(options.toolName);
	if (refusal) throw refusal;
	if (!existsSync(join(projectDir, "package.json"))) {
		throw new GeneratorError(
			"E_NOT_A_PROJECT",
			`${projectDir} has no package.json; run this in a tool project (npm create toolsmith makes one)`,
		);
	}
	const register = options.register !== false;
	const registry = join(projectDir, ...REGISTRY.split("/"));
	if (register && !existsSync(registry)) {
		throw new GeneratorError(
			"E_NOT_A_PROJECT",
			`${REGISTRY} does not exist, so the tool cannot be registered there; add --no-register to write only its files, then register it in your extension with api.registerTool(...)`,
		);
	}
	const values: Values = { ...toolNames(options.toolName) };
	const fragment = join(options.templatesDir, TOOL_FRAGMENT);
	const files = await render([fragment], values, (path) => path === REGISTRY);
	// A symbolic link in the project (the registry, or a folder such as src/tools or test) must not
	// carry a write outside it: every file written or updated is checked before the first write.
	const realRoot = realpathSync(projectDir);
	for (const path of [...files.keys(), ...(register ? [REGISTRY] : [])]) {
		const leaving = linkLeavingProject(realRoot, path);
		if (leaving) {
			throw new GeneratorError(
				"E_OUTSIDE_PROJECT",
				`${leaving.link} is a symbolic link to ${leaving.target}, outside the project ${realRoot}, and writing ${path} would go through it; nothing was written. Replace the link with a real ${leaving.link === join(realRoot, ...path.split("/")) ? "file" : "folder"}, or run this in the project it points to`,
			);
		}
	}
	const taken = [...files.keys()].filter((path) => existsSync(join(projectDir, ...path.split("/"))));
	if (taken.length > 0) {
		throw new GeneratorError(
			"E_TOOL_EXISTS",
			`the tool's files exist already: ${taken.join(", ")}; choose another name, or remove them first`,
		);
	}
	const line = renderText(await readFile(join(fragment, ...REGISTRY.split("/")), "utf8"), values, REGISTRY);
	const current = register ? await readFile(registry, "utf8") : "";
	if (register && current.split("\n").some((existing) => existing.trim() === line.trim())) {
		throw new GeneratorError("E_TOOL_EXISTS", `${REGISTRY} registers ${values.toolIdent} already`);
	}

	const written: string[] = [];
	try {
		for (const [path, content] of files) {
			const file = join(projectDir, ...path.split("/"));
			await mkdir(dirname(file), { recursive: true });
			await writeFile(file, content, { flag: "wx" });
			written.push(file);
		}
		if (register) await appendFile(registry, `${current === "" || current.endsWith("\n") ? "" : "\n"}${line}`);
	} catch (error) {
		await Promise.all(written.map((file) => rm(file, { force: true })));
		throw error;
	}
	return {
		toolName: options.toolName,
		files: [...files.keys(), ...(register ? [REGISTRY] : [])].sort(),
		...(register ? { registeredIn: REGISTRY } : {}),
	};
}

/** The folder holding `package.json` named `name`, from `start` up (where a bundled CLI finds its templates). */
export function packageRoot(start: string, name: string): string | undefined {
	for (let dir = start; ; dir = dirname(dir)) {
		const manifest = join(dir, "package.json");
		try {
			if (
				statSync(manifest).isFile() &&
				(JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === name
			) {
				return dir;
			}
		} catch {
			// no readable manifest here: keep walking up
		}
		if (dirname(dir) === dir) return undefined;
	}
}

/** `path` relative to `from`, with `/` separators, for messages. */
export function displayPath(path: string, from: string): string {
	const rel = relative(from, path);
	if (rel === "") return ".";
	return rel.startsWith("..") ? path : rel.split(sep).join("/");
}

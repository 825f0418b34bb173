/**
 * The corpus section of `npm run compat`: every third-party pi package of corpus.txt, as `npm run
 * compat:setup` installed it, loaded under the reference's own loader (the release its
 * peerDependencies ask for, or the nearest installed one; in a child process, under Node 22 where
 * the release needs it) and under toolsmith (`loadExtensions`, no built-ins). One line per package:
 * the tools each registered, whether they match, toolsmith's diagnostics. Fails when a package the
 * reference loads without errors registers other tools under toolsmith.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { NodeExecutionEnv } from "../../src/env/node.js";
import type { ExtensionDiagnostic } from "../../src/extensions/api.js";
import { loadExtensions } from "../../src/extensions/node-loader.js";
import { cacheDir, installedReleases, nodeFor, type ReferenceLoad, type Release, referenceLoad } from "./_reference.js";

const here = dirname(fileURLToPath(import.meta.url));

interface Manifest {
	readonly name?: string;
	readonly version?: string;
	readonly peerDependencies?: Readonly<Record<string, string>>;
	readonly dependencies?: Readonly<Record<string, string>>;
}

/** The package specs of corpus.txt, in order. */
export function corpusSpecs(): string[] {
	return readFileSync(join(here, "corpus.txt"), "utf8")
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line !== "" && !line.startsWith("#"));
}

/** Where compat:setup installed `spec` (`name@version`): the package folder, or undefined. */
export function corpusPackageDir(spec: string): string | undefined {
	const at = spec.lastIndexOf("@");
	const name = spec.slice(0, at);
	const dir = join(cacheDir, "corpus", spec.replaceAll("/", "+"), "node_modules", name);
	return existsSync(join(dir, "package.json")) ? realpathSync(dir) : undefined;
}

const SCOPES = ["@earendil-works", "@mariozechner"] as const;
const PI_PACKAGES = ["pi-coding-agent", "pi-ai", "pi-tui", "pi-agent-core"];

/** The scope of the pi packages the sources import, read from the files (for a package that declares no peers). */
function importedScope(dir: string): Release["scope"] | undefined {
	const counts = new Map<string, number>();
	const walk = (folder: string, depth: number): void => {
		for (const name of readdirSync(folder)) {
			if (name === "node_modules" || name.startsWith(".")) continue;
			const path = join(folder, name);
			if (statSync(path).isDirectory()) {
				if (depth < 4) walk(path, depth + 1);
			} else if (/\.(ts|mts|js|mjs)$/.test(name)) {
				for (const match of readFileSync(path, "utf8").matchAll(/["'](@mariozechner|@earendil-works)\/pi-/g)) {
					counts.set(match[1] as string, (counts.get(match[1] as string) ?? 0) + 1);
				}
			}
		}
	};
	walk(dir, 0);
	const [best] = [...counts].sort((a, b) => b[1] - a[1]);
	return best?.[0] as Release["scope"] | undefined;
}

/** A version as one number, for "nearest": major, minor and patch weighted apart. */
function weight(version: string): number {
	const v = semver.parse(version);
	return v ? v.major * 1e8 + v.minor * 1e4 + v.patch : 0;
}

/**
 * The release to load `dir` with: the scope and range of its pi peer (pi-coding-agent first, then
 * pi-ai, pi-tui, pi-agent-core; a dependency counts when there is no peer), the newest installed
 * release that satisfies it, else the installed one nearest to the range's lowest version. Without
 * any, the scope its files import, newest release.
 */
export function pickRelease(dir: string, releases: readonly Release[]): { release: Release; why: string } | undefined {
	const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
	for (const field of ["peerDependencies", "dependencies"] as const) {
		const declared = manifest[field] ?? {};
		for (const pkg of PI_PACKAGES) {
			for (const scope of SCOPES) {
				const range = declared[`${scope}/${pkg}`];
				if (range === undefined) continue;
				const candidates = releases.filter((release) => release.scope === scope);
				if (candidates.length === 0) continue;
				const satisfying = candidates.filter((release) => semver.satisfies(release.version, range));
				const chosen = satisfying.at(-1);
				if (chosen) return { release: chosen, why: `${scope}/${pkg} ${range}` };
				const low = semver.minVersion(range)?.version ?? "0.0.0";
				const nearest = [...candidates].sort(
					(a, b) => Math.abs(weight(a.version) - weight(low)) - Math.abs(weight(b.version) - weight(low)),
				)[0];
				if (nearest) return { release: nearest, why: `${scope}/${pkg} ${range}, nearest installed` };
			}
		}
	}
	const scope = importedScope(dir) ?? "@earendil-works";
	const newest = releases.filter((release) => release.scope === scope).at(-1);
	return newest ? { release: newest, why: `no pi peer; its files import ${scope}` } : undefined;
}

/** `CODE×n` for each code, most frequent first. */
function codes(diagnostics: readonly ExtensionDiagnostic[]): string {
	const counts = new Map<string, number>();
	for (const d of diagnostics) counts.set(d.code, (counts.get(d.code) ?? 0) + 1);
	return [...counts]
		.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
		.map(([code, n]) => `${code}×${n}`)
		.join(" ");
}

/** One package's outcome. */
export interface CorpusRow {
	readonly spec: string;
	readonly release: string;
	readonly reference: string[] | undefined;
	readonly referenceErrors: string[];
	readonly toolsmith: string[];
	readonly errors: ExtensionDiagnostic[];
	readonly diagnostics: ExtensionDiagnostic[];
	readonly match: boolean;
}

/** Load one installed package both ways. */
export async function compareOne(spec: string, dir: string, release: Release): Promise<CorpusRow> {
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-corpus-")));
	try {
		let reference: ReferenceLoad | undefined;
		let referenceErrors: string[] = [];
		try {
			reference = await referenceLoad(release, [dir], cwd);
			referenceErrors = reference.errors.map((e) => e.error.split("\n")[0] ?? e.error);
		} catch (error) {
			referenceErrors = [`loader failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`];
		}
		const loaded = await loadExtensions([dir], { cwd, env: new NodeExecutionEnv({ cwd }), builtins: false });
		const toolsmith = loaded.registry
			.infos()
			.filter((info) => info.source !== "builtin")
			.map((info) => info.name)
			.sort();
		const referenceTools = reference?.extensions.flatMap((e) => e.tools).sort();
		const errors = loaded.diagnostics.filter((d) => d.severity === "error");
		const match =
			referenceTools !== undefined &&
			referenceTools.length === toolsmith.length &&
			referenceTools.every((name, i) => name === toolsmith[i]);
		return {
			spec,
			release: `${release.scope}/pi-coding-agent@${release.version}`,
			reference: referenceTools,
			referenceErrors,
			toolsmith,
			errors,
			diagnostics: loaded.diagnostics,
			match,
		};
	} finally {
		rmSync(cwd, { recursive: true, force: true });
	}
}

function list(names: readonly string[] | undefined): string {
	if (names === undefined) return "(not loaded)";
	return names.length === 0 ? "(none)" : names.join(", ");
}

/** Run the corpus: one line per package; false when a package the reference loads registers other tools here. */
export async function run(): Promise<boolean> {
	const releases = installedReleases();
	const specs = corpusSpecs();
	if (releases.length === 0) {
		console.log("corpus: no reference release installed; run `npm run compat:setup` first");
		return false;
	}
	let ok = true;
	let matched = 0;
	for (const spec of specs) {
		const dir = corpusPackageDir(spec);
		if (!dir) {
			console.log(`${spec}: not installed (run \`npm run compat:setup\`)`);
			ok = false;
			continue;
		}
		const picked = pickRelease(dir, releases);
		if (!picked) {
			console.log(`${spec}: no installed release to compare with`);
			ok = false;
			continue;
		}
		const row = await compareOne(spec, dir, picked.release);
		const referenceLoaded = row.reference !== undefined && row.referenceErrors.length === 0;
		if (row.match) matched++;
		else if (referenceLoaded) ok = false;
		const node = nodeFor(picked.release) === process.execPath ? "" : ", Node 22";
		const verdict = row.match ? "match" : referenceLoaded ? "DIFFERENT" : "differs (reference did not load it)";
		console.log(
			`${spec} [${row.release}${node}; ${picked.why}]\n` +
				`  reference: ${list(row.reference)}${row.referenceErrors.length ? ` — errors: ${row.referenceErrors.join(" | ")}` : ""}\n` +
				`  toolsmith: ${list(row.toolsmith)}\n` +
				`  ${verdict}; diagnostics ${row.diagnostics.length}${row.diagnostics.length ? ` (${codes(row.diagnostics)})` : ""}`,
		);
		for (const error of row.errors) console.log(`    ${error.code}: ${error.message}`);
	}
	console.log(`corpus: ${matched} of ${specs.length} packages register the same tools under both`);
	return ok;
}

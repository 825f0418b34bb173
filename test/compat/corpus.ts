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

/** What one reference release registered for a package, and whether toolsmith registered the same. */
export interface ReferenceRow {
	readonly release: string;
	/** Why this release (its peer range, or "the other line"). */
	readonly why: string;
	readonly node22: boolean;
	readonly tools: string[] | undefined;
	readonly errors: string[];
	readonly match: boolean;
}

/** One package's outcome: toolsmith's load, and the reference's under each release compared. */
export interface CorpusRow {
	readonly spec: string;
	readonly references: ReferenceRow[];
	readonly toolsmith: string[];
	readonly errors: ExtensionDiagnostic[];
	readonly diagnostics: ExtensionDiagnostic[];
}

/** Load one installed package under toolsmith and under each of `releases` (the reference's loader). */
export async function compareOne(
	spec: string,
	dir: string,
	releases: readonly { release: Release; why: string }[],
): Promise<CorpusRow> {
	const cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-corpus-")));
	try {
		const loaded = await loadExtensions([dir], { cwd, env: new NodeExecutionEnv({ cwd }), builtins: false });
		const toolsmith = loaded.registry
			.infos()
			.filter((info) => info.source !== "builtin")
			.map((info) => info.name)
			.sort();
		const references: ReferenceRow[] = [];
		for (const { release, why } of releases) {
			let reference: ReferenceLoad | undefined;
			let errors: string[] = [];
			try {
				reference = await referenceLoad(release, [dir], cwd);
				errors = reference.errors.map((e) => e.error.split("\n")[0] ?? e.error);
			} catch (error) {
				errors = [`loader failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`];
			}
			const tools = reference?.extensions.flatMap((e) => e.tools).sort();
			const match =
				tools !== undefined && tools.length === toolsmith.length && tools.every((name, i) => name === toolsmith[i]);
			references.push({
				release: `${release.scope}/pi-coding-agent@${release.version}`,
				why,
				node22: nodeFor(release) !== process.execPath,
				tools,
				errors,
				match,
			});
		}
		return {
			spec,
			references,
			toolsmith,
			errors: loaded.diagnostics.filter((d) => d.severity === "error"),
			diagnostics: loaded.diagnostics,
		};
	} finally {
		rmSync(cwd, { recursive: true, force: true });
	}
}

/** The release of each line every package is also compared with: pi 0.73.1 and 1.6.0. */
const LINES: readonly { scope: Release["scope"]; version: string }[] = [
	{ scope: "@mariozechner", version: "0.73.1" },
	{ scope: "@earendil-works", version: "1.6.0" },
];

function list(names: readonly string[] | undefined): string {
	if (names === undefined) return "(not loaded)";
	return names.length === 0 ? "(none)" : names.join(", ");
}

/**
 * Run the corpus: per package, toolsmith's tools against the reference's under the release its
 * peers ask for and under the release of each line (0.73.1, 1.6.0). False when a reference release
 * that loads the package without errors registers other tools than toolsmith.
 */
export async function run(): Promise<boolean> {
	const releases = installedReleases();
	const specs = corpusSpecs();
	if (releases.length === 0) {
		console.log("corpus: no reference release installed; run `npm run compat:setup` first");
		return false;
	}
	const lines = LINES.map(({ scope, version }) => releases.find((r) => r.scope === scope && r.version === version));
	let ok = true;
	let loadedHere = 0;
	const matched = new Map<string, number>();
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
		const compared = [picked];
		for (const release of lines) {
			if (release && release !== picked.release) compared.push({ release, why: "the other line" });
		}
		const row = await compareOne(spec, dir, compared);
		if (row.errors.length === 0) loadedHere++;
		console.log(
			`${spec}\n  toolsmith: ${list(row.toolsmith)}; diagnostics ${row.diagnostics.length}${row.diagnostics.length ? ` (${codes(row.diagnostics)})` : ""}`,
		);
		for (const error of row.errors) console.log(`    ${error.code}: ${error.message}`);
		for (const reference of row.references) {
			const referenceLoaded = reference.tools !== undefined && reference.errors.length === 0;
			if (reference.match) matched.set(reference.release, (matched.get(reference.release) ?? 0) + 1);
			else if (referenceLoaded) ok = false;
			const verdict = reference.match ? "match" : referenceLoaded ? "DIFFERENT" : "differs (reference did not load it)";
			console.log(
				`  ${reference.release}${reference.node22 ? " (Node 22)" : ""} [${reference.why}]: ${list(reference.tools)} — ${verdict}${reference.errors.length ? `; errors: ${reference.errors.join(" | ")}` : ""}`,
			);
		}
	}
	console.log(
		`corpus: ${loadedHere} of ${specs.length} packages load under toolsmith without errors (Node ${process.versions.node})`,
	);
	for (const release of lines) {
		if (!release) continue;
		const name = `${release.scope}/pi-coding-agent@${release.version}`;
		console.log(`corpus: ${matched.get(name) ?? 0} of ${specs.length} register the same tools as ${name}`);
	}
	return ok;
}

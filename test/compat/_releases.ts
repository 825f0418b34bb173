/**
 * The reference releases `npm run compat:setup` installs (test/compat/releases.txt), where each one
 * is, and which Node runs it: this Node when it satisfies the release's `engines`, else the Node 22
 * that setup installed.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";

export const compatDir = dirname(fileURLToPath(import.meta.url));
export const cacheDir = join(compatDir, ".cache");
const node22 = join(cacheDir, "node22", "node_modules", ".bin", "node");

export interface Release {
	/** `@scope/pi-coding-agent@version`, as listed. */
	readonly spec: string;
	readonly scope: string;
	readonly version: string;
	/** The release's pi-coding-agent folder. */
	readonly packageDir: string;
	/** The pi-ai folder next to it. */
	readonly aiDir: string;
	readonly installed: boolean;
	/** The Node binary to run it with, or undefined when none installed here satisfies its engines. */
	readonly node: string | undefined;
}

function nodeFor(packageDir: string): string | undefined {
	const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
		engines?: { node?: string };
	};
	const wanted = manifest.engines?.node;
	if (wanted === undefined || semver.satisfies(process.versions.node, wanted)) return process.execPath;
	return existsSync(node22) ? node22 : undefined;
}

export function listReleases(): Release[] {
	const specs = readFileSync(join(compatDir, "releases.txt"), "utf8")
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line !== "" && !line.startsWith("#"));
	return specs.map((spec) => {
		const at = spec.lastIndexOf("@");
		const name = spec.slice(0, at);
		const version = spec.slice(at + 1);
		const scope = name.slice(0, name.indexOf("/"));
		const modules = join(cacheDir, "releases", spec.replace("/", "+"), "node_modules");
		const packageDir = join(modules, name);
		const aiDir = join(modules, scope, "pi-ai");
		const installed = existsSync(join(packageDir, "package.json")) && existsSync(join(aiDir, "package.json"));
		return { spec, scope, version, packageDir, aiDir, installed, node: installed ? nodeFor(packageDir) : undefined };
	});
}

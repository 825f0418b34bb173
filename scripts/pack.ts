/**
 * `npm pack` of toolsmith (and of create-toolsmith), as a user's install would get it, without touching the repository's
 * `dist/` (other work may be rebuilding it): the package inputs are copied to a temporary folder
 * whose `prepack` builds there. The tarball is kept under `node_modules/.cache`, keyed by a hash of
 * the inputs, so the test files that need it, `npm run try-create` (and later runs with the same
 * sources) pack once.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

export const repoRoot = fileURLToPath(new URL("..", import.meta.url));

interface PackedPackage {
	/** The package's folder, relative to the repository. */
	readonly dir: string;
	/** Everything its `prepack` and `files` read, relative to the repository. */
	readonly inputs: readonly string[];
}

const TOOLSMITH: PackedPackage = {
	dir: ".",
	// README.md, LICENSE and package.json are always packed.
	inputs: [
		"package.json",
		"package-lock.json",
		"tsconfig.json",
		"tsup.config.ts",
		// The inspector's page is bundled by this script after tsup.
		"scripts/build-inspector.mjs",
		"README.md",
		"LICENSE",
		"src",
		"docs",
		"schema",
		"templates",
		// The generator behind `toolsmith new` is bundled from create-tool's sources.
		"create-tool/package.json",
		"create-tool/src",
	],
};

const CREATE_TOOLSMITH: PackedPackage = {
	dir: "create-tool",
	// Its prepack copies templates/ and LICENSE in and bundles create-tool/src with the parts of src/ it uses.
	inputs: [
		"create-tool/package.json",
		"create-tool/README.md",
		"create-tool/tsup.config.ts",
		"create-tool/scripts",
		"create-tool/src",
		"src",
		"templates",
		"LICENSE",
	],
};

const skipped = (name: string) => name === "node_modules" || name === ".DS_Store";

const packing = new Map<PackedPackage, Promise<string>>();

function packCached(pkg: PackedPackage): Promise<string> {
	let pending = packing.get(pkg);
	if (!pending) {
		pending = packOnce(pkg).catch((error: unknown) => {
			// A failed pack is not remembered: the next caller gets a fresh attempt and its own error.
			packing.delete(pkg);
			throw error;
		});
		packing.set(pkg, pending);
	}
	return pending;
}

/** The path of a tarball `npm pack` made from the current sources (built once per set of inputs). */
export function packToolsmith(): Promise<string> {
	return packCached(TOOLSMITH);
}

/** The same for the create-toolsmith package (`create-tool/`). */
export function packCreateToolsmith(): Promise<string> {
	return packCached(CREATE_TOOLSMITH);
}

async function packOnce(pkg: PackedPackage): Promise<string> {
	const inputs = pkg.inputs.filter((input) => existsSync(join(repoRoot, input)));
	const manifest = JSON.parse(await readFile(join(repoRoot, pkg.dir, "package.json"), "utf8")) as {
		name: string;
		version: string;
	};
	const key = await hashInputs(inputs);
	const cached = join(
		repoRoot,
		"node_modules",
		".cache",
		"toolsmith-pack",
		key,
		`${manifest.name}-${manifest.version}.tgz`,
	);
	if (existsSync(cached)) return cached;

	const work = await mkdtemp(join(tmpdir(), "toolsmith-pack-"));
	try {
		const copy = join(work, "toolsmith");
		await mkdir(copy);
		for (const input of inputs) {
			await cp(join(repoRoot, input), join(copy, input), {
				recursive: true,
				filter: (source) => !skipped(source.slice(source.lastIndexOf("/") + 1)),
			});
		}
		// The build tools come from the repository; `prepack` only writes inside the copy.
		await symlink(join(repoRoot, "node_modules"), join(copy, "node_modules"), "dir");
		const out = join(work, "out");
		await mkdir(out);
		await run("npm", ["pack", "--pack-destination", out, "--no-fund", "--no-audit"], {
			cwd: join(copy, pkg.dir),
			maxBuffer: 64 * 1024 * 1024,
		});
		const [tarball, ...others] = await readdir(out);
		if (!tarball || others.length > 0) throw new Error(`npm pack left ${[tarball, ...others].join(", ")} in ${out}`);
		await mkdir(join(cached, ".."), { recursive: true });
		// Copied next to its place, then renamed (atomic on one file system): a concurrent run that
		// packs the same inputs sees a whole tarball or none.
		const partial = `${cached}.${process.pid}.partial`;
		await copyFile(join(out, tarball), partial);
		await rename(partial, cached);
		return cached;
	} finally {
		await rm(work, { recursive: true, force: true });
	}
}

/** A hash of the inputs' paths and contents. */
async function hashInputs(inputs: readonly string[]): Promise<string> {
	const hash = createHash("sha256");
	const add = async (path: string): Promise<void> => {
		const info = await stat(path);
		if (info.isDirectory()) {
			const names = (await readdir(path)).filter((name) => !skipped(name)).sort();
			for (const name of names) await add(join(path, name));
			return;
		}
		hash.update(`${relative(repoRoot, path)}\0${info.size}\0`);
		hash.update(await readFile(path));
	};
	for (const input of inputs) await add(join(repoRoot, input));
	return hash.digest("hex").slice(0, 16);
}

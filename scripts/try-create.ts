/**
 * `npm run try-create -- <directory> [options]`: `npm create toolsmith` from this checkout, before
 * either package is published. Packs toolsmith-sdk and create-toolsmith from the current sources
 * (cached while they stay the same, see scripts/pack.ts), installs create-toolsmith from its tarball
 * on its own, as `npm create` would, and runs it with `--toolsmith <the toolsmith-sdk tarball>` and
 * the other options given. The directory is resolved from where `npm run` was started, and must be
 * outside the checkout.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { packCreateToolsmith, packToolsmith, repoRoot } from "./pack.js";

const USAGE = [
	"usage: npm run try-create -- <directory> [create-toolsmith options]",
	"",
	"Packs toolsmith-sdk and create-toolsmith from this checkout and runs create-toolsmith from its",
	"tarball, with --toolsmith <the toolsmith-sdk tarball>. The directory must be outside the checkout.",
	"",
	"  npm run try-create -- ../my-tools",
	"  npm run try-create -- ../my-mcp --template mcp --yes --no-git",
	"",
	"Options after the directory go to create-toolsmith (npm run try-create -- --list lists the templates).",
].join("\n");

/** create-toolsmith's options that take a value, so their value is not read as the directory. */
const TAKES_VALUE = new Set(["-t", "--template", "--pm", "--tool", "--toolsmith"]);

/** The trouble with the command line, said so it can be fixed. */
class UsageError extends Error {}

/** The project's directory (the first positional) in create-toolsmith's arguments, if any. */
function directoryOf(args: readonly string[]): string | undefined {
	for (let i = 0; i < args.length; i++) {
		const arg = args[i] ?? "";
		if (arg === "--") return args[i + 1];
		if (TAKES_VALUE.has(arg)) i++;
		else if (!arg.startsWith("-")) return arg;
	}
	return undefined;
}

/**
 * What to run create-toolsmith with from `base` (where the user started `npm run`), or why not:
 * `undefined` as the directory means create-toolsmith only answers (`--help`, `--list`, `--version`).
 */
function plan(args: readonly string[], base: string): { readonly target: string | undefined } {
	if (args.some((arg) => arg === "--toolsmith" || arg.startsWith("--toolsmith="))) {
		throw new UsageError(
			"try-create gives --toolsmith itself (the tarball packed from this checkout): leave it out, or run create-toolsmith yourself.",
		);
	}
	const answersOnly = args.some((arg) => ["-h", "--help", "--list", "-v", "--version"].includes(arg));
	const directory = directoryOf(args);
	if (directory === undefined) {
		if (answersOnly) return { target: undefined };
		throw new UsageError(
			`Name the project's folder, outside this checkout: npm run try-create -- ../my-tools\n\n${USAGE}`,
		);
	}
	const target = resolve(base, directory);
	const inside = relative(repoRoot, target);
	if (inside === "" || (!inside.startsWith("..") && !isAbsolute(inside))) {
		throw new UsageError(
			`${directory} is inside the toolsmith checkout, whose lint, type check and git would take the project in: give a folder outside it, e.g. npm run try-create -- ../${directory.replace(/^(\.\/)+/, "").replace(/\/+$/, "") || "my-tools"}`,
		);
	}
	return { target };
}

/** This process's environment without what `npm run` set for the checkout's own package. */
function childEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^npm_(package_|lifecycle_|config_local_prefix$|command$)/.test(key) || key === "INIT_CWD") continue;
		env[key] = value;
	}
	return env;
}

/** Run a program with this terminal; resolves to its exit code. */
function run(command: string, args: readonly string[], cwd: string, quiet = false): Promise<number> {
	return new Promise((done, fail) => {
		const child = spawn(command, [...args], {
			cwd,
			env: childEnv(),
			stdio: quiet ? ["ignore", "ignore", "inherit"] : "inherit",
		});
		child.on("error", fail);
		child.on("exit", (code, signal) => done(code ?? (signal ? 128 : 1)));
	});
}

async function main(args: readonly string[]): Promise<number> {
	const base = process.env.INIT_CWD ?? process.cwd();
	let target: string | undefined;
	try {
		({ target } = plan(args, base));
	} catch (error) {
		if (!(error instanceof UsageError)) throw error;
		process.stderr.write(`try-create: ${error.message}\n`);
		return 2;
	}
	process.stderr.write("try-create: packing toolsmith-sdk and create-toolsmith from this checkout…\n");
	const [toolsmith, create] = await Promise.all([packToolsmith(), packCreateToolsmith()]);
	process.stderr.write(`try-create: ${relative(base, toolsmith)}\ntry-create: ${relative(base, create)}\n`);
	// Installed on its own, as npm create does (into its cache): never the checkout's workspace link.
	const prefix = await mkdtemp(join(tmpdir(), "try-create-"));
	try {
		const npm = process.platform === "win32" ? "npm.cmd" : "npm";
		const installed = await run(
			npm,
			["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", create],
			base,
			true,
		);
		if (installed !== 0) {
			process.stderr.write(`try-create: installing ${create} failed (exit ${installed}); see npm's message above\n`);
			return installed;
		}
		const bin = join(prefix, "node_modules", ".bin", "create-toolsmith");
		const code = await run(bin, [...args, ...(target === undefined ? [] : ["--toolsmith", toolsmith])], base);
		if (code === 0 && target !== undefined) {
			process.stderr.write(
				`try-create: the project's toolsmith-sdk is the tarball ${toolsmith} (file:); once toolsmith-sdk is published, npm install toolsmith-sdk@latest there switches it to the registry.\n`,
			);
		}
		return code;
	} finally {
		await rm(prefix, { recursive: true, force: true });
	}
}

main(process.argv.slice(2)).then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(`try-create: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);

/**
 * Type-checks extension sources against an installed reference release's own declarations (its
 * `@earendil-works/*` packages and `typebox`), strictly, with this repository's `tsc`. Returns what
 * `tsc` printed: empty when the sources type-check.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const tsc = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "node_modules", ".bin", "tsc");

/** `releaseDir` is the release's package folder; the tsconfig is written into `workDir`. */
export function typeCheckAgainstRelease(
	releaseDir: string,
	workDir: string,
	files: readonly string[],
): Promise<string> {
	const modules = resolve(releaseDir, "..", "..");
	const project = join(workDir, "tsconfig.json");
	writeFileSync(
		project,
		JSON.stringify({
			compilerOptions: {
				target: "ES2022",
				module: "ESNext",
				moduleResolution: "Bundler",
				strict: true,
				noEmit: true,
				skipLibCheck: true,
				types: [],
				paths: {
					"@earendil-works/*": [join(modules, "@earendil-works", "*")],
					typebox: [join(modules, "typebox")],
				},
			},
			files,
		}),
	);
	return new Promise<string>((done) =>
		execFile(tsc, ["-p", project], (_error, stdout, stderr) => done(`${stdout}${stderr}`)),
	);
}

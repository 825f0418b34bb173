/**
 * Builds the inspector's page into dist/inspector/: app.ts and what it imports (preact, htm,
 * ansi_up) bundled by esbuild into app.js, style.css copied to app.css, index.html copied as it is
 * (the server fills in `__TOKEN__`). Runs after tsup, which empties dist/ first.
 */
import { copyFile, mkdir, readdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const page = join(root, "src", "inspector", "page");
const out = join(root, "dist", "inspector");

await mkdir(out, { recursive: true });
await build({
	entryPoints: [join(page, "app.ts")],
	outfile: join(out, "app.js"),
	bundle: true,
	format: "esm",
	platform: "browser",
	target: "es2022",
	minify: true,
	sourcemap: false,
	legalComments: "none",
	tsconfig: join(page, "tsconfig.json"),
	logLevel: "warning",
});
await copyFile(join(page, "style.css"), join(out, "app.css"));
await copyFile(join(page, "index.html"), join(out, "index.html"));

let total = 0;
const sizes = [];
for (const name of (await readdir(out)).sort()) {
	const { size } = await stat(join(out, name));
	total += size;
	sizes.push(`${name} ${(size / 1024).toFixed(1)} kB`);
}
console.log(`dist/inspector: ${sizes.join(", ")}; total ${(total / 1024).toFixed(1)} kB`);

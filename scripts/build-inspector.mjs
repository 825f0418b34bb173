/**
 * Builds the inspector's page into dist/inspector/: app.ts and what it imports (preact, htm,
 * ansi_up) bundled by esbuild into app.js, style.css copied to app.css, index.html copied as it is
 * (the server fills in `__TOKEN__`), and the licenses of the bundled packages gathered in
 * THIRD-PARTY-LICENSES.txt. Runs after tsup, which empties dist/ first.
 */
import { copyFile, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
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

// The bundle carries code of these packages; their licenses ask for their notices to go with it.
const bundled = ["preact", "htm", "ansi_up"];
const notices = [];
for (const name of bundled) {
	const folder = join(root, "node_modules", name);
	const manifest = JSON.parse(await readFile(join(folder, "package.json"), "utf8"));
	const license = await readFile(join(folder, "LICENSE"), "utf8");
	notices.push(`${name} ${manifest.version} (${manifest.license})\n\n${license.trim()}\n`);
}
await writeFile(
	join(out, "THIRD-PARTY-LICENSES.txt"),
	`The inspector page (app.js) bundles these packages:\n\n${notices.join(`\n${"-".repeat(72)}\n\n`)}`,
);

let total = 0;
const sizes = [];
for (const name of (await readdir(out)).sort()) {
	const { size } = await stat(join(out, name));
	total += size;
	sizes.push(`${name} ${(size / 1024).toFixed(1)} kB`);
}
console.log(`dist/inspector: ${sizes.join(", ")}; total ${(total / 1024).toFixed(1)} kB`);

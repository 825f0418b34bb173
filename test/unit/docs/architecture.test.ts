/**
 * docs/architecture.md maps every source file in one line, under a heading per folder: a file
 * added, moved or removed without its line changing fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");

function sources(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return sources(path);
		return entry.name.endsWith(".ts") ? [relative(root, path)] : [];
	});
}

/** The files the document lists: `- \`name.ts\`` lines under a "## `folder/`" heading. */
function listed(markdown: string): string[] {
	const files: string[] = [];
	let folder: string | undefined;
	for (const line of markdown.split("\n")) {
		const heading = /^## `(src\/(?:[^`]*\/)?)`$/.exec(line);
		if (heading) folder = heading[1];
		else if (line.startsWith("## ")) folder = undefined;
		const item = /^- `([^`/]+\.ts)`: \S/.exec(line);
		if (folder && item) files.push(`${folder}${item[1]}`);
	}
	return files;
}

it("lists every source file under src/ once, and nothing that is gone", () => {
	const documented = listed(readFileSync(join(root, "docs", "architecture.md"), "utf8"));
	const actual = sources(join(root, "src")).sort();
	expect(documented.filter((file, index) => documented.indexOf(file) !== index)).toEqual([]);
	expect({
		undocumented: actual.filter((file) => !documented.includes(file)),
		stale: documented.filter((file) => !actual.includes(file)),
	}).toEqual({ undocumented: [], stale: [] });
});

it("reads the headings and items it checks", () => {
	expect(listed("## `src/a/`\n\n- `b.ts`: B.\n- `c.ts` no colon\n## Other\n- `d.ts`: D.\n")).toEqual(["src/a/b.ts"]);
});

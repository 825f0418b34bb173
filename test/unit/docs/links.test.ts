/**
 * Every relative link in the README and the docs points at a file that exists and, with a `#`, at
 * a heading of that file (GitHub's anchors): a section moved or renamed without its links fails here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");

function markdownFiles(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return markdownFiles(path);
		return entry.name.endsWith(".md") ? [path] : [];
	});
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens. */
function slug(heading: string): string {
	return heading
		.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\- _]/gu, "")
		.replace(/ /g, "-");
}

/** The anchors of a document's headings, repeated ones numbered as GitHub does (`-1`, `-2`). */
function anchors(markdown: string): Set<string> {
	const seen = new Map<string, number>();
	const found = new Set<string>();
	let fenced = false;
	for (const line of markdown.split("\n")) {
		if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
		const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (!heading) continue;
		const base = slug(heading[1] ?? "");
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		found.add(count === 0 ? base : `${base}-${count}`);
	}
	return found;
}

/** The link targets of a document, outside code blocks and code spans. */
function links(markdown: string): string[] {
	const targets: string[] = [];
	let fenced = false;
	for (const line of markdown.split("\n")) {
		if (/^\s*(```|~~~)/.test(line)) {
			fenced = !fenced;
			continue;
		}
		if (fenced) continue;
		const text = line.replace(/`[^`]*`/g, "");
		for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) targets.push(match[1] ?? "");
	}
	return targets;
}

const documents = [
	join(root, "README.md"),
	join(root, "create-tool", "README.md"),
	...markdownFiles(join(root, "docs")),
];

it("finds the documents it checks, and links in them", () => {
	expect(documents.map((file) => relative(root, file))).toEqual(
		expect.arrayContaining(["README.md", "docs/testing.md", "docs/internals/benchmarks.md"]),
	);
	expect(links(readFileSync(join(root, "docs", "mcp.md"), "utf8")).length).toBeGreaterThan(0);
});

it("has no relative link to a missing file or heading", () => {
	const broken: string[] = [];
	for (const file of documents) {
		for (const target of links(readFileSync(file, "utf8"))) {
			if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
			const [path = "", anchor] = target.split("#");
			const destination = path === "" ? file : resolve(dirname(file), decodeURI(path));
			const where = `${relative(root, file)} → ${target}`;
			if (!existsSync(destination)) {
				broken.push(`${where}: no such file`);
				continue;
			}
			if (anchor === undefined || statSync(destination).isDirectory()) continue;
			if (!destination.endsWith(".md")) continue;
			if (!anchors(readFileSync(destination, "utf8")).has(anchor)) broken.push(`${where}: no such heading`);
		}
	}
	expect(broken).toEqual([]);
});

it("reads headings, anchors and links as GitHub does", () => {
	expect(slug("`tool` in the pi coding agent")).toBe("tool-in-the-pi-coding-agent");
	expect(slug("The other way: toolsmith tools inside pi")).toBe("the-other-way-toolsmith-tools-inside-pi");
	expect(slug("`toolsmith new`")).toBe("toolsmith-new");
	expect([...anchors("# A\n## B\n```\n# not a heading\n```\n## B\n")]).toEqual(["a", "b", "b-1"]);
	expect(links("[a](x.md#y) `[b](code.md)` [c](https://e.org)\n```\n[d](in-code.md)\n```\n")).toEqual([
		"x.md#y",
		"https://e.org",
	]);
});

import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import {
	basename,
	dirname,
	isPathInside,
	joinPath,
	normalizePath,
	relativePath,
	resolvePath,
} from "../../../src/env/path.js";

// node:path's POSIX flavour is the reference; the neutral helper must agree with it.
const samples = [
	"/",
	"/a",
	"/a/",
	"a",
	"a/b/../c",
	"./a//b/.",
	"../a",
	"../../a/b",
	"/../a",
	"/a/b/../../..",
	".",
	"",
	"a/..",
];

describe("runtime-neutral path helpers", () => {
	it("normalize like path.posix.normalize (without the trailing slash)", () => {
		for (const path of samples) {
			const expected = posix.normalize(path);
			expect(normalizePath(path), path).toBe(expected.length > 1 ? expected.replace(/\/$/, "") : expected);
		}
	});

	it("resolve like path.posix.resolve against an absolute base", () => {
		for (const path of samples) {
			for (const base of ["/", "/home/user/project", "/x/y/"]) {
				expect(resolvePath(base, path), `${base} + ${path}`).toBe(posix.resolve(base, path));
			}
		}
	});

	it("split, join and relate like path.posix", () => {
		for (const path of ["/a/b/c.txt", "/a", "/", "a/b", "a"]) {
			expect(dirname(path), path).toBe(posix.dirname(path));
			expect(basename(path), path).toBe(posix.basename(path));
		}
		expect(joinPath("a", "", "b/../c", "d.txt")).toBe(posix.join("a", "", "b/../c", "d.txt"));
		expect(joinPath()).toBe(".");
		for (const [from, to] of [
			["/a/b", "/a/b/c/d"],
			["/a/b/c", "/a/x"],
			["/a", "/a"],
			["/", "/q"],
		] as const) {
			expect(relativePath(from, to), `${from} → ${to}`).toBe(posix.relative(from, to) || ".");
		}
	});

	it("tell whether a path lies inside a folder by whole segments", () => {
		expect(isPathInside("/a/b", "/a")).toBe(true);
		expect(isPathInside("/a", "/a")).toBe(true);
		expect(isPathInside("/ab", "/a")).toBe(false);
		expect(isPathInside("/anything", "/")).toBe(true);
	});
});

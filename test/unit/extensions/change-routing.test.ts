/** Change routing on its own: no watcher, no disk; paths are plain strings. */
import { win32 } from "node:path";
import { describe, expect, it } from "vitest";
import {
	type ChangeKind,
	type HostFiles,
	importersOf,
	type KnownFiles,
	routeChanges,
	routeReload,
} from "../../../src/extensions/_change-routing.js";

const known = (root: string, modules: string[], extra: Partial<KnownFiles> = {}): KnownFiles => ({
	root,
	modules,
	origin: undefined,
	failed: false,
	...extra,
});

/** Two extensions sharing a helper, one in a given folder, and a given file not loaded yet. */
function host(overrides: Partial<HostFiles> = {}): HostFiles {
	return {
		extensions: new Map([
			["/p/a.ts", known("/p", ["/p/a.ts", "/p/lib/shared.ts"])],
			["/p/b.ts", known("/p", ["/p/b.ts", "/p/lib/shared.ts"])],
			["/exts/c.ts", known("/exts", ["/exts/c.ts"], { origin: "/exts" })],
			["/exts/pkg/index.ts", known("/exts/pkg", ["/exts/pkg/index.ts"], { origin: "/exts" })],
		]),
		roots: ["/exts"],
		files: ["/p/a.ts", "/p/b.ts", "/later/d.ts"],
		...overrides,
	};
}

const changes = (...entries: [string, ChangeKind][]) => new Map(entries);

describe("importersOf", () => {
	it("names every extension whose entry or modules include the file, in load order", () => {
		expect(importersOf("/p/lib/shared.ts", host().extensions)).toEqual(["/p/a.ts", "/p/b.ts"]);
		expect(importersOf("/p/a.ts", host().extensions)).toEqual(["/p/a.ts"]);
		expect(importersOf("/elsewhere.ts", host().extensions)).toEqual([]);
	});
});

describe("routeChanges", () => {
	it("syncs every extension made of a changed file, without force", () => {
		expect(routeChanges(changes(["/p/lib/shared.ts", "change"]), host())).toEqual([
			{ kind: "sync", path: "/p/a.ts", files: ["/p/lib/shared.ts"], force: false },
			{ kind: "sync", path: "/p/b.ts", files: ["/p/lib/shared.ts"], force: false },
		]);
	});

	it("gathers the files of one window per extension, in the order the changes name them", () => {
		expect(routeChanges(changes(["/p/b.ts", "change"], ["/p/lib/shared.ts", "change"]), host())).toEqual([
			{ kind: "sync", path: "/p/b.ts", files: ["/p/b.ts", "/p/lib/shared.ts"], force: false },
			{ kind: "sync", path: "/p/a.ts", files: ["/p/lib/shared.ts"], force: false },
		]);
	});

	it("follows a file given as a path, also one no extension is loaded from", () => {
		expect(routeChanges(changes(["/later/d.ts", "add"]), host())).toEqual([
			{ kind: "sync", path: "/later/d.ts", files: ["/later/d.ts"], force: false },
		]);
		expect(routeChanges(changes(["/p/a.ts", "unlink"]), host())).toEqual([
			{ kind: "sync", path: "/p/a.ts", files: ["/p/a.ts"], force: false },
		]);
	});

	it("ignores files that concern no extension and no given path", () => {
		expect(routeChanges(changes(["/p/notes.md", "add"], ["/other/x.ts", "change"]), host())).toEqual([]);
	});

	it("retries a failed extension, forced, when a file appears inside its folder or next to one of its modules", () => {
		const failing = host({
			extensions: new Map([
				["/p/a.ts", known("/p/pkg", ["/p/a.ts", "/q/helper.ts"], { failed: true })],
				["/p/b.ts", known("/p/pkg", ["/p/b.ts"])],
			]),
			files: [],
		});
		expect(routeChanges(changes(["/p/pkg/deep/missing.ts", "add"]), failing)).toEqual([
			{ kind: "sync", path: "/p/a.ts", files: ["/p/pkg/deep/missing.ts"], force: true },
		]);
		expect(routeChanges(changes(["/q/missing.ts", "add"]), failing)).toEqual([
			{ kind: "sync", path: "/p/a.ts", files: ["/q/missing.ts"], force: true },
		]);
		// Only an added file is a candidate for the missing module.
		expect(routeChanges(changes(["/q/missing.ts", "change"]), failing)).toEqual([]);
		// A file the failed extension is made of is a plain change, and the retry is still forced.
		expect(routeChanges(changes(["/q/helper.ts", "add"]), failing)).toEqual([
			{ kind: "sync", path: "/p/a.ts", files: ["/q/helper.ts"], force: true },
		]);
	});

	it("rediscovers a given folder when an entry comes or goes in it or one level down", () => {
		for (const kind of ["add", "unlink", "addDir", "unlinkDir"] as const) {
			expect(routeChanges(changes(["/exts/new.ts", kind]), host())).toEqual([
				{ kind: "rediscover", root: "/exts", force: false },
			]);
			expect(routeChanges(changes(["/exts/newpkg/index.ts", kind]), host())).toEqual([
				{ kind: "rediscover", root: "/exts", force: false },
			]);
		}
		expect(routeChanges(changes(["/exts/a/b/c.ts", "add"]), host())).toEqual([]);
	});

	it("rediscovers on a changed package.json there, not on other changed files", () => {
		expect(routeChanges(changes(["/exts/pkg/package.json", "change"]), host())).toEqual([
			{ kind: "rediscover", root: "/exts", force: false },
		]);
		expect(routeChanges(changes(["/exts/notes.md", "change"]), host())).toEqual([]);
		expect(routeChanges(changes(["/exts/c.ts", "change"]), host())).toEqual([
			{ kind: "sync", path: "/exts/c.ts", files: ["/exts/c.ts"], force: false },
		]);
	});

	it("puts every rediscovery before the syncs, each folder once", () => {
		const actions = routeChanges(
			changes(["/exts/c.ts", "unlink"], ["/p/a.ts", "change"], ["/exts/other.ts", "add"]),
			host(),
		);
		expect(actions).toEqual([
			{ kind: "rediscover", root: "/exts", force: false },
			{ kind: "sync", path: "/exts/c.ts", files: ["/exts/c.ts"], force: false },
			{ kind: "sync", path: "/p/a.ts", files: ["/p/a.ts"], force: false },
		]);
	});

	it("does its path arithmetic with the host's path functions", () => {
		const windows: HostFiles = {
			extensions: new Map([["C:\\p\\a.ts", known("C:\\p\\pkg", ["C:\\p\\a.ts"], { failed: true })]]),
			roots: ["C:\\exts"],
			files: [],
			path: win32,
		};
		expect(routeChanges(changes(["C:\\exts\\pkg\\index.ts", "add"], ["C:\\p\\missing.ts", "add"]), windows)).toEqual([
			{ kind: "rediscover", root: "C:\\exts", force: false },
			{ kind: "sync", path: "C:\\p\\a.ts", files: ["C:\\p\\missing.ts"], force: true },
		]);
	});
});

describe("routeReload", () => {
	it("without a target: every given folder, every extension a path named, every given file not loaded; all forced", () => {
		expect(routeReload(undefined, host())).toEqual([
			{ kind: "rediscover", root: "/exts", force: true },
			{ kind: "sync", path: "/p/a.ts", files: [], force: true },
			{ kind: "sync", path: "/p/b.ts", files: [], force: true },
			{ kind: "sync", path: "/later/d.ts", files: [], force: true },
		]);
	});

	it("a given folder is rediscovered", () => {
		expect(routeReload("/exts", host())).toEqual([{ kind: "rediscover", root: "/exts", force: true }]);
	});

	it("a module reloads every extension made of it; a given file not loaded is synced itself", () => {
		expect(routeReload("/p/lib/shared.ts", host())).toEqual([
			{ kind: "sync", path: "/p/a.ts", files: [], force: true },
			{ kind: "sync", path: "/p/b.ts", files: [], force: true },
		]);
		expect(routeReload("/exts/pkg/index.ts", host())).toEqual([
			{ kind: "sync", path: "/exts/pkg/index.ts", files: [], force: true },
		]);
		expect(routeReload("/later/d.ts", host())).toEqual([{ kind: "sync", path: "/later/d.ts", files: [], force: true }]);
	});

	it("answers undefined for a path that is none of those", () => {
		expect(routeReload("/p/notes.md", host())).toBeUndefined();
		expect(routeReload("/exts/pkg", host())).toBeUndefined();
	});
});

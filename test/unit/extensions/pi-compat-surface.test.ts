/**
 * The compatibility surface against the reference's own export lists (test/compat/exports/*.json,
 * committed; `npm run compat:exports` regenerates them from the installed releases): every value
 * export of every public module of pi 0.73.1 and 1.6.0 resolves inside extensions, as a value of
 * the same kind, never `undefined`. Stubs report when used; what tool-only extensions need works.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { isInertValue } from "../../../src/extensions/node-compat/_stubs.js";
import { setCompatReporter, VIRTUAL_MODULES } from "../../../src/extensions/node-compat/index.js";

interface ExportList {
	readonly package: string;
	readonly version: string;
	readonly entries: Readonly<Record<string, Readonly<Record<string, string>>>>;
	readonly constants: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

const dir = fileURLToPath(new URL("../../compat/exports", import.meta.url));
const lists = readdirSync(dir)
	.filter((file) => file.endsWith(".json"))
	.map((file) => JSON.parse(readFileSync(join(dir, file), "utf8")) as ExportList);

const reported: ExtensionDiagnostic[] = [];
beforeAll(() => setCompatReporter((d) => reported.push(d)));
afterAll(() => setCompatReporter(() => {}));

function moduleFor(pkg: string, subpath: string): Record<string, unknown> {
	const specifier = subpath === "." ? pkg : `${pkg}/${subpath.slice(2)}`;
	const module = VIRTUAL_MODULES[specifier];
	if (!module) throw new Error(`${specifier} is not mapped`);
	return module as Record<string, unknown>;
}

describe("every value export of the reference resolves in the compatibility modules", () => {
	it("has the lists of both lines", () => {
		expect(lists.map((list) => `${list.package}@${list.version}`).sort()).toEqual(
			expect.arrayContaining([
				"@mariozechner/pi-coding-agent@0.73.1",
				"@mariozechner/pi-ai@0.73.1",
				"@mariozechner/pi-tui@0.73.1",
				"@mariozechner/pi-agent-core@0.73.1",
				"@earendil-works/pi-coding-agent@1.6.0",
				"@earendil-works/pi-ai@1.6.0",
				"@earendil-works/pi-tui@1.6.0",
				"@earendil-works/pi-agent-core@1.6.0",
			]),
		);
	});

	for (const list of lists) {
		for (const [subpath, names] of Object.entries(list.entries)) {
			it(`${list.package}@${list.version} ${subpath} (${Object.keys(names).length} names)`, () => {
				const module = moduleFor(list.package, subpath);
				const wrong: string[] = [];
				for (const [name, kind] of Object.entries(names)) {
					const value = module[name];
					const actual = typeof value === "function" ? "function" : value === null ? "object" : typeof value;
					const expected = kind === "class" ? "function" : kind;
					// A reference function may be an object of functions here (TypeBox's `Value`), never missing.
					const fits = actual === expected || (expected === "function" && actual === "object");
					if (!(name in module) || value === undefined || !fits) wrong.push(`${name}: ${kind}, got ${actual}`);
				}
				expect(wrong).toEqual([]);
			});
		}
	}

	it("a class that is only a stub can be extended, constructed and drawn, and reports once", () => {
		const CustomEditor = moduleFor("@earendil-works/pi-coding-agent", ".").CustomEditor as new (
			...args: unknown[]
		) => { render(width: number): string[] };
		class Modal extends CustomEditor {
			override render(width: number): string[] {
				return [...super.render(width), "mode"];
			}
		}
		expect(new Modal({}, {}).render(20)).toEqual(["mode"]);
		new Modal();
		const notes = reported.filter((d) => d.message.includes("`CustomEditor`"));
		expect(notes.map((d) => [d.code, d.severity])).toEqual([["W_UNSUPPORTED_API", "warning"]]);
		const SessionManager = moduleFor("@earendil-works/pi-coding-agent", ".").SessionManager as {
			inMemory(): unknown;
		};
		expect(SessionManager.inMemory()).not.toBeUndefined();
		expect(reported.some((d) => d.message.includes("`SessionManager.inMemory`"))).toBe(true);
	});

	it("a function that is only a stub returns an inert value, never undefined, and reports", () => {
		const convertToLlm = moduleFor("@mariozechner/pi-coding-agent", ".").convertToLlm as () => unknown;
		expect(isInertValue(convertToLlm())).toBe(true);
		expect(reported.some((d) => d.code === "W_UNSUPPORTED_API" && d.message.includes("`convertToLlm`"))).toBe(true);
	});

	it("constants are the reference's values", () => {
		const agent = moduleFor("@earendil-works/pi-coding-agent", ".");
		expect([agent.CONFIG_DIR_NAME, typeof agent.VERSION, agent.DEFAULT_MAX_LINES]).toEqual([".pi", "string", 2000]);
	});
});

describe("what tool-only extensions need is implemented", () => {
	const agent = moduleFor("@earendil-works/pi-coding-agent", ".");

	it("createCodingTools and createReadOnlyTools give the built-in tools", () => {
		const coding = (agent.createCodingTools as (cwd: string) => { name: string }[])(process.cwd());
		const readOnly = (agent.createReadOnlyTools as (cwd: string) => { name: string }[])(process.cwd());
		expect(coding.map((tool) => tool.name)).toEqual(["read", "bash", "edit", "write"]);
		expect(readOnly.map((tool) => tool.name)).toEqual(["read", "grep", "find", "ls"]);
	});

	it("host paths are real paths", () => {
		for (const name of ["getAgentDir", "getPackageDir", "getDocsPath", "getExamplesPath", "getReadmePath"]) {
			const path = (agent[name] as () => unknown)();
			expect(typeof path === "string" && path.startsWith("/"), name).toBe(true);
		}
		const shell = (agent.getShellConfig as () => { shell: string; args: string[] })();
		expect(shell.args).toEqual(["-c"]);
	});

	it("createLocalBashOperations runs a command locally and streams its output", async () => {
		const ops = (
			agent.createLocalBashOperations as () => {
				exec(c: string, cwd: string, o: { onData(d: Buffer): void }): Promise<{ exitCode: number | null }>;
			}
		)();
		const chunks: Buffer[] = [];
		const result = await ops.exec("echo hi; exit 3", process.cwd(), { onData: (d) => chunks.push(d) });
		expect([result.exitCode, Buffer.concat(chunks).toString()]).toEqual([3, "hi\n"]);
	});

	it("createEventBus delivers to handlers until they are removed", () => {
		const bus = (
			agent.createEventBus as () => {
				emit(c: string, d: unknown): void;
				on(c: string, h: (d: unknown) => void): () => void;
			}
		)();
		const seen: unknown[] = [];
		const off = bus.on("x", (d) => seen.push(d));
		bus.emit("x", 1);
		off();
		bus.emit("x", 2);
		expect(seen).toEqual([1]);
	});
});

describe("pi's SettingsManager reads the settings files", () => {
	it("merges the project's over the global ones and answers getters from them", () => {
		const root = mkdtempSync(join(tmpdir(), "pi-settings-"));
		try {
			const agentDir = join(root, "agent");
			const cwd = join(root, "project");
			mkdirSync(agentDir, { recursive: true });
			mkdirSync(join(cwd, ".pi"), { recursive: true });
			writeFileSync(
				join(agentDir, "settings.json"),
				JSON.stringify({ theme: "dark", retry: { enabled: true, max: 3 } }),
			);
			writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ defaultProvider: "x", retry: { max: 5 } }));
			const SettingsManager = moduleFor("@mariozechner/pi-coding-agent", ".").SettingsManager as {
				create(cwd: string, agentDir: string): Record<string, (...args: unknown[]) => unknown>;
				inMemory(settings: object): Record<string, (...args: unknown[]) => unknown>;
			};
			const manager = SettingsManager.create(cwd, agentDir);
			expect(manager.getSettings?.()).toEqual({
				theme: "dark",
				defaultProvider: "x",
				retry: { enabled: true, max: 5 },
			});
			expect([manager.getTheme?.(), manager.getDefaultProvider?.(), manager.getShellPath?.()]).toEqual([
				"dark",
				"x",
				undefined,
			]);
			expect(manager.setTheme?.("light")).toBeUndefined();
			expect(manager.getTheme?.()).toBe("dark");
			expect(reported.some((d) => d.message.includes("SettingsManager.setTheme()"))).toBe(true);
			expect(SettingsManager.inMemory({ theme: "t" }).getTheme?.()).toBe("t");
			expect(SettingsManager.create(join(root, "none"), join(root, "none")).getSettings?.()).toEqual({});
		} finally {
			rmSync(root, { recursive: true, force: true });
		}
	});
});

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const dir = fileURLToPath(new URL("../../../src/harness/", import.meta.url));
// The entry points gather everything, Node parts included; `node-*` modules are Node-only by name.
const nodeOnly = (name: string) => name.startsWith("node-") || name === "index.ts" || name === "vitest.ts";

describe("harness layering", () => {
	it("keeps the runtime-neutral modules free of node: imports and of the Node-only modules", () => {
		const neutral = readdirSync(dir).filter((name) => name.endsWith(".ts") && !nodeOnly(name));
		expect(neutral.length).toBeGreaterThan(8);
		const offenders: string[] = [];
		for (const name of neutral) {
			const source = readFileSync(`${dir}${name}`, "utf8");
			for (const match of source.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
				const specifier = match[1] ?? "";
				const forbidden =
					specifier.startsWith("node:") ||
					/\/node-[^/]*\.js$/.test(specifier) ||
					/\/(loader|watcher|host)[^/]*\.js$/.test(specifier) ||
					specifier.endsWith("/env/node.js") ||
					["jiti", "chokidar", "vitest"].includes(specifier);
				if (forbidden) offenders.push(`${name} imports ${specifier}`);
			}
		}
		expect(offenders).toEqual([]);
	});
});

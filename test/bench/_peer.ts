/** Locating the reference package installed by `npm run bench:setup`. */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const peersDir = join(dirname(fileURLToPath(import.meta.url)), "peers");

/** Import a module of the peer install (for example `@mariozechner/pi-coding-agent`). */
export async function importPeer<T>(specifier: string, subpath = "dist/index.js"): Promise<T> {
	const dir = join(peersDir, "node_modules", specifier);
	const file = join(dir, subpath);
	if (!existsSync(file)) {
		throw new Error(`The benchmark peer ${specifier} is not installed. Run \`npm run bench:setup\` first.`);
	}
	return (await import(pathToFileURL(file).href)) as T;
}

/** A fake repository layout in a temporary folder, for the global setups' staleness rules. */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes `path` under `repo` (its own path as content) with the given modification time in seconds. */
export function writeAt(repo: string, path: string, seconds: number): void {
	const full = join(repo, path);
	mkdirSync(join(full, ".."), { recursive: true });
	writeFileSync(full, path);
	utimesSync(full, seconds, seconds);
}

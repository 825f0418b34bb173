/**
 * Reloading: the steps a file change or `reload()` leads to, run one at a time by the reload queue.
 * A step either brings one entry in line with the disk (`sync`) or rediscovers one folder of
 * `paths` (`scan`); which steps a change needs is change routing's answer.
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type RouteAction, routeChanges, routeReload } from "../_change-routing.js";
import type { QueuedJob } from "../_reload-queue.js";
import { discoverExtensions } from "../node-discovery.js";
import type { FileChangeKind } from "../node-watcher.js";
import { activateOne } from "./activate.js";
import { fingerprint, type HostState, hostFiles, knownEntry, realpathOr } from "./state.js";
import type { ExtensionReloadEvent } from "./types.js";
import { unloadOne } from "./unload.js";

type Trigger = "watch" | "manual";

/**
 * `reload(path)`: the steps for the extension, module or folder `path` names (every folder and
 * extension without it), run through the queue. Rejects when `path` is none of those.
 */
export async function reloadHost(state: HostState, path: string | undefined): Promise<ExtensionReloadEvent[]> {
	await state.ready;
	const target = path === undefined ? undefined : realpathOr(resolve(state.cwd, path));
	const actions = routeReload(target, hostFiles(state));
	if (actions === undefined) {
		throw new Error(
			`${target} is not an extension this host loaded, a module one imported, or a path it was given; pass one of those (or nothing, to reload everything).`,
		);
	}
	const results = await Promise.all(actions.map((action) => perform(state, action, "manual")));
	return results.flat();
}

/** The watcher's batch of changes: the steps they call for, queued. */
export function onChanges(state: HostState, changes: ReadonlyMap<string, FileChangeKind>): void {
	for (const action of routeChanges(changes, hostFiles(state))) void perform(state, action, "watch");
}

function perform(state: HostState, action: RouteAction, trigger: Trigger): Promise<ExtensionReloadEvent[]> {
	const reloads = state.reloads;
	return action.kind === "rediscover"
		? reloads.enqueue(`scan:${action.root}`, [], action.force, (job) => scan(state, action.root, trigger, job.force))
		: reloads.enqueue(`sync:${action.path}`, action.files, action.force, (job) =>
				sync(state, action.path, job, trigger),
			);
}

/** Bring one entry in line with the disk: unload it if its file is gone, else (re)load it. */
async function sync(state: HostState, path: string, job: QueuedJob, trigger: Trigger): Promise<ExtensionReloadEvent[]> {
	const entry = state.known.get(path);
	const changedFiles = [...job.files];
	if (!existsSync(path)) {
		if (!entry) return [];
		return [await unloadOne(state, path, trigger, changedFiles)];
	}
	if (entry && !job.force) {
		// Editors and file systems often report one save twice: a version already imported is not
		// imported again.
		const same = [...entry.signatures].every(([file, signature]) => fingerprint(file) === signature);
		const unseen = entry.modules.some((file) => !entry.signatures.has(file));
		if (same && !unseen) return [];
	}
	const target = entry ?? knownEntry({ path, root: dirname(path), kind: "file" }, undefined);
	if (!entry) state.known.set(path, target);
	// Report only the files whose content differs from what the last import read: a batch can
	// also carry late notices about files that did not change.
	const differing = entry
		? changedFiles.filter((file) => entry.signatures.get(file) !== fingerprint(file))
		: changedFiles;
	return [await activateOne(state, target, trigger, differing)];
}

/** Rediscover one folder from `paths`: load what is new, unload what is gone, reload what changed kind. */
async function scan(state: HostState, root: string, trigger: Trigger, force: boolean): Promise<ExtensionReloadEvent[]> {
	const events: ExtensionReloadEvent[] = [];
	const found = await discoverExtensions([root], { cwd: state.cwd });
	for (const diagnostic of found.diagnostics) state.runtime.report(diagnostic);
	const now = new Set(found.extensions.map((entry) => entry.path));
	for (const [path, entry] of [...state.known]) {
		if (entry.origin === root && !now.has(path)) events.push(await unloadOne(state, path, trigger, [path]));
	}
	for (const discovered of found.extensions) {
		const entry = state.known.get(discovered.path);
		if (!entry) {
			const fresh = knownEntry(discovered, root);
			state.known.set(discovered.path, fresh);
			events.push(await activateOne(state, fresh, trigger, [discovered.path]));
			continue;
		}
		const manifestChanged = entry.entry.engines !== discovered.engines;
		if (entry.origin === root) entry.entry = discovered;
		if (force || manifestChanged) events.push(await activateOne(state, entry, trigger, []));
	}
	return events;
}

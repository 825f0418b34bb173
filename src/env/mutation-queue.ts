/**
 * Per-file serialization of mutations (`write`, `edit`, and tools of your own that change files).
 *
 * Parallel tool calls are the default, so two calls may change one file at the same time. The
 * queue makes mutations of the same file run one after another in call order, keyed by the
 * canonical path so that `a.txt`, `./a.txt`, `/abs/a.txt` and a symlink to it share one queue.
 * Different files proceed in parallel.
 *
 * Scope: an env may name the scope its queue lives in with a `Symbol.for("toolsmith.mutationScope")`
 * property. Every `NodeExecutionEnv` names one process-wide scope (the disk is shared, so all of
 * them queue together, including the envs the pi-compat layer makes, and even a second copy of this
 * module loaded by an extension). An env that wraps another (`RecordingEnv`) passes on the scope of
 * the env it wraps. An env built with `createOperationsEnv` queues with every env built from the same
 * operations object (its paths are the callbacks' own, so the process-wide canonical-path queue
 * cannot apply); the pi-compat layer's operations envs queue with the host's env. Any other env, a
 * `MemoryExecutionEnv` included, is its own scope.
 */
import type { ExecutionEnv } from "../contract/env.js";

interface PendingMutation {
	readonly key: Promise<string>;
	readonly done: Promise<void>;
}

/** The property through which an env names its queue scope (an object shared by envs that share files). */
const SCOPE = Symbol.for("toolsmith.mutationScope");
/** Kept on `globalThis` under a registered symbol so that two copies of this module share it. */
const REGISTRY = Symbol.for("toolsmith.mutationQueues");

function pendingSets(): WeakMap<object, Set<PendingMutation>> {
	const holder = globalThis as { [REGISTRY]?: WeakMap<object, Set<PendingMutation>> };
	holder[REGISTRY] ??= new WeakMap();
	return holder[REGISTRY];
}

/** The scope `env` queues in: the one it names, or the env itself when it names none. */
export function mutationScopeOf(env: ExecutionEnv): object {
	const scope = (env as { [SCOPE]?: unknown })[SCOPE];
	return scope !== null && typeof scope === "object" ? scope : env;
}

/**
 * Make `env` queue in `scope` (not enumerable, so it is no part of the env's API). For envs that
 * wrap another (they pass on `mutationScopeOf(inner)`, so edits through the wrapper and through
 * the inner env queue together) and for envs that share files with others.
 */
export function setMutationScope(env: ExecutionEnv, scope: object): void {
	Object.defineProperty(env, SCOPE, { value: scope, configurable: true });
}

/**
 * `env.canonicalPath(path)`, or a failed result when the env breaks its contract and throws (a
 * wrapper refusing the method, a callback env): the key then falls back to the absolute path.
 */
async function canonicalOrFail(env: ExecutionEnv, path: string): Promise<{ ok: true; value: string } | { ok: false }> {
	try {
		const result = await env.canonicalPath(path);
		return result.ok ? { ok: true, value: result.value } : { ok: false };
	} catch {
		return { ok: false };
	}
}

/** The canonical path, or for a file that does not exist yet its canonical folder plus its name. */
async function mutationKey(env: ExecutionEnv, path: string): Promise<string> {
	const canonical = await canonicalOrFail(env, path);
	if (canonical.ok) return canonical.value;
	let absolute: ReturnType<ExecutionEnv["absolutePath"]>;
	try {
		absolute = env.absolutePath(path);
	} catch {
		return path;
	}
	if (!absolute.ok) return path;
	const slash = absolute.value.lastIndexOf("/");
	const parent = await canonicalOrFail(env, slash > 0 ? absolute.value.slice(0, slash) : "/");
	if (!parent.ok) return absolute.value;
	return `${parent.value === "/" ? "" : parent.value}/${absolute.value.slice(slash + 1)}`;
}

/**
 * Run `fn` once every earlier mutation of the same file (through any env of the same scope: every
 * `NodeExecutionEnv` of the process, or the same other env) has settled.
 * Settles with `fn`'s outcome; the queue moves on either way, so a throwing `fn` never blocks
 * later mutations.
 */
export async function withFileMutationQueue<T>(env: ExecutionEnv, path: string, fn: () => Promise<T>): Promise<T> {
	const sets = pendingSets();
	const scope = mutationScopeOf(env);
	let pending = sets.get(scope);
	if (!pending) {
		pending = new Set();
		sets.set(scope, pending);
	}
	// Everything below up to the first await runs synchronously, so the order of calls is the
	// order of the queue even when resolving keys takes different times for different spellings.
	const earlier = [...pending];
	let finish!: () => void;
	const self: PendingMutation = {
		key: mutationKey(env, path),
		done: new Promise<void>((resolve) => {
			finish = resolve;
		}),
	};
	pending.add(self);
	try {
		const key = await self.key;
		for (const other of earlier) {
			if ((await other.key) === key) await other.done;
		}
		return await fn();
	} finally {
		pending.delete(self);
		finish();
	}
}

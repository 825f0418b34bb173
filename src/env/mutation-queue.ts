/**
 * Per-file serialization of mutations (`write`, `edit`, and tools of your own that change files).
 *
 * Parallel tool calls are the default, so two calls may change one file at the same time. The
 * queue makes mutations of the same file run one after another in call order, keyed by the
 * canonical path so that `a.txt`, `./a.txt`, `/abs/a.txt` and a symlink to it share one queue.
 * Different files proceed in parallel. Queues are per env: two envs never block each other.
 */
import type { ExecutionEnv } from "./types.js";

interface PendingMutation {
	readonly key: Promise<string>;
	readonly done: Promise<void>;
}

const pendingByEnv = new WeakMap<ExecutionEnv, Set<PendingMutation>>();

/** The canonical path, or for a file that does not exist yet its canonical folder plus its name. */
async function mutationKey(env: ExecutionEnv, path: string): Promise<string> {
	const canonical = await env.canonicalPath(path);
	if (canonical.ok) return canonical.value;
	const absolute = env.absolutePath(path);
	if (!absolute.ok) return path;
	const slash = absolute.value.lastIndexOf("/");
	const parent = await env.canonicalPath(slash > 0 ? absolute.value.slice(0, slash) : "/");
	if (!parent.ok) return absolute.value;
	return `${parent.value === "/" ? "" : parent.value}/${absolute.value.slice(slash + 1)}`;
}

/**
 * Run `fn` once every earlier mutation of the same file (through the same env) has settled.
 * Settles with `fn`'s outcome; the queue moves on either way, so a throwing `fn` never blocks
 * later mutations.
 */
export async function withFileMutationQueue<T>(env: ExecutionEnv, path: string, fn: () => Promise<T>): Promise<T> {
	let pending = pendingByEnv.get(env);
	if (!pending) {
		pending = new Set();
		pendingByEnv.set(env, pending);
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

/** The reload queue: a host's reload steps run one at a time, in order, and a waiting step absorbs repeated requests. */

/** A queued step as it sees itself when it starts: every file and `force` asked for while it waited. */
export interface QueuedJob {
	readonly key: string;
	readonly files: ReadonlySet<string>;
	readonly force: boolean;
}

export interface ReloadQueueOptions<T> {
	/** Asked before queuing and before each step: once true, requests get `[]` and waiting steps are dropped (their promises resolve with `[]`). */
	readonly closed: () => boolean;
	/** Runs after each step, before its promise resolves, with what it gave (`[]` when it threw). */
	readonly afterEach: (results: T[]) => void;
	/** A step threw (steps are meant not to; this is a bug guard). */
	readonly onError: (error: unknown) => void;
}

export interface ReloadQueue<T> {
	/**
	 * Queue `run` under `key`; when a step of that key is waiting (not running yet), add `files` and
	 * `force` to it instead and share its promise (its own `run` stays). Resolves with what the step
	 * returned, `[]` when it threw or was dropped. Never rejects.
	 */
	enqueue(key: string, files: Iterable<string>, force: boolean, run: (job: QueuedJob) => Promise<T[]>): Promise<T[]>;
	/** Settles once the step running now, and those queued behind it, are done or dropped. */
	idle(): Promise<void>;
}

interface Job<T> extends QueuedJob {
	readonly files: Set<string>;
	force: boolean;
	readonly run: (job: QueuedJob) => Promise<T[]>;
	readonly resolve: (results: T[]) => void;
	readonly promise: Promise<T[]>;
}

/**
 * One operation at a time: a host's imports share the process-wide module cache, and a reload
 * report must describe one extension's change.
 */
export function createReloadQueue<T>(options: ReloadQueueOptions<T>): ReloadQueue<T> {
	const queue: Job<T>[] = [];
	let running: Promise<void> | undefined;
	const pump = async (): Promise<void> => {
		while (queue.length > 0 && !options.closed()) {
			const job = queue.shift() as Job<T>;
			let results: T[] = [];
			try {
				results = await job.run(job);
			} catch (error) {
				options.onError(error);
			}
			options.afterEach(results);
			job.resolve(results);
		}
		for (const job of queue.splice(0)) job.resolve([]);
		running = undefined;
	};
	return {
		enqueue(key, files, force, run) {
			if (options.closed()) return Promise.resolve([]);
			const waiting = queue.find((job) => job.key === key);
			if (waiting) {
				for (const file of files) waiting.files.add(file);
				waiting.force ||= force;
				return waiting.promise;
			}
			let resolveJob: (results: T[]) => void = () => {};
			const promise = new Promise<T[]>((resolve) => {
				resolveJob = resolve;
			});
			queue.push({ key, files: new Set(files), force, run, resolve: resolveJob, promise });
			running ??= pump();
			return promise;
		},
		idle: async () => {
			await running;
		},
	};
}

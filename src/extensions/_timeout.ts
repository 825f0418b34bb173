/** A time limit on a promise, shared by the extension loader and the runtime. */

/**
 * `promise`, or a rejection with `onTimeout()` once `ms` have passed (never with no finite `ms`).
 * The timer also keeps the process alive while `promise` waits on nothing: a top-level `await`
 * that never settles would otherwise empty the event loop and end Node (exit code 13).
 */
export function withTimeout<T>(promise: Promise<T>, ms: number | undefined, onTimeout: () => Error): Promise<T> {
	if (ms === undefined || !Number.isFinite(ms)) return promise;
	return new Promise<T>((resolve, reject) => {
		const timer = setTimeout(() => reject(onTimeout()), ms);
		promise.then(
			(value) => {
				clearTimeout(timer);
				resolve(value);
			},
			(error: unknown) => {
				clearTimeout(timer);
				reject(error);
			},
		);
	});
}

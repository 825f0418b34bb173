/**
 * Telling observers what happened. An observer (a listener, a log, a diagnostics callback) cannot
 * break the code that tells it: what it throws is dropped, and the others are still told.
 */

/** A function told of a value. */
export type Listener<T> = (value: T) => void;

/**
 * Calls every listener with `value`, in order. It walks a copy of `listeners`, so a listener may
 * unsubscribe itself (or another) while being told; a listener that throws is skipped.
 */
export function notifyListeners<T>(listeners: Iterable<Listener<T> | undefined>, value: T): void {
	for (const listener of [...listeners]) {
		try {
			listener?.(value);
		} catch {
			// an observer cannot break the code that tells it
		}
	}
}

/** `listener` as a function that never throws (and does nothing when there is no listener). */
export function observer<T>(listener: Listener<T> | undefined): Listener<T> {
	return (value) => {
		try {
			listener?.(value);
		} catch {
			// an observer cannot break the code that tells it
		}
	};
}

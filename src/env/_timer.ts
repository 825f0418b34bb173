/**
 * Timers of any length. `setTimeout` holds at most 2^31 - 1 milliseconds (about 24.8 days); a
 * longer delay fires after 1 ms instead, which would kill a command with a long timeout at once.
 * These timers re-arm in steps below that limit, so any finite delay waits as long as it says.
 */

/** The longest delay one `setTimeout` call honors, in milliseconds. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Run `fn` once `ms` milliseconds have passed (any finite length); returns a function that cancels it. */
export function setLongTimeout(ms: number, fn: () => void): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const due = Date.now() + ms;
	let left = ms;
	const arm = () => {
		timer = setTimeout(
			() => {
				left = ms > MAX_TIMER_MS ? due - Date.now() : 0;
				if (left > 0) return arm();
				timer = undefined;
				fn();
			},
			Math.max(0, Math.min(left, MAX_TIMER_MS)),
		);
	};
	arm();
	return () => {
		if (timer !== undefined) clearTimeout(timer);
		timer = undefined;
	};
}

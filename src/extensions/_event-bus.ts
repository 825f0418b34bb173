/** The bus extensions share (`api.events`). */
import type { EventBus } from "./api.js";

/** `onError` hears a listener that threw; the other listeners still run. */
export function createEventBus(onError: (channel: string, error: unknown) => void): EventBus {
	const channels = new Map<string, Set<(data: unknown) => void>>();
	return {
		emit(channel, data) {
			const listeners = channels.get(channel);
			if (!listeners) return;
			for (const listener of [...listeners]) {
				try {
					listener(data);
				} catch (error) {
					onError(channel, error);
				}
			}
		},
		on(channel, handler) {
			let listeners = channels.get(channel);
			if (!listeners) {
				listeners = new Set();
				channels.set(channel, listeners);
			}
			listeners.add(handler);
			return () => {
				listeners.delete(handler);
			};
		},
	};
}

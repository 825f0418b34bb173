/**
 * The order calls of concurrent MCP requests run in: calls to parallel tools overlap freely; a
 * call to a sequential tool waits for the calls before it to finish and runs alone. Callers are
 * served in arrival order, so a waiting sequential call is not overtaken by later parallel ones.
 */
interface Waiting {
	readonly exclusive: boolean;
	readonly start: () => void;
}

export class CallGate {
	#running = 0;
	#exclusive = false;
	readonly #queue: Waiting[] = [];

	/** Run `task` when the gate lets it (`exclusive`: alone); resolves or rejects as `task` does. */
	run<T>(exclusive: boolean, task: () => Promise<T>): Promise<T> {
		// Nothing waiting and nothing in the way: start now, without queueing.
		if (this.#queue.length === 0 && !this.#exclusive && !(exclusive && this.#running > 0)) {
			return this.#start(exclusive, task);
		}
		return new Promise<T>((resolve, reject) => {
			this.#queue.push({ exclusive, start: () => this.#start(exclusive, task).then(resolve, reject) });
		});
	}

	#start<T>(exclusive: boolean, task: () => Promise<T>): Promise<T> {
		this.#running += 1;
		if (exclusive) this.#exclusive = true;
		let promise: Promise<T>;
		try {
			promise = task();
		} catch (error) {
			promise = Promise.reject(error);
		}
		return promise.finally(() => this.#release(exclusive));
	}

	#release(exclusive: boolean): void {
		this.#running -= 1;
		if (exclusive) this.#exclusive = false;
		this.#pump();
	}

	#pump(): void {
		while (this.#queue.length > 0 && !this.#exclusive) {
			const next = this.#queue[0] as Waiting;
			if (next.exclusive && this.#running > 0) return;
			this.#queue.shift();
			next.start();
		}
	}
}

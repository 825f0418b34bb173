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
		return new Promise<T>((resolve, reject) => {
			this.#queue.push({
				exclusive,
				start: () => {
					let promise: Promise<T>;
					try {
						promise = task();
					} catch (error) {
						promise = Promise.reject(error);
					}
					promise.then(resolve, reject).finally(() => this.#release(exclusive));
				},
			});
			this.#pump();
		});
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
			this.#running += 1;
			if (next.exclusive) this.#exclusive = true;
			next.start();
		}
	}
}

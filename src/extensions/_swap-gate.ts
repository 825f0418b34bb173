/** The swap gate: batches that start while an extension is between its shutdown and its start wait for it. */

export interface SwapGate {
	/** Close the gate: batches that start from now on wait. Does nothing when it is closed already. */
	hold(): void;
	/** Open the gate: the waiting batches go on. Does nothing when it is open. */
	release(): void;
	/** Resolves when the gate is open: at once when it is, else once it opens and was not closed again. Never rejects. */
	wait(): Promise<void>;
}

/** A gate that starts open. One gate stands for every swap: holding it twice needs one release. */
export function createSwapGate(): SwapGate {
	let gate: Promise<void> | undefined;
	let openGate: (() => void) | undefined;
	return {
		hold() {
			if (gate !== undefined) return;
			gate = new Promise<void>((resolve) => {
				openGate = resolve;
			});
		},
		release() {
			const release = openGate;
			gate = undefined;
			openGate = undefined;
			release?.();
		},
		async wait() {
			// Closed again before this waiter resumed: the next swap is under way, wait for it too.
			while (gate) await gate;
		},
	};
}

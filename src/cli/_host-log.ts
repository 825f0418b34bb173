/**
 * What a running extension host reports, as lines for a person: each reload with its diagnostics
 * under it, every other diagnostic once, on its own. Shared by `toolsmith dev`, `toolsmith mcp` and `toolsmith inspect`.
 */
import type { Theme } from "../contract/render.js";
import type { ExtensionDiagnostic } from "../extensions/api.js";
import {
	formatDiagnostic,
	formatReload,
	reloadToolFiles,
	type ToolFileSource,
} from "../extensions/node-event-lines.js";
import type { ExtensionHost } from "../extensions/node-host.js";

/** How long a loose diagnostic waits for the reload event that may carry it. */
const DIAGNOSTIC_HOLD_MS = 300;

export interface HostLog {
	/** Show the diagnostics held now, without waiting. */
	flush(): void;
	/** Stop following the host (what is held is shown first). */
	stop(): void;
}

/**
 * Follow `host`'s `reload` and `diagnostic` events from now on (start after `ready`: the startup
 * diagnostics are in `ready.diagnostics`). A diagnostic raised by a reload also comes inside its
 * reload event, shortly after; loose diagnostics are held briefly so those are shown once, under
 * their reload line.
 */
export function followHostLog(
	host: Pick<ExtensionHost, "on"> & Partial<ToolFileSource>,
	options: { readonly cwd: string; readonly theme: Theme; readonly print: (lines: readonly string[]) => void },
): HostLog {
	const { cwd, theme, print } = options;
	const held: ExtensionDiagnostic[] = [];
	let timer: ReturnType<typeof setTimeout> | undefined;
	const flush = () => {
		if (timer) clearTimeout(timer);
		timer = undefined;
		if (held.length === 0) return;
		const lines = held.map((d) => formatDiagnostic(d, cwd, theme));
		held.length = 0;
		print(lines);
	};
	const unsubscribe = [
		host.on("reload", (event) => {
			const inEvent = new Set(event.diagnostics);
			const loose = held.filter((d) => !inEvent.has(d));
			held.length = 0;
			held.push(...loose);
			flush();
			const { registry, extensions } = host;
			const fileOf =
				registry && extensions ? reloadToolFiles({ registry, extensions: () => extensions() }, event.path) : undefined;
			print(formatReload(event, cwd, theme, fileOf));
		}),
		host.on("diagnostic", (diagnostic) => {
			held.push(diagnostic);
			timer ??= setTimeout(flush, DIAGNOSTIC_HOLD_MS);
		}),
	];
	return {
		flush,
		stop() {
			flush();
			for (const off of unsubscribe) off();
		},
	};
}

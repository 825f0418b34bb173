/** The headless tool context the harness gives tools: no person to answer dialogs. */

import type { ExecutionEnv } from "../contract/env.js";
import type { ExtensionInfo, ToolContext, ToolContextFactory, ToolUI } from "../contract/tool.js";

export interface HeadlessNotice {
	readonly message: string;
	readonly level: "info" | "warning" | "error";
}

/** A UI whose dialogs resolve to "no answer" and whose notices go to `log`. */
export function headlessUI(log: HeadlessNotice[]): ToolUI {
	return {
		select: async () => undefined,
		confirm: async () => false,
		input: async () => undefined,
		notify(message, level = "info") {
			log.push({ message, level });
		},
	};
}

/** A context factory over `env` (cwd defaults to the env's). */
export function headlessContextFactory(
	env: ExecutionEnv,
	options: { readonly cwd?: string; readonly notices?: HeadlessNotice[]; readonly extension?: ExtensionInfo } = {},
): ToolContextFactory {
	const ui = headlessUI(options.notices ?? []);
	const cwd = options.cwd ?? env.cwd;
	return (info) => {
		const ctx: ToolContext = { env, cwd, hasUI: false, ui };
		const extra: { signal?: AbortSignal; extension?: ExtensionInfo } = {};
		if (info.signal) extra.signal = info.signal;
		if (options.extension) extra.extension = options.extension;
		return Object.assign(ctx, extra);
	};
}

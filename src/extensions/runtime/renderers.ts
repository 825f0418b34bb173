/** Resolving the renderers a tool's calls are drawn with: the extensions' resolvers in load order, then the tool's own. */
import { errorMessage } from "../../contract/errors.js";
import type { ToolRenderers } from "../api.js";
import { type RuntimeState, report } from "./state.js";

/**
 * `resolveToolRenderers`: each resolver may choose or pass to the next; one that throws or answers
 * something other than an object is skipped, with an `E_RENDERER_FAILED` warning once per version.
 */
export function resolveToolRenderers(
	state: RuntimeState,
	toolName: string,
	base: () => ToolRenderers | undefined,
): ToolRenderers | undefined {
	const chain = state.active.flatMap((instance) => instance.toolRenderers.map((resolver) => ({ instance, resolver })));
	const resolve = (index: number): ToolRenderers | undefined => {
		const link = chain[index];
		if (!link) return base();
		const next = (): ToolRenderers | undefined => resolve(index + 1);
		let failure: string | undefined;
		try {
			const chosen = link.resolver(toolName, next);
			if (chosen === undefined || (typeof chosen === "object" && chosen !== null)) return chosen;
			failure = `returned ${typeof chosen === "function" ? "a function" : String(chosen)} instead of an object with renderCall/renderResult`;
		} catch (error) {
			failure = `threw: ${errorMessage(error)}`;
		}
		const key = "renderer";
		if (!link.instance.reported.has(key)) {
			link.instance.reported.add(key);
			report(state, {
				severity: "warning",
				code: "E_RENDERER_FAILED",
				message: `A tool renderer resolver of ${link.instance.path} ${failure} (for the tool "${toolName}"); the next one was used.`,
				path: link.instance.path,
			});
		}
		return next();
	};
	return resolve(0);
}

/** Removing an extension from a runtime: its tools, handlers, MCP servers and kept state go; no handler runs. */
import { dispose } from "../_extension-api.js";
import { replaceServersOf } from "../_mcp-servers.js";
import { mcpChanged } from "./emit.js";
import type { RuntimeState } from "./state.js";

/** `remove`: forget the extension at `path`; false when there was none. */
export function remove(state: RuntimeState, path: string): boolean {
	const instance = state.byPath.get(path);
	if (!instance) return false;
	dispose(instance);
	state.byPath.delete(path);
	state.kept.delete(path);
	const index = state.active.indexOf(instance);
	if (index >= 0) state.active.splice(index, 1);
	state.registry.removeSource(path);
	if (replaceServersOf(state.mcpTable, path, [])) mcpChanged(state);
	return true;
}

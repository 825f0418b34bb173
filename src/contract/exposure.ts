/**
 * The rules of tool exposure (pi 1.x): which tools registering activates, which may be active (and
 * so declared to the model), and which other tools may call through nested calls. Pure functions
 * over `ToolDefinition.exposure`, for the registry and the executor alike.
 */
import type { ToolExposure } from "./tool.js";

/** What these rules read of a tool: its exposure and whether it is active by default. */
export interface ExposedTool {
	readonly exposure?: ToolExposure;
	readonly defaultActive?: boolean;
}

const EXPOSURES: ReadonlySet<string> = new Set(["direct", "model-only", "codemode", "deferred", "hidden"]);

/** Whether `value` is one of the five exposures. */
export function isToolExposure(value: unknown): value is ToolExposure {
	return typeof value === "string" && EXPOSURES.has(value);
}

/** A tool's exposure: its own, or `"direct"` when it declares none. */
export function exposureOf(tool: ExposedTool): ToolExposure {
	return tool.exposure ?? "direct";
}

/** Whether activating the tool declares it to the model by default: `direct` and `model-only`. */
export function isDeclaredByDefault(exposure: ToolExposure): boolean {
	return exposure === "direct" || exposure === "model-only";
}

/**
 * Whether registering the tool makes it active: `direct` and `model-only` tools, unless they set
 * `defaultActive: false`. Other exposures are active only when `setActiveTools` names them.
 */
export function activatesOnRegistration(tool: ExposedTool): boolean {
	return isDeclaredByDefault(exposureOf(tool)) && tool.defaultActive !== false;
}

/** Whether the tool may be active at all: every exposure but `hidden` (naming a hidden tool has no effect). */
export function isActivatable(exposure: ToolExposure): boolean {
	return exposure !== "hidden";
}

/**
 * Whether another tool may call this one through a nested call (`ctx.executeTool`): a `codemode`
 * or `deferred` tool whenever it is registered, a `direct` tool while it is active, and never a
 * `model-only` or `hidden` tool.
 */
export function isToolCallable(exposure: ToolExposure, active: boolean): boolean {
	return exposure === "codemode" || exposure === "deferred" || (exposure === "direct" && active);
}

/** The names of `tools` that other tools may call, in order, given the names of the active tools. */
export function callableToolNames(
	tools: readonly (ExposedTool & { readonly name: string })[],
	activeNames: Iterable<string>,
): string[] {
	const active = new Set(activeNames);
	return tools.filter((tool) => isToolCallable(exposureOf(tool), active.has(tool.name))).map((tool) => tool.name);
}

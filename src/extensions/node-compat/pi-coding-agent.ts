/**
 * What `@mariozechner/pi-coding-agent` (and `@earendil-works/pi-coding-agent`) resolve to inside
 * extensions: the parts tool-only pi extensions use, on top of toolsmith's tools and env.
 */

import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentTool, ToolContext, ToolDefinition } from "../../contract/tool.js";
import { wrapToolDefinition } from "../../contract/tool.js";
import { withFileMutationQueue as queueOnEnv } from "../../env/mutation-queue.js";
import { createBashTool } from "../../tools/bash.js";
import { createEditTool } from "../../tools/edit.js";
import { createReadTool } from "../../tools/read.js";
import { createWriteTool } from "../../tools/write.js";
import { createHeadlessUI } from "../_ui.js";
import { compatEnv, envForCwd } from "./_state.js";

export { StringEnum, Type } from "../../contract/schema.js";
export { defineTool } from "../../contract/tool.js";
export {
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	formatSize,
	truncateHead,
	truncateLine,
	truncateTail,
} from "../../tools/truncate.js";

/** Options of the reference factories; toolsmith passes the ones its tools know (limits) through. */
type FactoryOptions = Record<string, unknown> | undefined;
type Factory = (options?: never) => ToolDefinition;

/**
 * A definition bound to `cwd`: it runs on the caller's env when that env works in `cwd` (so
 * in-memory tests and the host's mutation queue apply), otherwise on a Node env for `cwd`.
 */
function bound(factory: Factory, cwd: string, options: FactoryOptions): ToolDefinition {
	const definition = factory(options as never);
	const folder = resolve(cwd);
	return {
		...definition,
		execute(toolCallId, params, signal, onUpdate, ctx?: ToolContext) {
			const context: ToolContext =
				ctx && ctx.env.cwd === folder ? ctx : { ...contextFor(folder), ...(signal ? { signal } : {}) };
			return definition.execute(toolCallId, params, signal, onUpdate, context);
		},
	};
}

function contextFor(cwd: string): ToolContext {
	return { env: envForCwd(cwd), cwd, hasUI: false, ui: createHeadlessUI(() => {}) };
}

function agentTool(definition: ToolDefinition, cwd: string): AgentTool {
	const folder = resolve(cwd);
	return wrapToolDefinition(definition, (info) => ({
		...contextFor(folder),
		...(info.signal ? { signal: info.signal } : {}),
	}));
}

export function createReadToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound(createReadTool as Factory, cwd, options);
}
export function createWriteToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound(createWriteTool as Factory, cwd, options);
}
export function createEditToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound(createEditTool as Factory, cwd, options);
}
export function createBashToolDefinition(cwd: string, options?: FactoryOptions): ToolDefinition {
	return bound(createBashTool as Factory, cwd, options);
}

/** The reference's `createReadTool(cwd, options)`: an AgentTool working in `cwd`. */
export function compatCreateReadTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createReadToolDefinition(cwd, options), cwd);
}
export function compatCreateWriteTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createWriteToolDefinition(cwd, options), cwd);
}
export function compatCreateEditTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createEditToolDefinition(cwd, options), cwd);
}
export function compatCreateBashTool(cwd: string, options?: FactoryOptions): AgentTool {
	return agentTool(createBashToolDefinition(cwd, options), cwd);
}
export {
	compatCreateBashTool as createBashTool,
	compatCreateEditTool as createEditTool,
	compatCreateReadTool as createReadTool,
	compatCreateWriteTool as createWriteTool,
};

/** The reference's `withFileMutationQueue(path, fn)`: the queue of the host's env. */
export function withFileMutationQueue<T>(path: string, fn: () => Promise<T>): Promise<T> {
	return queueOnEnv(compatEnv(), path, fn);
}

/**
 * The reference agent's configuration folder (`PI_CODING_AGENT_DIR`, else `~/.pi/agent`), so pi
 * extensions find the files they keep there.
 */
export function getAgentDir(): string {
	const configured = process.env.PI_CODING_AGENT_DIR;
	if (configured) return configured.startsWith("~/") ? join(homedir(), configured.slice(2)) : configured;
	return join(homedir(), ".pi", "agent");
}

interface NamedEvent {
	readonly toolName: string;
}

/** Narrowing helper of the reference API: is this `tool_call`/`tool_result` event for `name`? */
export function isToolCallEventType(name: string, event: NamedEvent): boolean {
	return event.toolName === name;
}
export const isBashToolResult = (event: NamedEvent): boolean => event.toolName === "bash";
export const isReadToolResult = (event: NamedEvent): boolean => event.toolName === "read";
export const isEditToolResult = (event: NamedEvent): boolean => event.toolName === "edit";
export const isWriteToolResult = (event: NamedEvent): boolean => event.toolName === "write";
export const isGrepToolResult = (event: NamedEvent): boolean => event.toolName === "grep";
export const isFindToolResult = (event: NamedEvent): boolean => event.toolName === "find";
export const isLsToolResult = (event: NamedEvent): boolean => event.toolName === "ls";

/**
 * The server's tools listed (every page of `tools/list`) and made toolsmith definitions: names
 * checked against the providers' rules (and prefixed), input schemas through the executor's
 * JSON-Schema path, annotations kept; listed again when the server changes them (Node only).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { TSchema } from "@sinclair/typebox";
import { errorMessage } from "../../contract/errors.js";
import { fromJsonSchema } from "../../exec/from-json-schema.js";
import { checkToolName } from "../../providers/names.js";
import { notifyListeners } from "../../shared/listeners.js";
import { annotationsOf } from "../tools.js";
import { callTool, isRecord } from "./call.js";
import { ensureClient } from "./connection.js";
import { type McpClientState, type McpTool, namespaceOf, report } from "./state.js";

/** Every tool of the server, page by page. */
export async function listAll(state: McpClientState, client: Client): Promise<Tool[]> {
	const all: Tool[] = [];
	let cursor: string | undefined;
	do {
		const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: state.timeout });
		all.push(...page.tools);
		cursor = page.nextCursor;
	} while (cursor !== undefined);
	return all;
}

/** The server's `tool` as a definition, or undefined when no provider accepts its name (reported once). */
function definitionOf(state: McpClientState, tool: Tool): McpTool | undefined {
	const { prefix, reportedNames, serverInfo, options } = state;
	const name = `${prefix}${tool.name}`;
	const verdict = checkToolName(name);
	const first = !reportedNames.has(tool.name);
	reportedNames.add(tool.name);
	if (!verdict.openai.ok && !verdict.anthropic.ok && !verdict.google.ok) {
		if (first) {
			report(state, {
				severity: "error",
				code: "invalid_name",
				tool: tool.name,
				message: `Tool ${JSON.stringify(name)} of ${serverInfo.name} left out: no provider accepts its name (${verdict.openai.problem}).`,
			});
		}
		return undefined;
	}
	if (!verdict.portable && first) {
		const rejecting = (["openai", "anthropic", "google"] as const).filter((p) => !verdict[p].ok);
		report(state, {
			severity: "warning",
			code: "invalid_name",
			tool: tool.name,
			message: `Tool ${JSON.stringify(name)} of ${serverInfo.name}: ${rejecting.join(", ")} reject${rejecting.length === 1 ? "s" : ""} its name (${verdict[rejecting[0] ?? "openai"].problem}).`,
		});
	}
	const description = tool.description?.trim() ?? "";
	if (description === "" && first) {
		report(state, {
			severity: "warning",
			code: "no_description",
			tool: tool.name,
			message: `Tool ${JSON.stringify(name)} of ${serverInfo.name} has no description; its title or name stands in.`,
		});
	}
	const remote = tool.name;
	const annotations = annotationsOf(tool.annotations);
	const label = tool.title ?? tool.annotations?.title ?? tool.name;
	return {
		name,
		label,
		description: description !== "" ? description : `${label} (a tool of the MCP server ${serverInfo.name}).`,
		parameters: fromJsonSchema(tool.inputSchema),
		...(isRecord(tool.outputSchema) ? { outputSchema: tool.outputSchema as unknown as TSchema } : {}),
		...(annotations ? { annotations } : {}),
		...(options.exposure !== undefined ? { exposure: options.exposure } : {}),
		namespace: namespaceOf(state),
		execute: (_id, params, signal, onUpdate) => callTool(state, remote, params, signal, onUpdate),
	};
}

/** The definitions of the server's tools in `list` (those no provider accepts left out). */
export function buildTools(state: McpClientState, list: readonly Tool[]): McpTool[] {
	return list.map((tool) => definitionOf(state, tool)).filter((tool): tool is McpTool => tool !== undefined);
}

/** Lists the tools now, keeps them and tells the listeners. */
export async function refresh(state: McpClientState): Promise<readonly McpTool[]> {
	const client = await ensureClient(state);
	state.tools = buildTools(state, await listAll(state, client));
	notifyListeners(state.listeners, state.tools);
	return state.tools;
}

/** `refresh`, with a failure reported as a diagnostic rather than thrown. */
export async function relist(state: McpClientState, why: string): Promise<void> {
	try {
		await refresh(state);
	} catch (error) {
		report(state, {
			severity: "warning",
			code: "relist_failed",
			message: `Cannot list the tools of ${state.serverInfo.name} again after ${why}: ${errorMessage(error)}`,
		});
	}
}

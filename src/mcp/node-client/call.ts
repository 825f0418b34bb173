/** A call of an MCP tool: sent with progress as `onUpdate` and the call's signal, its result as toolsmith content (Node only). */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import type { JsonValue, ToolResultContent } from "../../contract/content.js";
import { errorMessage } from "../../contract/errors.js";
import type { AgentToolResult, AgentToolUpdateCallback } from "../../contract/tool.js";
import type { McpClientSdk } from "../_node-sdk.js";
import { ensureClient } from "./connection.js";
import { type McpClientState, named } from "./state.js";
import type { McpToolDetails } from "./types.js";

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** MCP content blocks → toolsmith's text and image blocks (what has no image or text form is described in text). */
function toContent(blocks: readonly unknown[]): ToolResultContent[] {
	const out: ToolResultContent[] = [];
	for (const raw of blocks) {
		if (!isRecord(raw)) continue;
		if (raw.type === "text" && typeof raw.text === "string") out.push({ type: "text", text: raw.text });
		else if (raw.type === "image" && typeof raw.data === "string" && typeof raw.mimeType === "string") {
			out.push({ type: "image", data: raw.data, mimeType: raw.mimeType });
		} else if (raw.type === "audio") {
			out.push({ type: "text", text: `[audio content (${String(raw.mimeType)}) not shown]` });
		} else if (raw.type === "resource_link") {
			out.push({ type: "text", text: `[resource ${String(raw.uri)}${raw.name ? ` (${String(raw.name)})` : ""}]` });
		} else if (raw.type === "resource" && isRecord(raw.resource)) {
			const resource = raw.resource;
			out.push({
				type: "text",
				text: typeof resource.text === "string" ? resource.text : `[resource ${String(resource.uri)} (binary)]`,
			});
		}
	}
	return out;
}

function textOf(content: readonly ToolResultContent[]): string {
	return content
		.filter((block): block is Extract<ToolResultContent, { type: "text" }> => block.type === "text")
		.map((block) => block.text)
		.join("\n");
}

function isConnectionClosed(sdk: McpClientSdk, error: unknown): boolean {
	return error instanceof sdk.McpError && error.code === sdk.ErrorCode.ConnectionClosed;
}

/** Calls the server's tool `remote` (connecting first when needed); what `execute` of its definition does. */
export async function callTool(
	state: McpClientState,
	remote: string,
	params: unknown,
	signal: AbortSignal | undefined,
	onUpdate: AgentToolUpdateCallback<McpToolDetails> | undefined,
): Promise<AgentToolResult<McpToolDetails>> {
	signal?.throwIfAborted();
	const client = await ensureClient(state);
	const onprogress = (progress: Progress): void => {
		const { progress: done, total, message } = progress;
		const text = message ?? (total === undefined ? `progress ${done}` : `progress ${done}/${total}`);
		onUpdate?.({
			content: [{ type: "text", text }],
			details: {
				progress: {
					progress: done,
					...(total === undefined ? {} : { total }),
					...(message === undefined ? {} : { message }),
				},
			},
		});
	};
	let result: Awaited<ReturnType<Client["callTool"]>>;
	try {
		result = await client.callTool({ name: remote, arguments: isRecord(params) ? params : {} }, undefined, {
			timeout: state.timeout,
			resetTimeoutOnProgress: true,
			onprogress,
			...(signal ? { signal } : {}),
		});
	} catch (error) {
		if (signal?.aborted) throw signal.reason ?? error;
		if (isConnectionClosed(state.sdk, error) || client !== state.current) {
			throw new Error(
				`The MCP server ${named(state)} exited while ${remote} was running; the call did not finish. The next call starts the server again.`,
				{ cause: error },
			);
		}
		throw new Error(`MCP tool ${remote} failed: ${errorMessage(error)}`, { cause: error });
	}
	const blocks = Array.isArray(result.content) ? result.content : [];
	const content = toContent(blocks);
	const structured = isRecord(result.structuredContent) ? result.structuredContent : undefined;
	if (result.isError === true) {
		throw new Error(textOf(content) || `MCP tool ${remote} reported an error without a message.`);
	}
	if (content.length === 0 && structured) content.push({ type: "text", text: JSON.stringify(structured) });
	const details: McpToolDetails = {
		...(structured ? { structuredContent: structured } : {}),
		...(isRecord(result._meta) ? { meta: result._meta } : {}),
	};
	return { content, details, ...(structured ? { structuredContent: structured as JsonValue } : {}) };
}

/** Running one tool call of loaded extensions through the executor, for the extension tests. */
import type { ToolCall } from "../../../src/contract/content.js";
import { executeToolCalls } from "../../../src/exec/execute.js";
import type { LoadExtensionsResult } from "../../../src/extensions/node-loader.js";

/** The call's result: whether it is an error, and its text blocks joined. */
export async function runTool(
	loaded: LoadExtensionsResult,
	name: string,
	args: unknown,
): Promise<{ isError: boolean | undefined; text: string | undefined }> {
	const toolCall: ToolCall = { type: "toolCall", id: `call-${name}`, name, arguments: args };
	const batch = await executeToolCalls([toolCall], loaded.registry.executorConfig());
	const result = batch.results[0];
	return {
		isError: result?.isError,
		text: result?.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
	};
}

/**
 * Tool definitions → MCP `tools/list` entries, with a report of what changed on the way: the input
 * schema in the open JSON Schema dialect (the one Anthropic takes), names checked against the MCP
 * name rule, and the prompt snippet appended to the description.
 */
import type { TSchema } from "@sinclair/typebox";
import { checkToolName, type ToolNameVerdict } from "../providers/names.js";
import { compileToolSchema } from "../providers/schema.js";
import type { SchemaError, SchemaRewrite } from "../providers/types.js";

/** What the MCP conversion reads of a tool: `ToolDefinition` and `AgentTool` both fit. */
export interface McpSourceTool {
	readonly name: string;
	readonly description: string;
	readonly parameters: TSchema | Record<string, unknown>;
	readonly promptSnippet?: string;
	readonly label?: string;
}

/** One tool as MCP `tools/list` returns it. */
export interface McpTool {
	readonly name: string;
	/** The tool's label. */
	readonly title?: string;
	/** The tool's description, then its `promptSnippet` (when it has one) as a paragraph of its own. */
	readonly description: string;
	readonly inputSchema: { readonly type: "object"; readonly [key: string]: unknown };
}

/** How one tool fares with MCP: its name verdict and every schema rewrite or error. */
export interface McpToolReport {
	readonly name: string;
	readonly nameVerdict: ToolNameVerdict;
	readonly rewrites: readonly SchemaRewrite[];
	readonly errors: readonly SchemaError[];
	/** The tool is listed (its name passes and its schema has no error). */
	readonly ok: boolean;
}

/** The tools MCP can list, and a report for every tool given (listed or left out). */
export interface McpToolConversion {
	readonly tools: McpTool[];
	readonly report: McpToolReport[];
}

/** The description MCP clients show the model: the tool's description, plus its prompt snippet. */
function describe(tool: McpSourceTool): string {
	const snippet = typeof tool.promptSnippet === "string" ? tool.promptSnippet.trim() : "";
	if (snippet === "" || tool.description.includes(snippet)) return tool.description;
	return `${tool.description}\n\n${snippet}`;
}

/**
 * Convert tools for MCP `tools/list`. A tool whose name breaks the MCP rule or whose schema has an
 * error is left out of `tools` (the report says why); never throws.
 */
export function toMcpTools(tools: readonly McpSourceTool[]): McpToolConversion {
	const listed: McpTool[] = [];
	const report: McpToolReport[] = [];
	for (const tool of tools) {
		const nameVerdict = checkToolName(tool.name).mcp;
		const compiled = compileToolSchema(tool.parameters, "anthropic");
		const ok = nameVerdict.ok && compiled.errors.length === 0;
		report.push({ name: tool.name, nameVerdict, rewrites: compiled.rewrites, errors: compiled.errors, ok });
		if (!ok) continue;
		const inputSchema = { ...compiled.schema, type: "object" as const };
		listed.push({
			name: tool.name,
			...(typeof tool.label === "string" && tool.label !== "" ? { title: tool.label } : {}),
			description: describe(tool),
			inputSchema,
		});
	}
	return { tools: listed, report };
}

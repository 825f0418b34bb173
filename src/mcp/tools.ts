/**
 * Tool definitions → MCP `tools/list` entries, with a report of what changed on the way: the input
 * schema in the open JSON Schema dialect (the one Anthropic takes), names checked against the MCP
 * name rule, and the prompt snippet appended to the description.
 */
import type { TSchema } from "@sinclair/typebox";
import type { ToolAnnotations } from "../contract/tool.js";
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
	readonly annotations?: ToolAnnotations;
	readonly outputSchema?: TSchema | Record<string, unknown>;
}

/** MCP tool annotations: the tool's hints (`ToolAnnotations`), only the boolean ones. */
export type McpToolAnnotations = { readonly [K in keyof ToolAnnotations]?: boolean };

/** One tool as MCP `tools/list` returns it. */
export interface McpTool {
	readonly name: string;
	/** The tool's label. */
	readonly title?: string;
	/** The tool's description, then its `promptSnippet` (when it has one) as a paragraph of its own. */
	readonly description: string;
	readonly inputSchema: { readonly type: "object"; readonly [key: string]: unknown };
	/** The schema of `details`, when the tool declares one (results then carry `structuredContent`). */
	readonly outputSchema?: { readonly type: "object"; readonly [key: string]: unknown };
	readonly annotations?: McpToolAnnotations;
}

/** How one tool fares with MCP: its name verdict and every schema rewrite or error. */
export interface McpToolReport {
	readonly name: string;
	readonly nameVerdict: ToolNameVerdict;
	readonly rewrites: readonly SchemaRewrite[];
	readonly errors: readonly SchemaError[];
	/**
	 * Why the tool's `outputSchema` is not listed (it is not an object schema, or it has a construct
	 * JSON Schema cannot say); empty when it is listed or there is none. The tool is still listed,
	 * and its `details` travel under `_meta`.
	 */
	readonly outputSchemaErrors: readonly SchemaError[];
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

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** The boolean hints of `annotations` (a tool's, or a listed MCP tool's); undefined when there are none. */
export function annotationsOf(annotations: unknown): McpToolAnnotations | undefined {
	if (typeof annotations !== "object" || annotations === null) return undefined;
	const hints: Record<string, boolean> = {};
	for (const hint of HINTS) {
		const value = (annotations as Record<string, unknown>)[hint];
		if (typeof value === "boolean") hints[hint] = value;
	}
	return Object.keys(hints).length > 0 ? hints : undefined;
}

/** The listed output schema, or why it cannot be listed. */
function outputSchemaOf(schema: McpSourceTool["outputSchema"]): {
	schema?: { readonly type: "object"; readonly [key: string]: unknown };
	errors: SchemaError[];
} {
	if (schema === undefined) return { errors: [] };
	if (typeof schema !== "object" || schema === null) {
		return { errors: [{ path: "", kind: "root-not-object", message: "outputSchema is not a schema object" }] };
	}
	const compiled = compileToolSchema(schema, "anthropic");
	if (compiled.errors.length > 0) return { errors: [...compiled.errors] };
	if (compiled.schema.type !== "object") {
		return {
			errors: [{ path: "", kind: "root-not-object", message: "MCP takes only an object schema as outputSchema" }],
		};
	}
	return { schema: { ...compiled.schema, type: "object" }, errors: [] };
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
		const output = outputSchemaOf(tool.outputSchema);
		report.push({
			name: tool.name,
			nameVerdict,
			rewrites: compiled.rewrites,
			errors: compiled.errors,
			outputSchemaErrors: output.errors,
			ok,
		});
		if (!ok) continue;
		const inputSchema = { ...compiled.schema, type: "object" as const };
		const annotations = annotationsOf(tool.annotations);
		listed.push({
			name: tool.name,
			...(typeof tool.label === "string" && tool.label !== "" ? { title: tool.label } : {}),
			description: describe(tool),
			inputSchema,
			...(output.schema ? { outputSchema: output.schema } : {}),
			...(annotations ? { annotations } : {}),
		});
	}
	return { tools: listed, report };
}

/**
 * The state of one session replay (the recorded env, the tools by name) and what every step of the
 * replay uses: running one call through the executor, the outcome's common fields, the arguments
 * and text of calls and results.
 */
import type { NestedCalls, ToolCall } from "../contract/content.js";
import { type AgentTool, type ToolDefinition, wrapToolDefinitions } from "../contract/tool.js";
import { executeToolCalls } from "../exec/execute.js";
import { createBuiltinTools } from "../tools/builtins.js";
import { headlessContextFactory } from "./_context.js";
import { RecordedFiles } from "./_recorded-files.js";
import type { RecordedCall } from "./session.js";
import type { SessionCallOutcome, UnknowableReason } from "./session-report.js";

/** What a replay keeps from call to call. */
export interface ReplayState {
	/** The recorded env: what the recording revealed of the files, and what is stale. */
	readonly files: RecordedFiles;
	/** The tools to replay with, by name. */
	readonly definitions: ReadonlyMap<string, ToolDefinition>;
	/** The tools as the executor takes them; made on first need. */
	tools: AgentTool[] | undefined;
}

/** The state of a replay of a session recorded in `cwd`, with the built-ins (unless `builtins` is false) and `tools` over them. */
export function createReplayState(cwd: string, builtins: boolean, tools: readonly ToolDefinition[]): ReplayState {
	const definitions = new Map<string, ToolDefinition>();
	if (builtins) for (const tool of defaultBuiltins()) definitions.set(tool.name, tool);
	for (const tool of tools) definitions.set(tool.name, tool);
	return { files: new RecordedFiles(cwd), definitions, tools: undefined };
}

let builtinTools: readonly ToolDefinition[] | undefined;

/**
 * The built-in tools with default options, made once: definitions hold no state, and reusing them
 * keeps the executor's compiled validators warm across replays.
 */
function defaultBuiltins(): readonly ToolDefinition[] {
	builtinTools ??= createBuiltinTools({ set: "all" });
	return builtinTools;
}

/** What our tool gave for a call, as the comparison needs it. */
export interface ToolRun {
	readonly text: string;
	readonly isError: boolean;
	readonly hasImage: boolean;
	readonly details: unknown;
	readonly nestedCalls?: NestedCalls;
}

/** Runs one call through the executor with our tools on the recorded env. */
export async function runTool(state: ReplayState, toolCall: ToolCall, signal?: AbortSignal): Promise<ToolRun> {
	state.tools ??= wrapToolDefinitions([...state.definitions.values()], headlessContextFactory(state.files.env));
	const { results } = await executeToolCalls(
		[toolCall],
		signal ? { tools: state.tools, signal } : { tools: state.tools },
	);
	const result = results[0];
	if (!result) return { text: "(the executor returned no result)", isError: true, hasImage: false, details: undefined };
	return {
		text: textOf(result.content),
		isError: result.isError,
		hasImage: hasImageBlock(result.content),
		details: result.details,
		...(result.nestedCalls !== undefined ? { nestedCalls: result.nestedCalls } : {}),
	};
}

/** The fields every outcome of `call` starts with. */
export function baseOutcome(
	call: RecordedCall,
): Pick<SessionCallOutcome, "index" | "batch" | "toolCallId" | "toolName" | "arguments"> {
	return {
		index: call.index,
		batch: call.batch,
		toolCallId: call.toolCall.id,
		toolName: call.toolCall.name,
		arguments: call.toolCall.arguments,
	};
}

export function unknowable(call: RecordedCall, reason: UnknowableReason, message: string): SessionCallOutcome {
	return {
		index: call.index,
		batch: call.batch,
		toolCallId: call.toolCall.id,
		toolName: call.toolCall.name,
		arguments: call.toolCall.arguments,
		status: "unknowable",
		reason,
		message,
		seeded: false,
		rules: [],
	};
}

export type Args = Readonly<Record<string, unknown>>;

export function argsOf(call: ToolCall): Args | undefined {
	let value = call.arguments;
	if (typeof value === "string") {
		try {
			value = JSON.parse(value);
		} catch {
			return undefined;
		}
	}
	return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Args) : undefined;
}

export function textOf(content: readonly { type: string; text?: string }[]): string {
	// Most results are one text block: its text, without building arrays.
	if (content.length === 1 && content[0]!.type === "text") return content[0]!.text ?? "";
	return content
		.filter((block) => block.type === "text")
		.map((block) => block.text ?? "")
		.join("\n");
}

export function hasImageBlock(content: readonly { type: string }[]): boolean {
	return content.some((block) => block.type === "image");
}

/** The path a call names (`path`, or `file_path` of older releases), resolved in the recorded env. */
export function pathOf(state: ReplayState, call: RecordedCall): string | undefined {
	const args = argsOf(call.toolCall);
	const raw = args?.path ?? args?.file_path;
	return typeof raw === "string" ? state.files.resolve(raw) : undefined;
}

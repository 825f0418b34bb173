/**
 * `scriptedModel`: an EvalModel that answers from a script instead of a provider, so the loop, the
 * checks and the command run in tests without a network. Runtime-neutral.
 */
import type { ToolCall } from "../contract/content.js";
import type { EvalModel, EvalModelRequest, EvalModelTurn, EvalUsage } from "./types.js";

/** One scripted turn: text (the final answer when no calls), calls by tool and arguments, usage. */
export interface ScriptedTurn {
	readonly text?: string;
	/** Tool calls; ids are made up (`call_<turn>_<n>`) when not given. */
	readonly calls?: readonly { readonly tool: string; readonly args?: unknown; readonly id?: string }[];
	readonly usage?: EvalUsage;
}

/** A script: a list of turns (each trial starts again at the first), or a function of the request. */
export type ModelScript =
	| readonly ScriptedTurn[]
	| ((request: EvalModelRequest, turn: number) => ScriptedTurn | Promise<ScriptedTurn>);

/** Options of `scriptedModel`. */
export interface ScriptedModelOptions {
	/** The id reports show (default `scripted/model`). */
	readonly id?: string;
}

function toTurn(turn: ScriptedTurn, index: number): EvalModelTurn {
	const toolCalls: ToolCall[] = (turn.calls ?? []).map((call, n) => ({
		type: "toolCall",
		id: call.id ?? `call_${index + 1}_${n + 1}`,
		name: call.tool,
		arguments: call.args ?? {},
	}));
	return { text: turn.text ?? "", toolCalls, ...(turn.usage ? { usage: turn.usage } : {}) };
}

/**
 * A model that follows `script`. With a list, the turn number is the count of assistant messages
 * in the request (so each trial starts at the first turn, and concurrent trials do not interfere);
 * past the end of the list it answers with an empty final turn. With a function, it gets the
 * request and that 0-based turn number.
 */
export function scriptedModel(script: ModelScript, options: ScriptedModelOptions = {}): EvalModel {
	return {
		id: options.id ?? "scripted/model",
		async turn(request) {
			const index = request.messages.filter((message) => message.role === "assistant").length;
			if (typeof script === "function") return toTurn(await script(request, index), index);
			return toTurn(script[index] ?? { text: "" }, index);
		},
	};
}

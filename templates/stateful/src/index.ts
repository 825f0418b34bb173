/**
 * A to-do list the model keeps for the session, and a `/todos` command for the person at the
 * prompt. The list lives in `api.state`, not in a closure variable: saving this file while
 * `toolsmith dev` runs reloads the extension, and the new version finds the list where the old one
 * left it.
 */
import { defineExtension, defineTool, StringEnum, Type } from "toolsmith-sdk";

export interface TodoItem {
	readonly id: number;
	readonly text: string;
	readonly done: boolean;
}

export interface TodoDetails {
	readonly items: readonly TodoItem[];
}

interface TodoState {
	items: TodoItem[];
	nextId: number;
}

function listText(items: readonly TodoItem[]): string {
	if (items.length === 0) return "The list is empty.";
	return items.map((item) => `${item.done ? "[x]" : "[ ]"} #${item.id} ${item.text}`).join("\n");
}

export default defineExtension((api) => {
	const state = api.state.keep<TodoState>("todos", () => ({ items: [], nextId: 1 }));

	api.registerTool(
		defineTool({
			name: "todo",
			label: "To-do",
			description:
				"Keep a to-do list for this session. action=add needs `text`; action=done needs `id`; action=list shows the list; action=clear empties it. Every call answers with the whole list.",
			promptSnippet: "Keep a to-do list for the session (add, done, list, clear)",
			promptGuidelines: ["Use todo to plan work of more than three steps, and mark each step done as you finish it."],
			parameters: Type.Object({
				action: StringEnum(["add", "done", "list", "clear"]),
				text: Type.Optional(Type.String({ description: "The item to add (action=add)" })),
				id: Type.Optional(Type.Integer({ description: "The item to mark done (action=done)" })),
			}),
			// Calls of one batch change one list: run them one after another, in order.
			executionMode: "sequential",
			// The answer depends on earlier calls: the conformance checks skip their determinism check.
			nondeterministic: true,
			async execute(_toolCallId, { action, text, id }) {
				if (action === "add") {
					if (!text?.trim()) throw new Error("action=add needs `text`, the item to add");
					state.items.push({ id: state.nextId++, text: text.trim(), done: false });
				} else if (action === "done") {
					const index = state.items.findIndex((item) => item.id === id);
					if (index < 0) throw new Error(`there is no item #${id}; call todo with action=list to see the ids`);
					state.items[index] = { ...state.items[index]!, done: true };
				} else if (action === "clear") {
					state.items = [];
				}
				const details: TodoDetails = { items: [...state.items] };
				return { content: [{ type: "text", text: listText(details.items) }], details };
			},
			renderCall(args, theme) {
				const what = args.action === "add" ? ` ${args.text ?? ""}` : args.action === "done" ? ` #${args.id}` : "";
				return `${theme.bold(theme.fg("toolTitle", "todo"))} ${theme.fg("accent", args.action ?? "")}${what}`;
			},
			renderResult(result, _options, theme, context) {
				// An error result carries the executor's details, not ours: show its text.
				if (context?.isError) {
					const first = result.content[0];
					return theme.fg("error", first?.type === "text" ? first.text : "failed");
				}
				if (result.details.items.length === 0) return theme.fg("muted", "(empty)");
				return result.details.items.map((item) =>
					item.done
						? theme.fg("muted", theme.strikethrough(`#${item.id} ${item.text}`))
						: `${theme.fg("accent", `#${item.id}`)} ${item.text}`,
				);
			},
		}),
	);

	// For the person at the prompt (`/todos` in toolsmith dev); the model never sees commands.
	api.registerCommand("todos", {
		description: "Show the to-do list",
		handler: (_args, ctx) => ctx.ui.notify(listText(state.items), "info"),
	});
});

/**
 * A stateful tool: a to-do list kept in the extension's closure. The state lives as long as this
 * version of the extension: a reload starts a fresh list, which `session_shutdown` reports.
 * `executionMode: "sequential"` keeps a batch of calls from interleaving their updates.
 */
import { defineTool, type ExtensionAPI, StringEnum, Type } from "toolsmith-sdk";

interface Item {
	readonly id: number;
	readonly text: string;
	done: boolean;
}

export default function (api: ExtensionAPI) {
	const items: Item[] = [];
	let nextId = 1;

	const list = () =>
		items.length === 0
			? "The list is empty."
			: items.map((i) => `${i.done ? "[x]" : "[ ]"} #${i.id} ${i.text}`).join("\n");

	api.registerTool(
		defineTool({
			name: "todo",
			label: "To-do",
			description:
				"Keep a short to-do list for this session. action=add needs text; action=done needs id; action=list shows the list; action=clear empties it.",
			parameters: Type.Object({
				action: StringEnum(["add", "done", "list", "clear"]),
				text: Type.Optional(Type.String({ description: "The item to add (action=add)" })),
				id: Type.Optional(Type.Integer({ description: "The item to mark done (action=done)" })),
			}),
			executionMode: "sequential",
			async execute(_toolCallId, { action, text, id }) {
				if (action === "add") {
					if (!text) throw new Error("action=add needs `text`, the item to add");
					items.push({ id: nextId++, text, done: false });
				} else if (action === "done") {
					const item = items.find((i) => i.id === id);
					if (!item) throw new Error(`no item #${id}; call todo with action=list to see the ids`);
					item.done = true;
				} else if (action === "clear") {
					items.length = 0;
				}
				return { content: [{ type: "text", text: list() }], details: { items: items.map((i) => ({ ...i })) } };
			},
			renderResult(result, _options, theme, context) {
				// Error results carry the executor's details, not ours: show their text instead.
				if (context?.isError) {
					const first = result.content[0];
					return theme.fg("error", first?.type === "text" ? first.text : "failed");
				}
				const details = result.details;
				if (details.items.length === 0) return theme.fg("muted", "(empty)");
				return details.items.map((i) =>
					i.done
						? theme.fg("muted", theme.strikethrough(`#${i.id} ${i.text}`))
						: `${theme.fg("accent", `#${i.id}`)} ${i.text}`,
				);
			},
		}),
	);

	// A command for the person at the prompt (`/todos` in toolsmith dev); the model never sees it.
	api.registerCommand("todos", {
		description: "Show the to-do list",
		handler: (_args, ctx) => ctx.ui.notify(list(), "info"),
	});

	api.on("session_shutdown", (event, ctx) => {
		if (event.reason === "reload" && items.length > 0) {
			ctx.ui.notify(`todo: dropping ${items.length} item(s) kept by the previous version`, "info");
		}
	});
}

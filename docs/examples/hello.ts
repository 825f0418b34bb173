/**
 * The smallest useful extension: one tool with a custom look in `toolsmith dev`.
 * Try it: toolsmith dev docs/examples/hello.ts, then `call hello {"name":"Ada"}`.
 */
import { defineTool, type ExtensionAPI, Type } from "toolsmith-sdk";

const hello = defineTool({
	name: "hello",
	label: "Hello",
	description: "Greet someone by name. Returns one line of text.",
	parameters: Type.Object({
		name: Type.String({ description: "Who to greet" }),
		excited: Type.Optional(Type.Boolean({ description: "End with an exclamation mark" })),
	}),
	async execute(_toolCallId, { name, excited }) {
		const text = `Hello, ${name}${excited ? "!" : "."}`;
		return { content: [{ type: "text", text }], details: { name } };
	},
	// Renderers are for people: the model only ever sees `content`. A call is drawn as the model
	// sent it, before validation, so `name` may be missing or not a string.
	renderCall(args, theme) {
		const name: unknown = args.name;
		const shown = typeof name === "string" ? name : name === undefined ? "(no name)" : JSON.stringify(name);
		return `${theme.bold(theme.fg("toolTitle", "hello"))} ${theme.fg(typeof name === "string" ? "accent" : "error", shown)}`;
	},
	renderResult(result, _options, theme, context) {
		const first = result.content[0];
		return theme.fg(context?.isError ? "error" : "success", first?.type === "text" ? first.text : "(no text)");
	},
});

export default function (api: ExtensionAPI) {
	api.registerTool(hello);
}

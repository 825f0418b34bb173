/**
 * A pi extension: a `slugify` tool, and a guard that keeps the model from reading `.env` files.
 * Written against pi's own API and types, so pi loads it as it is; toolsmith's harness runs it in
 * the tests (pi's packages resolve to toolsmith's compatibility layer there).
 */
import { Type } from "@mariozechner/pi-ai";
import { defineTool, type ExtensionAPI, isToolCallEventType } from "@mariozechner/pi-coding-agent";

export const slugify = defineTool({
	name: "slugify",
	label: "Slugify",
	description:
		"Turn a title into a URL slug: lower case ASCII letters and digits, words joined by `separator` (default `-`). Accents are dropped; other characters separate words.",
	promptSnippet: "Turn a title into a URL slug",
	parameters: Type.Object({
		text: Type.String({ description: "The title to turn into a slug" }),
		separator: Type.Optional(Type.String({ description: "What joins the words (default -)", maxLength: 3 })),
	}),
	async execute(_toolCallId, params) {
		const separator = params.separator ?? "-";
		const words = params.text
			.normalize("NFKD")
			.replace(/[\u0300-\u036f]/g, "")
			.toLowerCase()
			.split(/[^a-z0-9]+/)
			.filter((word) => word !== "");
		if (words.length === 0) throw new Error(`"${params.text}" has no letters or digits to make a slug of`);
		const slug = words.join(separator);
		return { content: [{ type: "text", text: slug }], details: { slug, words: words.length } };
	},
});

export default function (pi: ExtensionAPI) {
	pi.registerTool(slugify);

	// Secrets stay out of the conversation: block every read of a .env file.
	pi.on("tool_call", async (event) => {
		if (isToolCallEventType("read", event) && /(^|\/)\.env(\.|$)/.test(event.input.path)) {
			return { block: true, reason: `${event.input.path} holds secrets; it is not read in this session.` };
		}
		return undefined;
	});
}

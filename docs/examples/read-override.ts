/**
 * Overriding a built-in: an extension tool named `read` replaces the built-in one. This one wraps
 * the built-in (`createReadTool`), refuses files that usually hold secrets, and adds a compact
 * renderer; everything else behaves exactly like the built-in.
 */
import { createReadTool, defineTool, type ExtensionAPI } from "toolsmith-sdk";

const SECRET = /(^|\/)(\.env(\..*)?|id_rsa|id_ed25519|.*\.pem)$/;

export default function (api: ExtensionAPI) {
	const builtin = createReadTool();

	api.registerTool(
		defineTool({
			...builtin,
			description: `${builtin.description} Files that usually hold secrets (.env, private keys) are refused.`,
			async execute(toolCallId, params, signal, onUpdate, ctx) {
				if (SECRET.test(params.path)) {
					throw new Error(
						`Refusing to read ${params.path}: it usually holds secrets. Ask the user to share what you need.`,
					);
				}
				return builtin.execute(toolCallId, params, signal, onUpdate, ctx);
			},
			renderCall(args, theme) {
				const range = args.offset !== undefined ? ` from line ${args.offset}` : "";
				return `${theme.bold("read")} ${theme.fg("accent", String(args.path))}${theme.fg("muted", range)}`;
			},
			renderResult(result, { expanded }, theme) {
				const first = result.content[0];
				if (first?.type !== "text") return theme.fg("muted", "(image)");
				const lines = first.text.split("\n");
				if (expanded) return lines;
				return [...lines.slice(0, 5), theme.fg("muted", `… ${Math.max(0, lines.length - 5)} more lines`)];
			},
		}),
	);
}

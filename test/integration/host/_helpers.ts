import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ToolCall } from "../../../src/contract/content.js";
import type { ExtensionHost, ExtensionReloadEvent } from "../../../src/extensions/node-host.js";

/** A fresh folder under the system temp dir (real path), removed by `cleanup`. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), `toolsmith-host-${prefix}-`)));
	return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function write(path: string, text: string): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
}

/**
 * An extension registering one tool `name` that answers `answer`. `extra` goes into the factory
 * body; `top` at module top level.
 */
export function toolSource(
	name: string,
	answer: string,
	options: { extra?: string; top?: string; imports?: string } = {},
): string {
	return `${options.imports ?? ""}
${options.top ?? ""}
export default function (api) {
	api.registerTool({
		name: ${JSON.stringify(name)},
		label: ${JSON.stringify(name)},
		description: "Answers with a fixed text.",
		parameters: { type: "object", properties: {} },
		async execute() {
			return { content: [{ type: "text", text: ${answer} }], details: {} };
		},
	});
	${options.extra ?? ""}
}
`;
}

let nextId = 0;
export function call(name: string, args: unknown = {}): ToolCall {
	nextId++;
	return { type: "toolCall", id: `call-${nextId}`, name, arguments: args };
}

/** The text a single call answers with, or `error: …` when it failed. */
export async function answer(host: ExtensionHost, name: string): Promise<string> {
	const { results } = await host.execute([call(name)]);
	const message = results[0];
	const text = message?.content.map((c) => (c.type === "text" ? c.text : "")).join("") ?? "";
	return message?.isError ? `error: ${text}` : text;
}

/**
 * Resolves with the first reload event that matches, rejecting after `timeoutMs` with what was
 * seen meanwhile. Subscribe before causing the change.
 */
export function nextReload(
	host: ExtensionHost,
	match: (event: ExtensionReloadEvent) => boolean,
	timeoutMs = 15_000,
): Promise<ExtensionReloadEvent> {
	const seen: ExtensionReloadEvent[] = [];
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			off();
			reject(
				new Error(
					`no matching reload within ${timeoutMs} ms; saw ${JSON.stringify(seen.map((e) => [e.kind, e.path, e.ok]))}`,
				),
			);
		}, timeoutMs);
		const off = host.on("reload", (event) => {
			seen.push(event);
			if (!match(event)) return;
			clearTimeout(timer);
			off();
			resolve(event);
		});
	});
}

/** Short facts of a diagnostic, for exact comparisons. */
export function brief(
	d: { severity: string; code: string; path: string; line?: number; column?: number },
	root: string,
) {
	return [d.severity, d.code, d.path.startsWith(root) ? d.path.slice(root.length + 1) : d.path, d.line, d.column];
}

/**
 * The headless UI extensions get: dialogs answer "no answer" at once, notifications go to the
 * host's log, and the members of the reference UI that draw things are accepted and do nothing.
 */
import { describeValue } from "../contract/errors.js";
import type { ToolUI } from "../contract/tool.js";
import { plainTheme } from "../render/theme.js";

export type Notify = (message: string, level: "info" | "warning" | "error") => void;

const noop = (): void => {};

/** A `ToolUI` plus the reference UI's drawing members as no-ops, so UI-touching code never crashes. */
export function createHeadlessUI(notify: Notify): ToolUI {
	const ui = {
		select: async () => undefined,
		confirm: async () => false,
		input: async () => undefined,
		editor: async () => undefined,
		custom: async () => undefined,
		notify(message: string, level: "info" | "warning" | "error" = "info") {
			try {
				notify(describeValue(message, 4000), level);
			} catch {
				// the log is best effort: a failing logger must not fail the tool
			}
		},
		onTerminalInput: () => noop,
		setStatus: noop,
		setWorkingMessage: noop,
		setWorkingVisible: noop,
		setWorkingIndicator: noop,
		setHiddenThinkingLabel: noop,
		setWidget: noop,
		setFooter: noop,
		setHeader: noop,
		setTitle: noop,
		pasteToEditor: noop,
		setEditorText: noop,
		getEditorText: () => "",
		addAutocompleteProvider: noop,
		setEditorComponent: noop,
		getEditorComponent: () => undefined,
		theme: plainTheme,
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "This host has no UI." }),
		getToolsExpanded: () => false,
		setToolsExpanded: noop,
	};
	return ui;
}

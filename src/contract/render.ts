/** What renderers receive and may return. Rendering is for people; models never see it. */

/** Color roles a theme knows. Unknown roles fall back to the default color. */
export type ThemeColor =
	| "accent"
	| "border"
	| "muted"
	| "dim"
	| "text"
	| "success"
	| "error"
	| "warning"
	| "toolTitle"
	| "toolOutput"
	| "toolDiffAdded"
	| "toolDiffRemoved"
	| "toolDiffContext"
	| (string & {});

/** Text styling for renderers. The plain theme returns text unchanged; the ANSI one adds escapes. */
export interface Theme {
	readonly name: string;
	fg(color: ThemeColor, text: string): string;
	bg(color: ThemeColor, text: string): string;
	bold(text: string): string;
	italic(text: string): string;
	dim(text: string): string;
	underline(text: string): string;
	strikethrough(text: string): string;
	inverse(text: string): string;
}

/** Something that draws itself into lines no wider than `width` columns. */
export interface RenderComponent {
	render(width: number): string[];
	/** Called when cached layout must be recomputed; optional. */
	invalidate?(): void;
}

/** A renderer may return a string (split on newlines), lines, or a component. */
export type RenderOutput = string | readonly string[] | RenderComponent;

/** How `renderResult` is asked to draw: expanded or as a preview, final or partial. */
export interface RenderResultOptions {
	/** The user asked for the full output rather than a preview. */
	readonly expanded: boolean;
	/** The result is a partial update of a call still running. */
	readonly isPartial: boolean;
}

/** Extra facts a renderer may use; every field may be absent. */
export interface RenderContext {
	readonly toolCallId?: string;
	readonly cwd?: string;
	/** The arguments of the call whose result is rendered. */
	readonly args?: unknown;
	readonly isError?: boolean;
	readonly width?: number;
	/**
	 * Columns of horizontal padding the host's frame gives (pi's `outputPad` setting; 1 by
	 * default). A tool with `renderShell: "self"` draws its own frame and applies it itself.
	 */
	readonly outputPad?: number;
}

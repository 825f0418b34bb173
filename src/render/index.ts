/**
 * toolsmith-sdk/render: drawing tool calls and results for people: the renderers' host side
 * (`renderToolCall`, `renderToolResult`, `renderToolBlock`, the frame layout), the ANSI and plain
 * themes, and terminal widths. For hosts and UIs that show tools, and for tool authors whose
 * `renderCall`/`renderResult` measure or cut text. The renderer types a `ToolDefinition` names
 * (`Theme`, `RenderContext`, …) stay on the main entry. Runtime-neutral.
 */
export {
	DEFAULT_OUTPUT_PAD,
	type RenderableTool,
	type RenderedBlock,
	type RenderOverflow,
	type RenderToLinesOptions,
	type RenderToolResultOptions,
	renderToLines,
	renderToolBlock,
	renderToolCall,
	renderToolResult,
	sanitizeText,
	shellLayout,
	type ToolBlockInput,
	type ToolRendererSource,
	toolRenderersFor,
	toolShell,
} from "./renderer.js";
export {
	type AnsiColor,
	type AnsiColorName,
	type AnsiThemeOptions,
	ansiTheme,
	createAnsiTheme,
	DEFAULT_ANSI_BACKGROUNDS,
	DEFAULT_ANSI_COLORS,
	plainTheme,
} from "./theme.js";
export {
	expandTabs,
	graphemeWidth,
	stripAnsi,
	truncateToWidth,
	visibleWidth,
} from "./width.js";

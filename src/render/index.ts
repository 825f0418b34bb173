export {
	fallbackCallLines,
	fallbackResultLines,
	type RenderableTool,
	type RenderedBlock,
	type RenderOverflow,
	type RenderToLinesOptions,
	type RenderToolResultOptions,
	renderToLines,
	renderToolCall,
	renderToolResult,
	sanitizeText,
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
export { expandTabs, graphemeWidth, stripAnsi, truncateToWidth, visibleWidth } from "./width.js";

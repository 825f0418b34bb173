/** Themes: the plain one (text unchanged) and ANSI ones (SGR escapes, 16, 256 or true color). */
import type { Theme, ThemeColor } from "../contract/render.js";

/** Leaves every string as it is: for logs, files, pipes and tests. */
export const plainTheme: Theme = Object.freeze({
	name: "plain",
	fg: (_color: ThemeColor, text: string) => text,
	bg: (_color: ThemeColor, text: string) => text,
	bold: (text: string) => text,
	italic: (text: string) => text,
	dim: (text: string) => text,
	underline: (text: string) => text,
	strikethrough: (text: string) => text,
	inverse: (text: string) => text,
});

/** The 16 basic terminal colors by name. */
export type AnsiColorName =
	| "black"
	| "red"
	| "green"
	| "yellow"
	| "blue"
	| "magenta"
	| "cyan"
	| "white"
	| "gray"
	| "brightRed"
	| "brightGreen"
	| "brightYellow"
	| "brightBlue"
	| "brightMagenta"
	| "brightCyan"
	| "brightWhite";

/**
 * A color: a basic color name, an index into the 256-color palette (0–255), a `#rrggbb` hex
 * string (true color), or `"default"` (the terminal's own color).
 */
export type AnsiColor = AnsiColorName | "default" | number | `#${string}`;

/** Options for `createAnsiTheme`: its name and the colors and backgrounds per role. */
export interface AnsiThemeOptions {
	/** Shown as `Theme.name`; `"ansi"` by default. */
	readonly name?: string;
	/** Foreground color per role, merged over the defaults. Roles not listed anywhere use `"default"`. */
	readonly colors?: Readonly<Partial<Record<ThemeColor, AnsiColor>>>;
	/** Background color per role, merged over the defaults. Roles not listed anywhere get no background. */
	readonly backgrounds?: Readonly<Partial<Record<ThemeColor, AnsiColor>>>;
}

/** Foreground colors per role of the default ANSI theme (16-color, so every terminal can show them). */
export const DEFAULT_ANSI_COLORS: Readonly<Record<string, AnsiColor>> = Object.freeze({
	accent: "cyan",
	border: "blue",
	muted: "gray",
	dim: "gray",
	text: "default",
	success: "green",
	error: "red",
	warning: "yellow",
	toolTitle: "brightWhite",
	toolOutput: "default",
	toolDiffAdded: "green",
	toolDiffRemoved: "red",
	toolDiffContext: "gray",
});

/** Background colors per role of the default ANSI theme. */
export const DEFAULT_ANSI_BACKGROUNDS: Readonly<Record<string, AnsiColor>> = Object.freeze({
	toolPendingBg: 236,
	toolSuccessBg: 22,
	toolErrorBg: 52,
	selectedBg: 238,
});

const BASIC: Readonly<Record<AnsiColorName, number>> = {
	black: 30,
	red: 31,
	green: 32,
	yellow: 33,
	blue: 34,
	magenta: 35,
	cyan: 36,
	white: 37,
	gray: 90,
	brightRed: 91,
	brightGreen: 92,
	brightYellow: 93,
	brightBlue: 94,
	brightMagenta: 95,
	brightCyan: 96,
	brightWhite: 97,
};

/** The SGR parameters that select `color` as foreground (`background` false) or background. */
function colorCode(color: AnsiColor, background: boolean): string | undefined {
	if (color === "default") return undefined;
	if (typeof color === "number") {
		if (!Number.isInteger(color) || color < 0 || color > 255) {
			throw new RangeError(`ANSI color index ${color} is out of range: use an integer from 0 to 255`);
		}
		return `${background ? 48 : 38};5;${color}`;
	}
	if (color.startsWith("#")) {
		const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
		if (!match) throw new RangeError(`ANSI color "${color}" is not a #rrggbb hex color`);
		const [r, g, b] = [match[1], match[2], match[3]].map((h) => Number.parseInt(h ?? "0", 16));
		return `${background ? 48 : 38};2;${r};${g};${b}`;
	}
	const basic = BASIC[color as AnsiColorName];
	if (basic === undefined) {
		throw new RangeError(
			`unknown ANSI color "${color}": use one of ${Object.keys(BASIC).join(", ")}, "default", 0–255 or #rrggbb`,
		);
	}
	return String(background ? basic + 10 : basic);
}

/**
 * Wrap `text` in an SGR open/close pair. An inner close of the same kind would end the outer style
 * too early, so each one inside is followed by the outer open again (nesting works).
 */
function wrap(open: string, close: string, text: string): string {
	if (text === "") return "";
	const inner = text.includes(close) ? text.split(close).join(close + open) : text;
	return open + inner + close;
}

const sgr = (params: string) => `\x1b[${params}m`;

/**
 * A theme that styles with ANSI escapes. Colors may be overridden per role; a role with no color
 * (for example one a newer renderer invents) is shown in the terminal's default color.
 * Throws a `RangeError` naming the color when one of `options` is not a valid color.
 */
export function createAnsiTheme(options: AnsiThemeOptions = {}): Theme {
	const build = (table: Readonly<Record<string, AnsiColor | undefined>>, background: boolean) => {
		const codes = new Map<string, string>();
		for (const [role, color] of Object.entries(table)) {
			if (color === undefined) continue;
			const code = colorCode(color, background);
			if (code !== undefined) codes.set(role, code);
			else codes.delete(role);
		}
		return codes;
	};
	const fgCodes = build({ ...DEFAULT_ANSI_COLORS, ...options.colors }, false);
	const bgCodes = build({ ...DEFAULT_ANSI_BACKGROUNDS, ...options.backgrounds }, true);
	const closeFg = sgr("39");
	const closeBg = sgr("49");
	const styled = (open: string, close: string) => (text: string) => wrap(sgr(open), sgr(close), text);
	return Object.freeze({
		name: options.name ?? "ansi",
		fg(color: ThemeColor, text: string) {
			const code = fgCodes.get(color);
			return code === undefined ? text : wrap(sgr(code), closeFg, text);
		},
		bg(color: ThemeColor, text: string) {
			const code = bgCodes.get(color);
			return code === undefined ? text : wrap(sgr(code), closeBg, text);
		},
		bold: styled("1", "22"),
		dim: styled("2", "22"),
		italic: styled("3", "23"),
		underline: styled("4", "24"),
		inverse: styled("7", "27"),
		strikethrough: styled("9", "29"),
	});
}

/** The default ANSI theme. */
export const ansiTheme: Theme = createAnsiTheme();

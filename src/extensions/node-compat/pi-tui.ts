/**
 * What `@mariozechner/pi-tui` (and `@earendil-works/pi-tui`) resolve to inside extensions: the
 * components tool renderers return, and key names. Each draws itself with `render(width)` → lines:
 * plain text, no colors or backgrounds.
 */
import type { RenderComponent } from "../../contract/render.js";
import { truncateToWidth, visibleWidth } from "../../render/width.js";

export { truncateToWidth, visibleWidth };

/** Word-wrap one line (no newlines) to `width` columns; words longer than a line are cut. */
function wrapLine(line: string, width: number): string[] {
	if (width <= 0) return [line];
	if (visibleWidth(line) <= width) return [line];
	const out: string[] = [];
	let current = "";
	for (const word of line.split(/(\s+)/)) {
		if (word === "") continue;
		const candidate = current + word;
		if (visibleWidth(candidate) <= width) {
			current = candidate;
			continue;
		}
		if (current.trim() !== "") out.push(current.trimEnd());
		current = /^\s+$/.test(word) ? "" : word;
		while (visibleWidth(current) > width) {
			const head = truncateToWidth(current, width, "");
			out.push(head);
			current = current.slice(head.length);
		}
	}
	if (current !== "" || out.length === 0) out.push(current);
	return out;
}

/** Text with horizontal and vertical padding, wrapped to the width. */
export class Text implements RenderComponent {
	private text: string;
	private readonly paddingX: number;
	private readonly paddingY: number;

	constructor(text = "", paddingX = 1, paddingY = 1, _customBgFn?: (text: string) => string) {
		this.text = text;
		this.paddingX = Math.max(0, paddingX);
		this.paddingY = Math.max(0, paddingY);
	}

	setText(text: string): void {
		this.text = text;
	}

	setCustomBgFn(_fn?: (text: string) => string): void {}

	invalidate(): void {}

	render(width: number): string[] {
		if (this.text === "") return [];
		const inner = Math.max(1, width - 2 * this.paddingX);
		const pad = " ".repeat(this.paddingX);
		const lines = this.text.split("\n").flatMap((line) => wrapLine(line, inner).map((part) => pad + part));
		const blank = Array.from({ length: this.paddingY }, () => "");
		return [...blank, ...lines, ...blank];
	}
}

/** Empty lines. */
export class Spacer implements RenderComponent {
	constructor(private readonly lines = 1) {}
	invalidate(): void {}
	render(_width: number): string[] {
		return Array.from({ length: this.lines }, () => "");
	}
}

/** Children drawn one below the other. */
export class Container implements RenderComponent {
	children: RenderComponent[] = [];

	addChild(child: RenderComponent): void {
		this.children.push(child);
	}

	removeChild(child: RenderComponent): void {
		const index = this.children.indexOf(child);
		if (index >= 0) this.children.splice(index, 1);
	}

	clear(): void {
		this.children = [];
	}

	invalidate(): void {
		for (const child of this.children) child.invalidate?.();
	}

	render(width: number): string[] {
		return this.children.flatMap((child) => child.render(width));
	}
}

/** Children drawn one below the other inside padding (the background function is not drawn). */
export class Box extends Container {
	private readonly paddingX: number;
	private readonly paddingY: number;

	constructor(paddingX = 1, paddingY = 1, _bgFn?: (text: string) => string) {
		super();
		this.paddingX = Math.max(0, paddingX);
		this.paddingY = Math.max(0, paddingY);
	}

	setBgFn(_fn?: (text: string) => string): void {}

	override render(width: number): string[] {
		const inner = Math.max(1, width - 2 * this.paddingX);
		const pad = " ".repeat(this.paddingX);
		const lines = super.render(inner).map((line) => pad + line);
		if (lines.length === 0) return [];
		const blank = Array.from({ length: this.paddingY }, () => "");
		return [...blank, ...lines, ...blank];
	}
}

/** Markdown drawn as its plain text (markup kept as written), wrapped like `Text`. */
export class Markdown extends Text {
	constructor(text = "", paddingX = 1, paddingY = 1, _theme?: unknown, _defaultTextStyle?: unknown) {
		super(text, paddingX, paddingY);
	}
}

/** One line cut to the width (with padding). */
export class TruncatedText implements RenderComponent {
	constructor(
		private text = "",
		private readonly paddingX = 0,
		private readonly paddingY = 0,
	) {}

	setText(text: string): void {
		this.text = text;
	}

	invalidate(): void {}

	render(width: number): string[] {
		const pad = " ".repeat(Math.max(0, this.paddingX));
		const first = this.text.split("\n")[0] ?? "";
		const line = pad + truncateToWidth(first, Math.max(1, width - 2 * Math.max(0, this.paddingX)));
		const blank = Array.from({ length: Math.max(0, this.paddingY) }, () => "");
		return [...blank, line, ...blank];
	}
}

/** Text wrapped to `width` columns, line by line. */
export function wrapTextWithAnsi(text: string, width: number): string[] {
	return text.split("\n").flatMap((line) => wrapLine(line, width));
}

const modifier =
	(prefix: string) =>
	(key: string): string =>
		`${prefix}+${key}`;

/**
 * Key names as pi-tui spells them (`Key.enter` is `"enter"`, `Key.ctrl("c")` is `"ctrl+c"`): any
 * name gives itself, the modifier helpers join.
 */
export const Key: Readonly<Record<string, unknown>> = new Proxy(
	Object.freeze({
		ctrl: modifier("ctrl"),
		shift: modifier("shift"),
		alt: modifier("alt"),
		super: modifier("super"),
		ctrlShift: modifier("ctrl+shift"),
		shiftCtrl: modifier("shift+ctrl"),
		ctrlAlt: modifier("ctrl+alt"),
		altCtrl: modifier("alt+ctrl"),
		shiftAlt: modifier("shift+alt"),
		altShift: modifier("alt+shift"),
		ctrlSuper: modifier("ctrl+super"),
		superCtrl: modifier("super+ctrl"),
		shiftSuper: modifier("shift+super"),
		superShift: modifier("super+shift"),
		altSuper: modifier("alt+super"),
		superAlt: modifier("super+alt"),
		ctrlShiftAlt: modifier("ctrl+shift+alt"),
		ctrlShiftSuper: modifier("ctrl+shift+super"),
	}),
	{
		get(target, key) {
			if (typeof key !== "string") return undefined;
			return Object.hasOwn(target, key) ? target[key as keyof typeof target] : key;
		},
	},
);

/** The bytes a terminal sends for the keys a headless host can still be handed. */
const SEQUENCES: Readonly<Record<string, string>> = {
	enter: "\r",
	return: "\r",
	tab: "\t",
	space: " ",
	escape: "\x1b",
	esc: "\x1b",
	backspace: "\x7f",
	up: "\x1b[A",
	down: "\x1b[B",
	right: "\x1b[C",
	left: "\x1b[D",
};

/** The key `data` is, for plain keys, `ctrl+<letter>` and printable characters; otherwise undefined. */
export function parseKey(data: string): string | undefined {
	for (const [name, bytes] of Object.entries(SEQUENCES))
		if (bytes === data && name !== "return" && name !== "esc") return name;
	if (data.length === 1) {
		const code = data.charCodeAt(0);
		if (code >= 1 && code <= 26) return `ctrl+${String.fromCharCode(code + 96)}`;
		if (code >= 32 && code < 127) return data;
	}
	return undefined;
}

/** Whether `data` is the key `keyId` (plain keys, `ctrl+<letter>` and printable characters). */
export function matchesKey(data: string, keyId: string): boolean {
	const sequence = SEQUENCES[keyId];
	if (sequence !== undefined) return data === sequence;
	const ctrl = /^ctrl\+([a-z])$/.exec(keyId);
	if (ctrl) return data === String.fromCharCode((ctrl[1] as string).charCodeAt(0) - 96);
	return keyId.length === 1 && data === keyId;
}

/** An image's size in pixels, as pi-tui measures it. */
export interface ImageDimensions {
	readonly widthPx: number;
	readonly heightPx: number;
}

/** pi-tui's text for an image a terminal cannot show: `[Image: name [type] WxH]`. */
export function imageFallback(mimeType: string, dimensions?: ImageDimensions, filename?: string): string {
	const parts = [filename, `[${mimeType}]`, dimensions ? `${dimensions.widthPx}x${dimensions.heightPx}` : undefined];
	return `[Image: ${parts.filter((part) => part !== undefined && part !== "").join(" ")}]`;
}

/** An image, drawn as pi-tui draws it where the terminal cannot show images: one line of text. */
export class Image implements RenderComponent {
	constructor(
		_base64Data: string,
		private readonly mimeType: string,
		private readonly theme?: { fallbackColor?: (text: string) => string },
		private readonly options: { filename?: string } = {},
		private readonly dimensions?: ImageDimensions,
	) {}

	getImageId(): number | undefined {
		return undefined;
	}

	invalidate(): void {}

	render(width: number): string[] {
		const text = truncateToWidth(
			imageFallback(this.mimeType, this.dimensions, this.options.filename),
			Math.max(1, width),
		);
		const color = this.theme?.fallbackColor;
		return [typeof color === "function" ? color(text) : text];
	}
}

/** How well `query` matches `text`: `matches` when its characters appear in order; lower `score` is better. */
export interface FuzzyMatch {
	readonly matches: boolean;
	readonly score: number;
}

/**
 * pi-tui's `fuzzyMatch(query, text)`, case-insensitive. Consecutive characters, word starts and an
 * early first match lower the score (the numbers are toolsmith's own; only their order matters).
 */
export function fuzzyMatch(query: string, text: string): FuzzyMatch {
	const q = query.toLowerCase();
	const t = text.toLowerCase();
	if (q === "") return { matches: true, score: 0 };
	let score = 0;
	let from = 0;
	let previous = -2;
	for (const char of q) {
		const at = t.indexOf(char, from);
		if (at < 0) return { matches: false, score: 0 };
		score -= 1;
		if (at === previous + 1) score -= 5;
		if (at === 0 || /[\s\-_/.]/.test(t.charAt(at - 1))) score -= 3;
		score += (at - from) * 0.1;
		previous = at;
		from = at + 1;
	}
	if (t === q) score -= 100;
	else if (t.startsWith(q)) score -= 20;
	return { matches: true, score };
}

/** pi-tui's `fuzzyFilter(items, query, getText)`: the items every whitespace- or slash-separated token matches, best first. */
export function fuzzyFilter<T>(items: readonly T[], query: string, getText: (item: T) => string): T[] {
	const tokens = query.split(/[\s/]+/).filter((token) => token !== "");
	if (tokens.length === 0) return [...items];
	const scored: { item: T; score: number; index: number }[] = [];
	items.forEach((item, index) => {
		const text = getText(item);
		let score = 0;
		for (const token of tokens) {
			const match = fuzzyMatch(token, text);
			if (!match.matches) return;
			score += match.score;
		}
		scored.push({ item, score, index });
	});
	return scored.sort((a, b) => a.score - b.score || a.index - b.index).map((entry) => entry.item);
}

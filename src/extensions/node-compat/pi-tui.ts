/**
 * What `@mariozechner/pi-tui` (and `@earendil-works/pi-tui`) resolve to inside extensions: the
 * components tool renderers return. Each draws itself with `render(width)` → lines.
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

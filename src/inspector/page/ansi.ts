/**
 * ANSI-coloured lines (what renderers and `toolsmith dev` print) → HTML, with ansi_up and no DOM.
 * The lines come from tools, so they are untrusted: every character of text is escaped, colours
 * become `ansi-*` classes (style.css picks them per light or dark scheme) or an inline `color`
 * for 256/true colours, and only `http`/`https` OSC 8 hyperlinks become anchors.
 */
import { AnsiUp } from "ansi_up";

/** The link schemes kept, in an object with no prototype (so `constructor:` or `__proto__:` are not "allowed"). */
function allowlist(): Record<string, number> {
	const schemes: Record<string, number> = Object.create(null);
	schemes.http = 1;
	schemes.https = 1;
	return schemes;
}

/** The HTML of some lines; colour state carries from one line to the next, as on a terminal. */
export function ansiToHtml(lines: readonly string[]): string {
	const converter = new AnsiUp();
	converter.use_classes = true;
	converter.escape_html = true;
	converter.url_allowlist = allowlist();
	return converter.ansi_to_html(lines.join("\n"));
}

/** The lines without their escape sequences (CSI and OSC), as plain text. */
export function stripAnsi(text: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
	return text.replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g, "");
}

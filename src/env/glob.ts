/**
 * Glob patterns for the find tool, compiled to regular expressions: `*`, `?`, `**`, `[...]`,
 * `{a,b}` and `\` escapes, matched case-sensitively, with no special rule for leading dots.
 * They run on RE2 (re2js), a linear-time engine: a glob with many `*` cannot backtrack for ever.
 */
import { RE2JS } from "re2js";
import { errorMessage } from "../contract/errors.js";

/** The most alternatives brace expansion may produce before the pattern is refused. */
const MAX_BRACE_EXPANSIONS = 1024;

/** RE2 reads any ASCII punctuation escaped with `\\` as itself, and nothing else escaped that way. */
function escapeChar(ch: string): string {
	return /^[!-/:-@[-`{-~]$/.test(ch) ? `\\${ch}` : ch;
}

/** Every pattern `{a,b}` groups stand for, outermost group first. */
function expandBraces(pattern: string, out: string[]): void {
	let depth = 0;
	let open = -1;
	const commas: number[] = [];
	for (let i = 0; i < pattern.length; i++) {
		const ch = pattern[i];
		if (ch === "\\") {
			i++;
			continue;
		}
		if (ch === "{") {
			if (depth === 0) {
				open = i;
				commas.length = 0;
			}
			depth++;
		} else if (ch === "}" && depth > 0) {
			depth--;
			if (depth === 0) {
				if (commas.length === 0) continue;
				const head = pattern.slice(0, open);
				const tail = pattern.slice(i + 1);
				const bounds = [open, ...commas, i];
				for (let k = 0; k + 1 < bounds.length; k++) {
					expandBraces(head + pattern.slice((bounds[k] ?? 0) + 1, bounds[k + 1]) + tail, out);
					if (out.length > MAX_BRACE_EXPANSIONS) {
						throw new Error(
							`Invalid glob pattern ${JSON.stringify(pattern)}: its {…} groups expand to more than ${MAX_BRACE_EXPANSIONS} patterns`,
						);
					}
				}
				return;
			}
		} else if (ch === "," && depth === 1) {
			commas.push(i);
		}
	}
	out.push(pattern);
}

/** One path segment (no `/`) as a regular expression source. */
function segmentSource(segment: string, whole: string): string {
	let out = "";
	const chars = [...segment];
	for (let i = 0; i < chars.length; i++) {
		const ch = chars[i] as string;
		if (ch === "\\") {
			const next = chars[++i];
			if (next === undefined) throw new Error(`Invalid glob pattern ${JSON.stringify(whole)}: it ends with a lone \\`);
			out += escapeChar(next);
		} else if (ch === "*") {
			while (chars[i + 1] === "*") i++;
			out += "[^/]*";
		} else if (ch === "?") {
			out += "[^/]";
		} else if (ch === "[") {
			let j = i + 1;
			let negate = false;
			if (chars[j] === "!" || chars[j] === "^") {
				negate = true;
				j++;
			}
			let body = "";
			let first = true;
			for (; j < chars.length; j++) {
				const c = chars[j] as string;
				if (c === "]" && !first) break;
				first = false;
				if (c === "\\" && j + 1 < chars.length) body += escapeChar(chars[++j] as string);
				else if (c === "-") body += "-";
				else if (c === "[" || c === "]" || c === "^" || c === "\\") body += `\\${c}`;
				else body += c;
			}
			if (j >= chars.length) throw new Error(`Invalid glob pattern ${JSON.stringify(whole)}: a [ is not closed by a ]`);
			out += negate ? `[^/${body}]` : `[${body}]`;
			i = j;
		} else {
			out += escapeChar(ch);
		}
	}
	return out;
}

function patternSource(pattern: string, whole: string): string {
	const segments = pattern.split("/");
	let out = "";
	let afterGlobstar = false;
	for (let i = 0; i < segments.length; i++) {
		const segment = segments[i] as string;
		const last = i === segments.length - 1;
		if (segment === "**") {
			if (last) out += i === 0 ? "(?s:.*)" : "/(?s:.*)";
			else out += i === 0 ? "(?:.*/)?" : "/(?:.*/)?";
			afterGlobstar = true;
			continue;
		}
		out += (i === 0 || afterGlobstar ? "" : "/") + segmentSource(segment, whole);
		afterGlobstar = false;
	}
	return out;
}

/** A compiled find pattern: which entries it selects. */
export interface GlobMatcher {
	/** Whether the pattern is matched against the whole relative path (it has a `/`) or the base name. */
	readonly matchesPath: boolean;
	/** Whether the entry at `relativePath` (with `/` separators) is selected. */
	matches(relativePath: string): boolean;
}

/**
 * Compile a find pattern. Without a `/` it is matched against each entry's base name (`*.ts`);
 * with one, against the path relative to the search root, at any depth (`src/*.ts` also selects
 * `lib/src/a.ts`) unless it starts with `/`, which anchors it at the search root. Throws an Error
 * naming the pattern when it is empty or malformed.
 */
export function compileGlob(pattern: string): GlobMatcher {
	if (pattern.length === 0) throw new Error("Invalid glob pattern: it is empty; pass e.g. '*.ts' or '**/*.json'");
	const matchesPath = pattern.includes("/");
	let effective = pattern;
	if (matchesPath) {
		if (effective.startsWith("/")) effective = effective.replace(/^\/+/, "");
		else if (effective !== "**" && !effective.startsWith("**/")) effective = `**/${effective}`;
	}
	const alternatives: string[] = [];
	expandBraces(effective, alternatives);
	const source = alternatives.map((alt) => patternSource(alt, pattern)).join("|");
	let regex: RE2JS;
	try {
		regex = RE2JS.compile(`^(?:${source})$`, RE2JS.DOTALL);
	} catch (error) {
		throw new Error(
			`Invalid glob pattern ${JSON.stringify(pattern)}: ${errorMessage(error).replace(/^error parsing regexp: /, "")}`,
		);
	}
	return {
		matchesPath,
		matches(relativePath: string): boolean {
			if (matchesPath) return regex.test(relativePath);
			const slash = relativePath.lastIndexOf("/");
			return regex.test(slash < 0 ? relativePath : relativePath.slice(slash + 1));
		},
	};
}

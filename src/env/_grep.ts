/**
 * `searchText` over any FileSystem: the walker, then each text file read and matched line by line.
 * The memory env uses it, the Node env where `rg` is missing or cannot give the same result, and
 * the grep tool for envs without a `searchText` of their own. Also the pattern and line rules both
 * paths share, so that they agree.
 */
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { fileError } from "./_errors.js";
import { compileGlob, type GlobMatcher } from "./_glob.js";
import { walk } from "./_walk.js";
import type { FileSystem, SearchTextMatch, SearchTextRequest, SearchTextResult, SignalOptions } from "./types.js";

/** The ignore files grep honours besides `.gitignore`; the later one wins, as in `rg`. */
export const GREP_IGNORE_FILES: readonly string[] = [".ignore", ".rgignore"];

/** Files read at the same time; results are still taken in walk order. */
const PARALLEL_READS = 8;

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** The search regex: JavaScript syntax with the `u` flag, or the escaped text for `literal`. Throws a clear Error. */
export function compileSearchPattern(pattern: string, literal: boolean, ignoreCase: boolean): RegExp {
	const source = literal ? pattern.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&") : pattern;
	try {
		return new RegExp(source, ignoreCase ? "iu" : "u");
	} catch (error) {
		throw new Error(
			`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message.replace(/^Invalid regular expression: /, "")}. grep uses JavaScript regex syntax; pass literal: true to search for the text as it is.`,
		);
	}
}

/** The text a line is matched against: the line without its `\r\n` ending's `\r`. */
export function matchedText(line: string): string {
	return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** The text a line is shown as: every `\r` removed. */
export function shownText(line: string): string {
	return line.replace(/\r/g, "");
}

/** The lines of file bytes (no `\n`; an empty file has none), or undefined when binary (a NUL byte anywhere). */
export function textLines(bytes: Uint8Array): string[] | undefined {
	if (bytes.indexOf(0) !== -1) return undefined;
	if (bytes.length === 0) return [];
	const lines = decoder.decode(bytes).split("\n");
	if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
	return lines;
}

/** The matches of one file's lines, at most `room` of them. */
export function matchLines(
	path: string,
	lines: readonly string[],
	regex: RegExp,
	context: number,
	room: number,
): SearchTextMatch[] {
	const found: SearchTextMatch[] = [];
	for (let i = 0; i < lines.length && found.length < room; i++) {
		if (!regex.test(matchedText(lines[i] as string))) continue;
		const first = Math.max(0, i - context);
		const last = Math.min(lines.length - 1, i + context);
		found.push({
			path,
			line: i + 1,
			text: shownText(lines[i] as string),
			before: lines.slice(first, i).map(shownText),
			after: lines.slice(i + 1, last + 1).map(shownText),
		});
	}
	return found;
}

/** The request checked: the absolute folder, the regex and the glob; `invalid_argument` names the problem. */
export async function prepareSearch(
	fs: FileSystem,
	request: SearchTextRequest,
): Promise<Result<{ root: string; regex: RegExp; glob: GlobMatcher | undefined; context: number }, FileError>> {
	const root = fs.absolutePath(request.path);
	if (!root.ok) return root;
	if (!Number.isInteger(request.limit) || request.limit < 1)
		return err(fileError("invalid_argument", root.value, `limit must be a positive integer, got ${request.limit}`));
	let regex: RegExp;
	let glob: GlobMatcher | undefined;
	try {
		regex = compileSearchPattern(request.pattern, request.literal === true, request.ignoreCase === true);
		glob = request.glob ? compileGlob(request.glob) : undefined;
	} catch (error) {
		return err(fileError("invalid_argument", root.value, (error as Error).message));
	}
	const info = await fs.fileInfo(root.value);
	if (!info.ok) return info;
	if (info.value.kind !== "directory")
		return err(fileError("not_directory", root.value, "searchText searches a folder; pass the folder that holds it"));
	const context = request.context && request.context > 0 ? Math.floor(request.context) : 0;
	return ok({ root: root.value, regex, glob, context });
}

/** `searchText` by walking the tree through `fs` and reading the files, several at a time. */
export async function searchWithWalker(
	fs: FileSystem,
	request: SearchTextRequest,
	options: SignalOptions = {},
): Promise<Result<SearchTextResult, FileError>> {
	const prepared = await prepareSearch(fs, request);
	if (!prepared.ok) return prepared;
	const { root, regex, glob, context } = prepared.value;
	const signal = options.signal;
	const matches: SearchTextMatch[] = [];
	const read = async (absolutePath: string) => {
		const bytes = await fs.readBinaryFile(absolutePath, signal ? { signal } : undefined);
		return bytes.ok ? textLines(bytes.value) : undefined;
	};
	const files = walk(fs, root, { hidden: request.hidden ?? false, ignoreFiles: GREP_IGNORE_FILES, signal });
	try {
		let done = false;
		while (!done && matches.length < request.limit) {
			const batch: { path: string; lines: Promise<string[] | undefined> }[] = [];
			while (batch.length < PARALLEL_READS) {
				const next = await files.next();
				if (next.done) {
					done = true;
					break;
				}
				const entry = next.value;
				if (entry.kind !== "file" || (glob && !glob.matches(entry.path))) continue;
				batch.push({ path: entry.path, lines: read(entry.absolutePath) });
			}
			for (const file of batch) {
				const lines = await file.lines;
				if (signal?.aborted) return err(fileError("aborted", root));
				if (lines === undefined || matches.length >= request.limit) continue;
				matches.push(...matchLines(file.path, lines, regex, context, request.limit - matches.length));
			}
		}
		if (!done) await files.return(undefined);
	} catch (error) {
		if (signal?.aborted) return err(fileError("aborted", root));
		return err(fileError("io_error", root, (error as Error).message));
	}
	return ok({ matches, limitReached: matches.length >= request.limit });
}

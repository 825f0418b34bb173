/** Reading session files from disk (Node only); the parsing itself is `parseSession`. */
import { readFile } from "node:fs/promises";
import { errorMessage } from "../contract/errors.js";
import { type ParseSessionOptions, parseSession, type RecordedSession, SessionParseError } from "./session.js";

/**
 * Read and parse a pi session file (`.jsonl`, version 1 or a tree version). Rejects with a
 * `SessionParseError` naming the path when the file cannot be read or holds no session.
 */
export async function loadSession(
	path: string,
	options: Omit<ParseSessionOptions, "source"> = {},
): Promise<RecordedSession> {
	let text: string;
	try {
		text = await readFile(path, "utf8");
	} catch (error) {
		const reason = errorMessage(error);
		throw new SessionParseError(`Cannot read session file ${path}: ${reason}`);
	}
	return parseSession(text, { ...options, source: path });
}

/**
 * Replaying reads and searches (read, grep, find, ls): a read is checked against what the
 * recording revealed of its file, its page merged into the file where it reveals more; a search
 * only when the replay knows everything it looks at.
 */
import { isUnflaggedReadError } from "./_normalize.js";
import { UNKNOWN_LINE } from "./_recorded-files.js";
import { pageFromRead, type RevealedPage, tooLongLineFromRead } from "./_recorded-formats.js";
import { compare } from "./_replay-compare.js";
import { argsOf, hasImageBlock, pathOf, type ReplayState, runTool, textOf, unknowable } from "./_replay-state.js";
import type { RecordedCall } from "./session.js";
import type { SessionCallOutcome } from "./session-report.js";

/** A read error that says the file does not exist (the reference's, ours, and Node's wording). */
const NOT_FOUND = /ENOENT|no such file|does not exist|not found/i;

/** The first line of a result, cut short, for a message. */
function excerptOf(text: string): string {
	const line = text.split("\n")[0] ?? "";
	return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

export async function replayRead(state: ReplayState, call: RecordedCall): Promise<SessionCallOutcome> {
	const recorded = call.result!;
	const path = pathOf(state, call);
	const args = argsOf(call.toolCall);
	if (!path) return compare(call, await runTool(state, call.toolCall));
	if (hasImageBlock(recorded.content)) {
		return unknowable(call, "image", "the recorded result is an image; its bytes are not in the recording");
	}
	const known = state.files.has(path);
	const stale = state.files.isStale(path);
	const staleWhy = state.files.staleReason(path);

	// The earliest releases returned a failed read as an ordinary `Error: …` result.
	if (recorded.isError || isUnflaggedReadError(textOf(recorded.content))) {
		if (!known) {
			// A failure that shows the file exists (an offset past its end, a folder, no permission)
			// depends on a file no result showed; only "it does not exist" can be checked here.
			const text = textOf(recorded.content);
			if (!NOT_FOUND.test(text)) {
				return unknowable(
					call,
					"unseen-file",
					`the recorded read failed on a file no result showed (${excerptOf(text)})`,
				);
			}
			// The recording says the file does not exist; the replay has no such file either (it
			// knows nothing of the path, so this checks the wording, not state).
			return compare(call, await runTool(state, call.toolCall), { formatOnly: true });
		}
		const outcome = compare(call, await runTool(state, call.toolCall), {
			...(stale ? { onDifference: "outside-change" as const, why: `the file may have changed (${staleWhy})` } : {}),
		});
		if (outcome.status !== "match") await state.files.forget(path);
		return outcome;
	}

	const offset = typeof args?.offset === "number" ? args.offset : undefined;
	const recordedText = textOf(recorded.content);
	const tooLong = tooLongLineFromRead(recordedText);
	if (tooLong !== undefined) {
		// The result shows no line, only that line N is longer than the byte limit: checkable
		// only when earlier calls showed that line.
		if (known && state.files.covers(path, { start: tooLong, count: 1, text: "", total: tooLong })) {
			return compare(call, await runTool(state, call.toolCall), {
				...(stale ? { onDifference: "outside-change" as const, why: `the file may have changed (${staleWhy})` } : {}),
			});
		}
		return unknowable(
			call,
			"unseen-region",
			`the recorded read says only that line ${tooLong} is too long to show; no result showed that line`,
		);
	}
	const page = pageFromRead(recordedText, offset);
	if (!page) return unknowable(call, "unreadable-result", "the recorded page does not show which lines it holds");
	if (page.cut) {
		// The recorded release cut long lines short, so its page cannot equal ours: what it shows
		// goes into the file (the cut lines stay unknown), and a difference is unknowable.
		if ((await state.files.merge(path, page)).kind === "conflict") await state.files.seed(path, page);
		return compare(call, await runTool(state, call.toolCall), {
			seeded: true,
			onDifference: "unseen-region",
			why: `the recorded release cut ${page.cut} line(s) to ${page.cutTo} characters; the rest of them is not in the recording`,
		});
	}

	if (known && state.files.covers(path, page)) {
		// Every line the page shows was known before this call: a true test of the state.
		const outcome = compare(call, await runTool(state, call.toolCall), {
			why: "our read of the replayed file differs from the recorded read",
			// A stale file is read again below, and this outcome dropped.
			noDiff: stale,
		});
		if (outcome.status === "match") return outcome;
		// Later calls are judged against what the recording showed, not against our view.
		await state.files.seed(path, page);
		if (!stale) return outcome;
		return reseededRead(state, call, page, `the file had changed (${staleWhy}); its page is taken from this result`);
	}

	const merged = await state.files.merge(path, page);
	if (merged.kind !== "conflict") return seededRead(state, call, path, offset, page);
	// The page contradicts lines known before: an outside change if the file is stale (the read
	// itself is then checked against its own page), else a real difference (our earlier calls
	// left the file otherwise than the recorded ones did).
	await state.files.seed(path, page);
	if (stale) {
		return reseededRead(
			state,
			call,
			page,
			`the file had changed (${staleWhy}: ${merged.message}); its page is taken from this result`,
		);
	}
	const outcome = compare(call, await runTool(state, call.toolCall), { seeded: true });
	return {
		...outcome,
		status: "mismatch",
		message: `the recorded read contradicts the replayed file: ${merged.message}`,
		seeded: false,
		diff: outcome.diff ?? merged.message,
	};
}

/** A read of a file that changed outside the recorded calls, checked against its own page. */
async function reseededRead(
	state: ReplayState,
	call: RecordedCall,
	page: RevealedPage,
	note: string,
): Promise<SessionCallOutcome> {
	const args = argsOf(call.toolCall);
	const path = pathOf(state, call)!;
	const offset = typeof args?.offset === "number" ? args.offset : undefined;
	const outcome = await seededRead(state, call, path, offset, page);
	return { ...outcome, message: `${outcome.message}; ${note}` };
}

/**
 * A read checked against the page it revealed. Where our read shows that page's lines and then
 * more, some of them unknown (a byte limit cuts the page where the lines' lengths add up, and
 * the replay does not know the lengths of lines no result showed), the difference is unknowable;
 * any other difference is a mismatch.
 */
async function seededRead(
	state: ReplayState,
	call: RecordedCall,
	path: string,
	offset: number | undefined,
	page: RevealedPage,
): Promise<SessionCallOutcome> {
	const ours = await runTool(state, call.toolCall);
	const outcome = compare(call, ours, {
		seeded: true,
		why: "our read differs from the recorded read of the same lines",
	});
	if (outcome.status === "match" || ours.isError) return outcome;
	const ourPage = pageFromRead(ours.text, offset);
	if (ourPage === undefined || ourPage.count <= page.count || state.files.covers(path, ourPage)) return outcome;
	// Our page must hold the recorded one and go on into a line no result showed: any other
	// longer page is a real difference.
	const next = ourPage.text.startsWith(`${page.text}\n`) ? ourPage.text.slice(page.text.length + 1) : undefined;
	if (next === undefined || !(next === UNKNOWN_LINE || next.startsWith(`${UNKNOWN_LINE}\n`))) return outcome;
	const { diff: _diff, ...rest } = outcome;
	return {
		...rest,
		status: "unknowable",
		reason: "unseen-region",
		message: `our read goes on past the recorded page into line ${page.start + page.count}, which no recorded result showed (where a limit cuts a page depends on the lengths of the lines)`,
	};
}

/**
 * A grep, find or ls call. Its result depends on every file under its path, so it is knowable
 * only when the replay knows all of them. The recording never lists a folder's full contents
 * (a real repository holds files no result showed), so a search of a folder is unknowable; a
 * search whose path is one file the replay holds is replayed and compared: for grep the file's
 * every line must be known, for find and ls (which fail on a file) only that it is a file.
 * Nothing is marked stale afterwards: these tools change no file.
 */
export async function replaySearch(state: ReplayState, call: RecordedCall): Promise<SessionCallOutcome> {
	const name = call.toolCall.name;
	const args = argsOf(call.toolCall);
	const given = typeof args?.path === "string" && args.path !== "" ? args.path : ".";
	const path = state.files.resolve(given);
	if (path === undefined || !state.files.has(path)) {
		return unknowable(
			call,
			"unseen-folder",
			`${name} looks at everything under ${JSON.stringify(given)}, and no recorded result showed its full contents`,
		);
	}
	if (name === "grep" && state.files.partial(path) !== false) {
		return unknowable(
			call,
			"unseen-region",
			`grep searches every line of ${JSON.stringify(given)}, and no recorded result showed all of them`,
		);
	}
	const stale = state.files.isStale(path);
	return compare(call, await runTool(state, call.toolCall), {
		why: `our ${name} of the replayed file differs from the recorded one`,
		...(stale
			? {
					onDifference: "outside-change" as const,
					why: `the file may have changed (${state.files.staleReason(path)})`,
				}
			: {}),
	});
}

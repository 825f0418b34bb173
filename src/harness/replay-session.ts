/**
 * Replaying a recorded session through our tools.
 *
 * Each recorded call runs through the executor with our tools on a recorded env (see
 * `_recorded-files.ts`) that knows only what the recording revealed. The call is then classified:
 *
 * - `match`: our result equals the recorded one (after the documented normalization rules);
 * - `mismatch`: it differs, and everything it depended on was known: a real difference;
 * - `unknowable`: it depended on something the recording does not hold (a region of a file no
 *   result ever showed, a change made outside the recorded calls, a call that never ran).
 *
 * Runtime-neutral.
 */
import type { NestedCalls, ToolCall } from "../contract/content.js";
import { errorMessage } from "../contract/errors.js";
import { type AgentTool, type ToolDefinition, wrapToolDefinitions } from "../contract/tool.js";
import { executeToolCalls } from "../exec/execute.js";
import { createBuiltinTools } from "../tools/builtins.js";
import { headlessContextFactory } from "./_context.js";
import { FileLines } from "./_file-lines.js";
import { nestedCallKey } from "./_nested-lines.js";
import {
	isEditNoFileError,
	isUnflaggedReadError,
	type NormalizedText,
	normalizeResultText,
	olderLimitsRule,
	RULE_SUMMARIES,
} from "./_normalize.js";
import { RecordedFiles, UNKNOWN_LINE } from "./_recorded-files.js";
import {
	changedLinesFromDiff,
	commandFromBash,
	linesBeforeFromDiff,
	pageFromRead,
	type RevealedPage,
	tooLongLineFromRead,
} from "./_recorded-formats.js";
import { commandMayWrite } from "./_shell-effects.js";
import { textDiff } from "./_text-diff.js";
import type { RecordedBatch, RecordedCall, RecordedSession } from "./session.js";
import {
	type SessionCallOutcome,
	type SessionCallStatus,
	type SessionReplayReport,
	summarizeOutcomes,
	type UnknowableReason,
} from "./session-report.js";

/** Options for `replaySession`: the tools to replay with and how the world is rebuilt from the session. */
export interface ReplaySessionOptions {
	/**
	 * Tools to replay with, by name; they replace built-ins of the same name and add the others.
	 * Calls to a tool that is neither here nor built in are `unknowable` (`no-tool`).
	 */
	readonly tools?: readonly ToolDefinition[];
	/** Include the built-in tools, read, write, edit, bash, grep, find and ls (default true). */
	readonly builtins?: boolean;
	/**
	 * Whether the user may have changed files between turns (default true). When false, only
	 * shell commands that may write make files stale, so more disagreements count as mismatches.
	 */
	readonly userTurnsMayChangeFiles?: boolean;
	/**
	 * Called with each outcome as soon as it is known. May throw: the replay stops and rejects
	 * with that error.
	 */
	readonly onCall?: (outcome: SessionCallOutcome) => void;
}

/** Tools known not to change files, so a call to them needs no staleness when it cannot be replayed. */
const READ_ONLY_TOOLS = new Set(["read", "grep", "find", "ls"]);

/** A read error that says the file does not exist (the reference's, ours, and Node's wording). */
const NOT_FOUND = /ENOENT|no such file|does not exist|not found/i;

/** The first line of a result, cut short, for a message. */
function excerptOf(text: string): string {
	const line = text.split("\n")[0] ?? "";
	return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

interface ToolRun {
	readonly text: string;
	readonly isError: boolean;
	readonly hasImage: boolean;
	readonly details: unknown;
	readonly nestedCalls?: NestedCalls;
}

type Args = Readonly<Record<string, unknown>>;

function argsOf(call: ToolCall): Args | undefined {
	let value = call.arguments;
	if (typeof value === "string") {
		try {
			value = JSON.parse(value);
		} catch {
			return undefined;
		}
	}
	return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Args) : undefined;
}

function textOf(content: readonly { type: string; text?: string }[]): string {
	// Most results are one text block: its text, without building arrays.
	if (content.length === 1 && content[0]!.type === "text") return content[0]!.text ?? "";
	return content
		.filter((block) => block.type === "text")
		.map((block) => block.text ?? "")
		.join("\n");
}

function hasImageBlock(content: readonly { type: string }[]): boolean {
	return content.some((block) => block.type === "image");
}

/**
 * `outcome` with the nested calls the recorded call and ours made (pi 1.x records them on the
 * result): a match whose nested calls differ (another tool, status or arguments) is a mismatch.
 */
function withNestedCalls(
	outcome: SessionCallOutcome,
	recorded: NestedCalls | undefined,
	ours: NestedCalls | undefined,
): SessionCallOutcome {
	if (recorded === undefined && ours === undefined) return outcome;
	const nestedCalls = { ...(recorded ? { recorded } : {}), ...(ours ? { ours } : {}) };
	const recordedKeys = (recorded?.calls ?? []).map(nestedCallKey).join("\n");
	const ourKeys = (ours?.calls ?? []).map(nestedCallKey).join("\n");
	if (outcome.status !== "match" || recordedKeys === ourKeys) return { ...outcome, nestedCalls };
	const { verifies: _verifies, ...rest } = outcome;
	return {
		...rest,
		nestedCalls,
		status: "mismatch",
		message: "our tool made other nested calls (ctx.executeTool) than the recorded one",
		diff: textDiff(recordedKeys, ourKeys, { expected: "recorded nested calls", actual: "our nested calls" }),
	};
}

let builtins: readonly ToolDefinition[] | undefined;

/**
 * The built-in tools with default options, made once: definitions hold no state, and reusing them
 * keeps the executor's compiled validators warm across replays.
 */
function defaultBuiltins(): readonly ToolDefinition[] {
	builtins ??= createBuiltinTools({ set: "all" });
	return builtins;
}

class SessionReplayer {
	readonly files: RecordedFiles;
	private readonly definitions = new Map<string, ToolDefinition>();
	private readonly outcomes: SessionCallOutcome[] = [];
	private lastTurn: number | undefined;
	private tools: AgentTool[] | undefined;

	constructor(
		private readonly session: RecordedSession,
		private readonly options: ReplaySessionOptions,
	) {
		this.files = new RecordedFiles(session.cwd);
		if (options.builtins !== false) for (const tool of defaultBuiltins()) this.definitions.set(tool.name, tool);
		for (const tool of options.tools ?? []) this.definitions.set(tool.name, tool);
	}

	async run(): Promise<SessionReplayReport> {
		for (const batch of this.session.batches) {
			this.beforeBatch(batch);
			for (const call of batch.calls) {
				let outcome = await this.replayCall(call, batch);
				// Only a match proves something; an outcome turned into another status drops the claim.
				if (outcome.status !== "match" && outcome.verifies !== undefined) {
					const { verifies: _verifies, ...rest } = outcome;
					outcome = rest;
				}
				this.outcomes.push(outcome);
				this.options.onCall?.(outcome);
			}
		}
		const figures = summarizeOutcomes(this.outcomes);
		return { cwd: this.session.cwd, figures, calls: this.outcomes, ok: figures.mismatch === 0 };
	}

	private beforeBatch(batch: RecordedBatch): void {
		if (this.lastTurn !== undefined && batch.turn !== this.lastTurn && this.options.userTurnsMayChangeFiles !== false) {
			this.files.markAllStale(`the user's turn before batch ${batch.index}`);
		}
		this.lastTurn = batch.turn;
		const writing = batch.userCommands.find(commandMayWrite);
		if (writing !== undefined) this.files.markAllStale(`the user's command ${JSON.stringify(writing)}`);
	}

	private async execute(toolCall: ToolCall, signal?: AbortSignal): Promise<ToolRun> {
		this.tools ??= wrapToolDefinitions([...this.definitions.values()], headlessContextFactory(this.files.env));
		const { results } = await executeToolCalls(
			[toolCall],
			signal ? { tools: this.tools, signal } : { tools: this.tools },
		);
		const result = results[0];
		if (!result)
			return { text: "(the executor returned no result)", isError: true, hasImage: false, details: undefined };
		return {
			text: textOf(result.content),
			isError: result.isError,
			hasImage: hasImageBlock(result.content),
			details: result.details,
			...(result.nestedCalls !== undefined ? { nestedCalls: result.nestedCalls } : {}),
		};
	}

	private base(
		call: RecordedCall,
	): Pick<SessionCallOutcome, "index" | "batch" | "toolCallId" | "toolName" | "arguments"> {
		return {
			index: call.index,
			batch: call.batch,
			toolCallId: call.toolCall.id,
			toolName: call.toolCall.name,
			arguments: call.toolCall.arguments,
		};
	}

	private unknowable(call: RecordedCall, reason: UnknowableReason, message: string): SessionCallOutcome {
		// Added to `base` rather than spread from it: see `compare`.
		const status: SessionCallStatus = "unknowable";
		return Object.assign(this.base(call), { status, reason, message, seeded: false, rules: [] });
	}

	/** Compare our run with the recording; `explain` names what was known, for the message. */
	private compare(
		call: RecordedCall,
		ours: ToolRun,
		options: {
			seeded?: boolean;
			extraRules?: readonly string[];
			onDifference?: UnknowableReason;
			why?: string;
			/** A match proves only how our tool frames an answer taken from the recording (see `verifies`). */
			formatOnly?: boolean;
			/**
			 * A differing outcome will not be reported as a mismatch (the caller drops it or makes it
			 * unknowable): no diff is computed for it. Only mismatches carry one.
			 */
			noDiff?: boolean;
		} = {},
	): SessionCallOutcome {
		const recorded = call.result!;
		const recordedText = textOf(recorded.content);
		// Equal texts need no rules (most bash results); only differing ones are normalized.
		let expected: NormalizedText = { text: recordedText, isError: recorded.isError, rules: [] };
		let actual: NormalizedText = { text: ours.text, isError: ours.isError, rules: [] };
		let extra = options.extraRules ?? [];
		if (recordedText !== ours.text || recorded.isError !== ours.isError) {
			const context = { toolName: call.toolCall.name, args: argsOf(call.toolCall), isError: recorded.isError };
			expected = normalizeResultText(recordedText, context);
			actual = normalizeResultText(ours.text, { ...context, isError: ours.isError });
			if (expected.text !== actual.text && expected.isError === actual.isError) {
				const older = olderLimitsRule(call.toolCall.name, recordedText, ours.text);
				// Compared as far as our result goes: the same text on both sides.
				if (older) {
					expected = { ...actual, rules: expected.rules };
					extra = [...extra, older];
				}
			}
		}
		const rules =
			expected.rules.length + actual.rules.length + extra.length === 0
				? []
				: [...new Set([...expected.rules, ...actual.rules, ...extra])];
		const same = expected.text === actual.text && expected.isError === actual.isError;
		if (same) {
			// Added to `base` rather than spread from it: with spreads here and in `unknowable`, the
			// replay bench measured about 4.9× the parse on the built package instead of 4.2× (goal 5×).
			// Both sides hold the recorded string (equal to ours): our copy can die young instead of
			// living on in the report.
			const status: SessionCallStatus = "match";
			const verifies = options.formatOnly || options.seeded ? ("format" as const) : ("state" as const);
			return Object.assign(this.base(call), {
				verifies,
				seeded: options.seeded === true,
				rules,
				expected: { text: expected.text, isError: expected.isError },
				actual: { text: expected.text, isError: actual.isError },
				status,
				message: options.seeded ? "matched (page seeded from this result)" : "matched",
			});
		}
		const differing = Object.assign(this.base(call), {
			seeded: options.seeded === true,
			rules,
			expected: { text: expected.text, isError: expected.isError },
			actual: { text: actual.text, isError: actual.isError },
		});
		if (options.onDifference) {
			const status: SessionCallStatus = "unknowable";
			return Object.assign(differing, { status, reason: options.onDifference, message: options.why ?? "differs" });
		}
		const status: SessionCallStatus = "mismatch";
		const message = options.why ?? "our result differs from the recorded one";
		if (options.noDiff) return Object.assign(differing, { status, message });
		const diff =
			expected.isError !== actual.isError
				? `isError: recorded ${expected.isError}, ours ${actual.isError}\n${textDiff(expected.text, actual.text, { expected: "recorded", actual: "ours" })}`
				: textDiff(expected.text, actual.text, { expected: "recorded", actual: "ours" });
		return Object.assign(differing, { status, message, diff });
	}

	private async replayCall(call: RecordedCall, batch: RecordedBatch): Promise<SessionCallOutcome> {
		const name = call.toolCall.name;
		const definition = this.definitions.get(name);
		const ran = batch.stopReason !== "error" && batch.stopReason !== "aborted";
		if (!call.result) {
			// A call without a result in a message that ended normally may still have run.
			if (ran) this.assumeSideEffects(call, "a call whose result is missing");
			return this.unknowable(call, "no-result", "the recording holds no result (the call never ran)");
		}
		if (!definition) {
			this.assumeSideEffects(call, `the ${name} call`);
			return this.unknowable(call, "no-tool", `no tool named ${name} is being replayed`);
		}
		try {
			switch (name) {
				case "read":
					return await this.replayRead(call);
				case "edit":
					return await this.replayEdit(call);
				case "write":
					return await this.replayWrite(call);
				case "bash":
					return await this.replayBash(call);
				case "grep":
				case "find":
				case "ls":
					return await this.replaySearch(call);
				default: {
					const ours = await this.execute(call.toolCall);
					const outcome = withNestedCalls(this.compare(call, ours), call.result.nestedCalls, ours.nestedCalls);
					this.files.markAllStale(`the ${name} call ${call.index}`);
					return outcome;
				}
			}
		} catch (error) {
			// Only a bug in the replay itself gets here; report it on the call rather than stop.
			return {
				...this.base(call),
				status: "mismatch",
				message: `the replay failed: ${errorMessage(error)}`,
				seeded: false,
				rules: [],
			};
		}
	}

	private assumeSideEffects(call: RecordedCall, what: string): void {
		const name = call.toolCall.name;
		if (READ_ONLY_TOOLS.has(name)) return;
		const args = argsOf(call.toolCall);
		const path = typeof args?.path === "string" ? this.files.resolve(args.path) : undefined;
		if ((name === "edit" || name === "write") && path) this.files.markStale(path, what);
		else if (name === "bash" && typeof args?.command === "string" && !commandMayWrite(args.command)) return;
		else this.files.markAllStale(what);
	}

	private pathOf(call: RecordedCall): string | undefined {
		const args = argsOf(call.toolCall);
		const raw = args?.path ?? args?.file_path;
		return typeof raw === "string" ? this.files.resolve(raw) : undefined;
	}

	private async replayRead(call: RecordedCall): Promise<SessionCallOutcome> {
		const recorded = call.result!;
		const path = this.pathOf(call);
		const args = argsOf(call.toolCall);
		if (!path) return this.compare(call, await this.execute(call.toolCall));
		if (hasImageBlock(recorded.content)) {
			return this.unknowable(call, "image", "the recorded result is an image; its bytes are not in the recording");
		}
		const known = this.files.has(path);
		const stale = this.files.isStale(path);
		const staleWhy = this.files.staleReason(path);

		// The earliest releases returned a failed read as an ordinary `Error: …` result.
		if (recorded.isError || isUnflaggedReadError(textOf(recorded.content))) {
			if (!known) {
				// A failure that shows the file exists (an offset past its end, a folder, no permission)
				// depends on a file no result showed; only "it does not exist" can be checked here.
				const text = textOf(recorded.content);
				if (!NOT_FOUND.test(text)) {
					return this.unknowable(
						call,
						"unseen-file",
						`the recorded read failed on a file no result showed (${excerptOf(text)})`,
					);
				}
				// The recording says the file does not exist; the replay has no such file either (it
				// knows nothing of the path, so this checks the wording, not state).
				return this.compare(call, await this.execute(call.toolCall), { formatOnly: true });
			}
			const outcome = this.compare(call, await this.execute(call.toolCall), {
				...(stale ? { onDifference: "outside-change" as const, why: `the file may have changed (${staleWhy})` } : {}),
			});
			if (outcome.status !== "match") await this.files.forget(path);
			return outcome;
		}

		const offset = typeof args?.offset === "number" ? args.offset : undefined;
		const recordedText = textOf(recorded.content);
		const tooLong = tooLongLineFromRead(recordedText);
		if (tooLong !== undefined) {
			// The result shows no line, only that line N is longer than the byte limit: checkable
			// only when earlier calls showed that line.
			if (known && this.files.covers(path, { start: tooLong, count: 1, text: "", total: tooLong })) {
				return this.compare(call, await this.execute(call.toolCall), {
					...(stale ? { onDifference: "outside-change" as const, why: `the file may have changed (${staleWhy})` } : {}),
				});
			}
			return this.unknowable(
				call,
				"unseen-region",
				`the recorded read says only that line ${tooLong} is too long to show; no result showed that line`,
			);
		}
		const page = pageFromRead(recordedText, offset);
		if (!page)
			return this.unknowable(call, "unreadable-result", "the recorded page does not show which lines it holds");
		if (page.cut) {
			// The recorded release cut long lines short, so its page cannot equal ours: what it shows
			// goes into the file (the cut lines stay unknown), and a difference is unknowable.
			if ((await this.files.merge(path, page)).kind === "conflict") await this.files.seed(path, page);
			return this.compare(call, await this.execute(call.toolCall), {
				seeded: true,
				onDifference: "unseen-region",
				why: `the recorded release cut ${page.cut} line(s) to ${page.cutTo} characters; the rest of them is not in the recording`,
			});
		}

		if (known && this.files.covers(path, page)) {
			// Every line the page shows was known before this call: a true test of the state.
			const outcome = this.compare(call, await this.execute(call.toolCall), {
				why: "our read of the replayed file differs from the recorded read",
				// A stale file is read again below, and this outcome dropped.
				noDiff: stale,
			});
			if (outcome.status === "match") return outcome;
			// Later calls are judged against what the recording showed, not against our view.
			await this.files.seed(path, page);
			if (!stale) return outcome;
			return this.reseededRead(call, page, `the file had changed (${staleWhy}); its page is taken from this result`);
		}

		const merged = await this.files.merge(path, page);
		if (merged.kind !== "conflict") return this.seededRead(call, path, offset, page);
		// The page contradicts lines known before: an outside change if the file is stale (the read
		// itself is then checked against its own page), else a real difference (our earlier calls
		// left the file otherwise than the recorded ones did).
		await this.files.seed(path, page);
		if (stale) {
			return this.reseededRead(
				call,
				page,
				`the file had changed (${staleWhy}: ${merged.message}); its page is taken from this result`,
			);
		}
		const outcome = this.compare(call, await this.execute(call.toolCall), { seeded: true });
		return {
			...outcome,
			status: "mismatch",
			message: `the recorded read contradicts the replayed file: ${merged.message}`,
			seeded: false,
			diff: outcome.diff ?? merged.message,
		};
	}

	/** A read of a file that changed outside the recorded calls, checked against its own page. */
	private async reseededRead(call: RecordedCall, page: RevealedPage, note: string): Promise<SessionCallOutcome> {
		const args = argsOf(call.toolCall);
		const path = this.pathOf(call)!;
		const offset = typeof args?.offset === "number" ? args.offset : undefined;
		const outcome = await this.seededRead(call, path, offset, page);
		return { ...outcome, message: `${outcome.message}; ${note}` };
	}

	/**
	 * A read checked against the page it revealed. Where our read shows that page's lines and then
	 * more, some of them unknown (a byte limit cuts the page where the lines' lengths add up, and
	 * the replay does not know the lengths of lines no result showed), the difference is unknowable;
	 * any other difference is a mismatch.
	 */
	private async seededRead(
		call: RecordedCall,
		path: string,
		offset: number | undefined,
		page: RevealedPage,
	): Promise<SessionCallOutcome> {
		const ours = await this.execute(call.toolCall);
		const outcome = this.compare(call, ours, {
			seeded: true,
			why: "our read differs from the recorded read of the same lines",
		});
		if (outcome.status === "match" || ours.isError) return outcome;
		const ourPage = pageFromRead(ours.text, offset);
		if (ourPage === undefined || ourPage.count <= page.count || this.files.covers(path, ourPage)) return outcome;
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
	private async replaySearch(call: RecordedCall): Promise<SessionCallOutcome> {
		const name = call.toolCall.name;
		const args = argsOf(call.toolCall);
		const given = typeof args?.path === "string" && args.path !== "" ? args.path : ".";
		const path = this.files.resolve(given);
		if (path === undefined || !this.files.has(path)) {
			return this.unknowable(
				call,
				"unseen-folder",
				`${name} looks at everything under ${JSON.stringify(given)}, and no recorded result showed its full contents`,
			);
		}
		if (name === "grep" && this.files.partial(path) !== false) {
			return this.unknowable(
				call,
				"unseen-region",
				`grep searches every line of ${JSON.stringify(given)}, and no recorded result showed all of them`,
			);
		}
		const stale = this.files.isStale(path);
		return this.compare(call, await this.execute(call.toolCall), {
			why: `our ${name} of the replayed file differs from the recorded one`,
			...(stale
				? {
						onDifference: "outside-change" as const,
						why: `the file may have changed (${this.files.staleReason(path)})`,
					}
				: {}),
		});
	}

	private async replayWrite(call: RecordedCall): Promise<SessionCallOutcome> {
		const path = this.pathOf(call);
		const ours = await this.execute(call.toolCall);
		if (path && !ours.isError) {
			const content = this.files.content(path);
			if (content !== undefined) await this.files.setContent(path, content);
		}
		// A write's report depends only on the call itself.
		return this.compare(call, ours, { formatOnly: true });
	}

	private async replayEdit(call: RecordedCall): Promise<SessionCallOutcome> {
		const recorded = call.result!;
		const path = this.pathOf(call);
		if (!path) return this.compare(call, await this.execute(call.toolCall));
		if (!this.files.has(path)) {
			// Only "it does not exist" can be checked on a file no result showed (the replay has none).
			if (recorded.isError && isEditNoFileError(textOf(recorded.content))) {
				return this.compare(call, await this.execute(call.toolCall), { formatOnly: true });
			}
			return this.unknowable(call, "unseen-file", "no recorded result showed this file before the edit");
		}
		const stale = this.files.isStale(path);
		const staleWhy = this.files.staleReason(path);
		// The recorded diff shows some lines of the file as it was just before the edit; where the
		// replay did not know them, they are taken from there (the edit is then marked seeded). A file
		// without unknown lines has nothing to take.
		const filled =
			recorded.isError || this.files.partial(path) !== true
				? 0
				: await this.files.fillLines(path, this.diffLinesBefore(path, recorded.details));
		const before = this.files.content(path) ?? "";
		const partial = this.files.partial(path) === true;
		// Taken now: the line index of the file before our edit (shared with the recorded env's cache).
		const beforeLines = this.files.lines(path) ?? new FileLines("");
		const ours = await this.execute(call.toolCall);
		// A difference on a partly known file may come from lines no result showed; on a stale one,
		// from a change outside the recorded calls: either is unknowable.
		let onDifference: UnknowableReason | undefined;
		let why = "our edit result differs from the recorded one";
		if (partial) {
			onDifference = "unseen-region";
			why = "the edit depends on lines of the file no recorded result showed";
		} else if (stale) {
			onDifference = "outside-change";
			why = `the file may have changed (${staleWhy})`;
		}
		const outcome = this.compare(call, ours, { seeded: filled > 0, onDifference, why });

		if (outcome.status === "match") {
			if (!ours.isError) return await this.checkEditEffect(call, path, before, beforeLines, outcome);
			return outcome;
		}
		// The results differ. Undo our change if the recording says the file was left alone.
		if (!ours.isError && recorded.isError) await this.files.env.writeFile(path, before);
		if (onDifference !== undefined) {
			// The recorded edit changed the real file: bring ours along where its diff allows.
			if (!recorded.isError) await this.followRecordedEdit(call, path, before, ours.isError);
			return outcome;
		}
		if (!recorded.isError) await this.files.forget(path);
		return outcome;
	}

	/**
	 * Releases from 0.37 on diff a CRLF file with its line breaks made LF (earlier ones kept the
	 * carriage returns): in such a file, a diff line stands for a line that ends with one.
	 */
	private crlf(path: string): boolean {
		return this.files.content(path)?.includes("\r\n") === true;
	}

	private diffLinesBefore(path: string, details: unknown): Map<number, string> {
		const lines = linesBeforeFromDiff(details);
		if (!this.crlf(path)) return lines;
		return new Map([...lines].map(([line, text]) => [line, withCR(text)]));
	}

	private diffChangedLines(path: string, details: unknown): ReturnType<typeof changedLinesFromDiff> {
		const changed = changedLinesFromDiff(details);
		if (!changed || !this.crlf(path)) return changed;
		return changed.map((entry) => ({ ...entry, text: withCR(entry.text) }));
	}

	/**
	 * The recorded edit worked but ours could not be replayed. The file changed in reality, so
	 * either its recorded diff brings the replayed file along (the changed lines carry their line
	 * numbers), or nothing about the file can be trusted any more.
	 */
	private async followRecordedEdit(
		call: RecordedCall,
		path: string,
		before: string,
		oursFailed: boolean,
	): Promise<void> {
		// Our edit failed and left the file as it was; else its change is undone first.
		if (!oursFailed) await this.files.env.writeFile(path, before);
		const changed = this.diffChangedLines(path, call.result!.details);
		if (!changed || !(await this.files.applyChangedLines(path, changed))) await this.files.forget(path);
	}

	/**
	 * The recorded diff names changed lines with their numbers; our file after the edit must agree.
	 * The recorded agent applied `newText` through `String.prototype.replace`, which expands `$$`,
	 * `$&`, `` $` `` and `$'`: where that explains a disagreement, the file takes the recorded
	 * agent's text (rule `edit-dollar-patterns`), so later calls see what the real file held.
	 */
	private async checkEditEffect(
		call: RecordedCall,
		path: string,
		before: string,
		beforeLines: FileLines,
		outcome: SessionCallOutcome,
	): Promise<SessionCallOutcome> {
		this.files.touch(path);
		const changed = this.diffChangedLines(path, call.result!.details);
		if (!changed || changed.length === 0) return outcome;
		const afterLines = this.files.lines(path) ?? new FileLines("");
		const problem = diffDisagreement(changed, beforeLines, afterLines);
		if (!problem) return outcome;
		const args = argsOf(call.toolCall);
		const oldText = typeof args?.oldText === "string" ? args.oldText : undefined;
		const newText = typeof args?.newText === "string" ? args.newText : undefined;
		if (oldText !== undefined && newText !== undefined && /\$[$&`']/.test(newText)) {
			const expanded = before.replace(oldText, newText);
			if (!diffDisagreement(changed, beforeLines, new FileLines(expanded))) {
				await this.files.env.writeFile(path, expanded);
				return { ...outcome, rules: [...outcome.rules, "edit-dollar-patterns"] };
			}
		}
		const stale = this.files.isStale(path);
		const staleWhy = this.files.staleReason(path);
		await this.files.forget(path);
		if (stale) {
			return {
				...outcome,
				status: "unknowable",
				reason: "outside-change",
				message: `the recorded diff disagrees with the replayed file, which may have changed (${staleWhy}): ${problem}`,
			};
		}
		return {
			...outcome,
			status: "mismatch",
			message: `the file after our edit disagrees with the recorded diff: ${problem}`,
			diff: problem,
		};
	}

	private async replayBash(call: RecordedCall): Promise<SessionCallOutcome> {
		const recorded = call.result!;
		const args = argsOf(call.toolCall);
		const command = typeof args?.command === "string" ? args.command : undefined;
		if (command === undefined) return this.compare(call, await this.execute(call.toolCall), { formatOnly: true });
		const mayWrite = commandMayWrite(command);
		const answer = commandFromBash(textOf(recorded.content), recorded.isError);
		let outcome: SessionCallOutcome;
		if ("unknowable" in answer) {
			outcome = this.unknowable(call, answer.unknowable, answer.why);
		} else if (answer.aborted) {
			// Replay the abort: the output is written, then the batch's signal fires.
			const controller = new AbortController();
			this.files.env.scriptOnce(command, {
				run: async (_c, ctx) => {
					if (answer.output) ctx.stdout(answer.output);
					queueMicrotask(() => controller.abort());
					await new Promise<void>((resolve) => {
						if (ctx.signal.aborted) resolve();
						else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
					});
					return undefined;
				},
			});
			outcome = this.compare(call, await this.execute(call.toolCall, controller.signal), { formatOnly: true });
		} else {
			this.files.env.expect({ command, output: answer.output, exitCode: answer.exitCode });
			// The command is answered with its recorded output: only our framing is checked.
			outcome = this.compare(call, await this.execute(call.toolCall), { formatOnly: true });
		}
		if (mayWrite) this.files.markAllStale(() => `the command ${JSON.stringify(shorten(command))} (call ${call.index})`);
		return outcome;
	}
}

function withCR(text: string): string {
	return text.endsWith("\r") ? text : `${text}\r`;
}

function shorten(text: string): string {
	const line = text.split("\n")[0] ?? "";
	return line.length > 60 || text.includes("\n") ? `${line.slice(0, 60)}…` : line;
}

/** The first changed line of a recorded diff that the before/after lines contradict. */
function diffDisagreement(
	changed: readonly { kind: "-" | "+"; line: number; text: string }[],
	before: FileLines,
	after: FileLines,
): string | undefined {
	for (const entry of changed) {
		const lines = entry.kind === "-" ? before : after;
		const held = lines.line(entry.line - 1);
		if (held === UNKNOWN_LINE) continue;
		if (held !== entry.text) {
			const side = entry.kind === "-" ? "before" : "after";
			return `recorded diff line ${entry.kind}${entry.line} is ${JSON.stringify(entry.text)}, the replayed file ${side} the edit has ${held === undefined ? "no such line" : JSON.stringify(held)}`;
		}
	}
	return undefined;
}

/**
 * Replay every call of a recorded session through our tools and classify each one. Never rejects
 * for a problem with a single call (that call is reported); rejects only when `onCall` throws.
 */
export async function replaySession(
	session: RecordedSession,
	options: ReplaySessionOptions = {},
): Promise<SessionReplayReport> {
	return new SessionReplayer(session, options).run();
}

/** The ids and one-line descriptions of every rule, for reports and docs. */
export const NORMALIZATION_RULES: readonly { readonly id: string; readonly summary: string }[] = RULE_SUMMARIES;

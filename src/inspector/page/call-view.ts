/**
 * A call on screen (its rendered call and result, what the model gets, the raw JSON, the partial
 * updates as they come) and the history of calls. Rendered lines go through `ansiToHtml`, the only
 * HTML the page inserts; everything else is text.
 */
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import type { InspectorCall, InspectorNestedCall, RenderedView } from "../protocol.js";
import { ansiToHtml } from "./ansi.js";
import {
	argsSummary,
	contentBlocks,
	formatClock,
	formatDuration,
	member,
	nestedChildren,
	prettyJson,
} from "./state.js";

/** Links in rendered output open in a new tab, never in place of the page. */
function openLinksElsewhere(event: MouseEvent): void {
	const anchor = (event.target as Element | null)?.closest?.("a[href]");
	if (!(anchor instanceof HTMLAnchorElement)) return;
	event.preventDefault();
	if (/^https?:/i.test(anchor.href)) window.open(anchor.href, "_blank", "noopener,noreferrer");
}

/** ANSI lines as coloured monospace text. */
export function Ansi(props: { lines: readonly string[]; testid?: string; class?: string }) {
	return html`<pre
		class=${`ansi ${props.class ?? ""}`}
		data-testid=${props.testid}
		onClick=${openLinksElsewhere}
		dangerouslySetInnerHTML=${{ __html: ansiToHtml(props.lines) }}
	></pre>`;
}

function Rendered(props: { view: RenderedView | undefined; testid: string; empty: string }) {
	if (!props.view) return html`<pre class="ansi muted" data-testid=${props.testid}>${props.empty}</pre>`;
	return html`<div class="rendered">
		<${Ansi} lines=${props.view.lines} testid=${props.testid} />
		${props.view.error ? html`<div class="render-error" data-testid="render-error">renderer threw: ${props.view.error}</div>` : null}
	</div>`;
}

/** The current time, refreshed every `everyMs` while `active`. */
function useNow(active: boolean, everyMs = 250): number {
	const [now, setNow] = useState(Date.now());
	useEffect(() => {
		if (!active) return;
		const timer = setInterval(() => setNow(Date.now()), everyMs);
		return () => clearInterval(timer);
	}, [active, everyMs]);
	return now;
}

const STATUS_TEXT: Record<InspectorCall["status"], string> = {
	running: "running",
	ok: "ok",
	error: "error",
	aborted: "aborted",
};

export function StatusBadge(props: { status: InspectorCall["status"] }) {
	return html`<span class=${`status status-${props.status}`}>${STATUS_TEXT[props.status]}</span>`;
}

function ContentBlocks(props: { call: InspectorCall }) {
	const blocks = contentBlocks(props.call.result);
	return html`<div class="content-blocks" data-testid="content-blocks">
		${props.call.result === undefined ? html`<div class="muted small">no result yet</div>` : null}
		${props.call.result !== undefined && blocks.length === 0 ? html`<div class="muted small">no content blocks</div>` : null}
		${blocks.map((block, index) => {
			switch (block.type) {
				case "text":
					return html`<pre class="block text" key=${index}>${block.text}</pre>`;
				case "image":
					return html`<figure class="block image" key=${index}>
						<img src=${`data:${block.mimeType};base64,${block.data}`} alt=${`image block ${index + 1} (${block.mimeType})`} />
						<figcaption class="muted small">${block.mimeType}</figcaption>
					</figure>`;
				default:
					return html`<pre class="block other" key=${index}>${prettyJson(block.json)}</pre>`;
			}
		})}
	</div>`;
}

/**
 * A call a tool made through `ctx.executeTool`, drawn with the called tool's renderers: its call,
 * its latest partial while it runs, then its result; the calls it made in turn below it.
 */
function NestedCallView(props: { call: InspectorNestedCall; all: readonly InspectorNestedCall[] }) {
	const { call, all } = props;
	const running = call.status === "running";
	const latest = call.updates.at(-1);
	const children = nestedChildren(all, call.toolCallId);
	return html`<li
		class="nested-call"
		data-testid="nested-call"
		data-tool-call-id=${call.toolCallId}
		data-parent-id=${call.parentToolCallId}
		data-status=${call.status}
	>
		<div class="nested-head">
			<span class="muted">↳</span>
			<${StatusBadge} status=${call.status} />
			<strong>${call.tool}</strong>
			<code class="muted small">${call.toolCallId}</code>
			<span class="muted small" data-testid="nested-duration">${call.durationMs !== undefined ? formatDuration(call.durationMs) : ""}</span>
			<span class="muted small" data-testid="nested-updates">${call.updates.length > 0 ? `${call.updates.length} update${call.updates.length === 1 ? "" : "s"}` : ""}</span>
		</div>
		<${Rendered} view=${call.renderedCall} testid="nested-rendered-call" empty="(nothing rendered)" />
		${
			running
				? latest
					? html`<${Ansi} lines=${latest.rendered.lines} testid="nested-live" class="live" />`
					: html`<pre class="ansi muted" data-testid="nested-live">…</pre>`
				: html`<${Rendered} view=${call.renderedResult} testid="nested-rendered-result" empty="(no result)" />`
		}
		${
			children.length > 0
				? html`<ol class="nested-calls">
						${children.map((child) => html`<${NestedCallView} call=${child} all=${all} key=${child.toolCallId} />`)}
					</ol>`
				: null
		}
	</li>`;
}

/** The calls a call's tool made: those whose caller is not itself among them first, each with its own below it. */
function NestedCalls(props: { nested: readonly InspectorNestedCall[] }) {
	const ids = new Set(props.nested.map((n) => n.toolCallId));
	const top = props.nested.filter((n) => !ids.has(n.parentToolCallId));
	return html`<div class="pane" data-testid="nested-calls">
		<h4>Nested calls <span class="muted small">${props.nested.length} through ctx.executeTool</span></h4>
		<ol class="nested-calls">
			${top.map((n) => html`<${NestedCallView} call=${n} all=${props.nested} key=${n.toolCallId} />`)}
		</ol>
	</div>`;
}

/**
 * One call: header, rendered call, live partial (while running), rendered result, the calls its tool
 * made, content, updates, JSON.
 */
export function CallView(props: { call: InspectorCall }) {
	const { call } = props;
	const running = call.status === "running";
	const now = useNow(running);
	const latest = call.updates.at(-1);
	const isError = member(call.result, "isError") === true;
	return html`<section class="call-view" data-testid="call-view" data-call-id=${call.id} data-status=${call.status}>
		<header class="call-head">
			<${StatusBadge} status=${call.status} />
			<strong>${call.tool}</strong>
			<code class="muted">${call.id}</code>
			<span class="muted">at ${formatClock(call.startedAt)}</span>
			<span class="duration" data-testid="duration"
				>${call.durationMs !== undefined ? formatDuration(call.durationMs) : running ? `${formatDuration(now - call.startedAt)}…` : "—"}</span
			>
			${isError && call.status !== "error" ? html`<span class="status status-error">isError</span>` : null}
			${call.recordable ? null : html`<span class="muted small" title="Aborted calls and calls made elsewhere are left out of fixtures">not recordable</span>`}
		</header>
		<div class="pane">
			<h4>Call <span class="muted small">(renderCall)</span></h4>
			<${Rendered} view=${call.renderedCall} testid="rendered-call" empty="(nothing rendered)" />
		</div>
		${
			running
				? html`<div class="pane live">
						<h4>Live <span class="muted small">${latest ? `update ${call.updates.length} at +${formatDuration(latest.atMs)}` : "waiting for updates"}</span></h4>
						${
							latest
								? html`<${Ansi} lines=${latest.rendered.lines} testid="live-partial" />`
								: html`<pre class="ansi muted" data-testid="live-partial">…</pre>`
						}
					</div>`
				: null
		}
		<div class="pane">
			<h4>Result <span class="muted small">(renderResult)</span></h4>
			<${Rendered} view=${call.renderedResult} testid="rendered-result" empty=${running ? "(running)" : "(no result)"} />
		</div>
		${call.nested && call.nested.length > 0 ? html`<${NestedCalls} nested=${call.nested} />` : null}
		<div class="pane">
			<h4>Content <span class="muted small">what the model gets</span></h4>
			<${ContentBlocks} call=${call} />
		</div>
		<div class="pane">
			<h4>Updates <span class="muted small">${call.updates.length}</span></h4>
			<ol class="updates" data-testid="updates">
				${call.updates.length === 0 ? html`<li class="muted small">none</li>` : null}
				${call.updates.map(
					(update, index) => html`<li class="update" data-testid="update" key=${index}>
						<span class="update-time">+${formatDuration(update.atMs)}</span>
						<${Ansi} lines=${update.rendered.lines} />
					</li>`,
				)}
			</ol>
		</div>
		<div class="json-grid">
			<div class="pane">
				<h4>Arguments</h4>
				<pre class="json">${prettyJson(call.args)}</pre>
			</div>
			<div class="pane">
				<h4>details</h4>
				<pre class="json" data-testid="details">${prettyJson(member(call.result, "details"))}</pre>
			</div>
		</div>
		<div class="pane">
			<h4>Raw result</h4>
			<pre class="json" data-testid="raw-result">${prettyJson(call.result)}</pre>
		</div>
	</section>`;
}

/** The calls, newest first; each can be shown or run again. */
export function History(props: {
	calls: readonly InspectorCall[];
	selected: string | undefined;
	onSelect: (id: string) => void;
	onRerun: (call: InspectorCall) => void;
}) {
	const calls = [...props.calls].reverse();
	return html`<ol class="history" data-testid="history">
		${calls.length === 0 ? html`<li class="muted small empty">No calls yet.</li>` : null}
		${calls.map(
			(call) => html`<li
				key=${call.id}
				class=${`history-item ${call.id === props.selected ? "selected" : ""}`}
				data-testid="history-item"
				data-call-id=${call.id}
				data-status=${call.status}
				role="button"
				tabindex="0"
				onClick=${() => props.onSelect(call.id)}
				onKeyDown=${(event: KeyboardEvent) => {
					if (event.target === event.currentTarget && (event.key === "Enter" || event.key === " ")) {
						event.preventDefault();
						props.onSelect(call.id);
					}
				}}
			>
				<div class="history-line">
					<${StatusBadge} status=${call.status} />
					<strong>${call.tool}</strong>
					<span class="muted small call-id">${call.id}</span>
					<span class="spacer"></span>
					<span class="muted small">${call.durationMs !== undefined ? formatDuration(call.durationMs) : ""}</span>
					<button
						type="button"
						class="small-button"
						data-testid="rerun"
						title="Run again with the same arguments"
						onClick=${(event: MouseEvent) => {
							event.stopPropagation();
							props.onRerun(call);
						}}
					>
						re-run
					</button>
				</div>
				<code class="history-args">${argsSummary(call.args)}</code>
			</li>`,
		)}
	</ol>`;
}

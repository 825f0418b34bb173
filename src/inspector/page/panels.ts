/**
 * The page's frame around the tool: the connection indicator, the error banner, and the left
 * column's panels (the tool list, the diagnostics, the reload log).
 */
import { html } from "htm/preact";
import { useEffect, useRef } from "preact/hooks";
import type { InspectorTool } from "../protocol.js";
import { stripAnsi } from "./ansi.js";
import { Ansi } from "./call-view.js";
import { formatClock, type PageModel } from "./state.js";

export function Connection(props: { open: boolean }) {
	return html`<span class="connection" data-testid="connection" data-state=${props.open ? "open" : "closed"} title=${props.open ? "Receiving live events" : "Not connected: trying again"}>
		<span class="dot"></span>${props.open ? "live" : "disconnected"}
	</span>`;
}

export function ErrorBanner(props: { errors: readonly string[]; onDismiss: () => void }) {
	if (props.errors.length === 0) return null;
	return html`<div class="error-banner" data-testid="error-banner" role="alert">
		<div class="error-list">
			${props.errors.map((error, index) => html`<div key=${index}>${error}</div>`)}
		</div>
		<button type="button" class="icon" title="Dismiss" onClick=${props.onDismiss}>×</button>
	</div>`;
}

export function ToolList(props: {
	tools: readonly InspectorTool[];
	selected: string | undefined;
	marked: ReadonlyMap<string, number>;
	onSelect: (name: string) => void;
}) {
	return html`<ul class="tool-list" data-testid="tool-list">
		${props.tools.length === 0 ? html`<li class="muted small empty">No tools.</li>` : null}
		${props.tools.map((tool) => {
			const errors = tool.diagnostics.filter((diagnostic) => diagnostic.severity === "error").length;
			const count = tool.diagnostics.length;
			return html`<li
				key=${tool.name}
				class=${`tool-item ${tool.name === props.selected ? "selected" : ""} ${props.marked.has(tool.name) ? "changed" : ""}`}
				data-testid="tool-item"
				data-tool=${tool.name}
				data-kind=${tool.kind}
				data-mode=${tool.mode}
				data-changed=${props.marked.has(tool.name) ? "true" : undefined}
				data-diagnostics=${count}
				role="button"
				tabindex="0"
				aria-current=${tool.name === props.selected ? "true" : undefined}
				onClick=${() => props.onSelect(tool.name)}
				onKeyDown=${(event: KeyboardEvent) => {
					if (event.key === "Enter" || event.key === " ") {
						event.preventDefault();
						props.onSelect(tool.name);
					}
				}}
			>
				<div class="tool-line">
					<span class="tool-name">${tool.name}</span>
					<span class=${`badge kind-${tool.kind}`}>${tool.kind === "builtin" ? "built-in" : tool.kind}</span>
					${tool.mode === "sequential" ? html`<span class="badge mode" title="Runs alone, never in parallel">sequential</span>` : null}
					<span class="spacer"></span>
					${
						count > 0
							? html`<span class=${`badge ${errors > 0 ? "diag-error" : "diag-warning"}`} title=${`${count} diagnostic${count === 1 ? "" : "s"}`}
									>${count}</span
								>`
							: null
					}
				</div>
				<div class="tool-source">${tool.source ?? "built-in"}</div>
			</li>`;
		})}
	</ul>`;
}

export function Diagnostics(props: { model: PageModel }) {
	const { diagnostics } = props.model;
	return html`<div class="diagnostics" data-testid="diagnostics">
		${diagnostics.length === 0 ? html`<div class="muted small empty">No diagnostics.</div>` : null}
		${diagnostics.map(
			(
				diagnostic,
				index,
			) => html`<div key=${index} class=${`diagnostic severity-${diagnostic.severity}`} data-testid="diagnostic">
				${stripAnsi(diagnostic.text)}
			</div>`,
		)}
	</div>`;
}

export function ReloadLog(props: { model: PageModel }) {
	const ref = useRef<HTMLDivElement>(null);
	const count = props.model.reloads.length;
	useEffect(() => {
		const element = ref.current;
		if (element && count > 0) element.scrollTop = element.scrollHeight;
	}, [count]);
	return html`<div class="reload-log" data-testid="reload-log" ref=${ref}>
		${count === 0 ? html`<div class="muted small empty">No reloads yet.</div>` : null}
		${props.model.reloads.map((reload, index) => {
			const lines =
				reload.lines.length > 0 ? reload.lines : [`${reload.kind} ${reload.path} ${reload.ok ? "ok" : "failed"}`];
			return html`<div
				key=${index}
				class=${`reload-line ${reload.ok ? "ok" : "failed"}`}
				data-testid="reload-line"
				title=${`${formatClock(reload.at)} · ${reload.path}`}
			>
				<${Ansi} lines=${lines} />
			</div>`;
		})}
	</div>`;
}

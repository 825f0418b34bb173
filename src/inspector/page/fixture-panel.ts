/** Save as fixture: a name, the Save button, and where the fixture went and how to replay it. */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import type { FixtureResponse } from "../protocol.js";
import { api, messageOf } from "./api.js";

export function FixturePanel(props: { recordable: number; onError: (message: string) => void }) {
	const [name, setName] = useState("");
	const [busy, setBusy] = useState(false);
	const [result, setResult] = useState<FixtureResponse | undefined>();
	const [error, setError] = useState<string | undefined>();
	const save = async () => {
		setBusy(true);
		setError(undefined);
		try {
			const trimmed = name.trim();
			setResult(await api.fixture(trimmed === "" ? {} : { name: trimmed }));
		} catch (caught) {
			setResult(undefined);
			setError(messageOf(caught));
			props.onError(messageOf(caught));
		} finally {
			setBusy(false);
		}
	};
	return html`<div class="fixture">
		<div class="fixture-form">
			<input
				type="text"
				class="input"
				data-testid="fixture-name"
				placeholder="inspector-<date>"
				aria-label="Fixture name"
				value=${name}
				onInput=${(event: Event) => setName((event.currentTarget as HTMLInputElement).value)}
				onKeyDown=${(event: KeyboardEvent) => {
					if (event.key === "Enter") void save();
				}}
			/>
			<button type="button" data-testid="save-fixture" disabled=${busy} onClick=${() => void save()}>Save</button>
		</div>
		<div class="muted small">${props.recordable} recordable call${props.recordable === 1 ? "" : "s"} this session.</div>
		${error ? html`<div class="inline-error" data-testid="fixture-error">${error}</div>` : null}
		${
			result
				? html`<div class="fixture-result" data-testid="fixture-result">
						<div>Wrote <code class="path">${result.displayPath}</code></div>
						<div>${result.calls} call${result.calls === 1 ? "" : "s"}</div>
						${
							result.warnings.length > 0
								? html`<ul class="warnings">
										${result.warnings.map((warning, index) => html`<li key=${index}>${warning}</li>`)}
									</ul>`
								: null
						}
						<div class="small">Replay it with:</div>
						<pre class="command">${result.command}</pre>
					</div>`
				: null
		}
	</div>`;
}

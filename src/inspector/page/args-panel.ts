/**
 * The selected tool's arguments in the Call tab: the form (or raw JSON), each field's problems, the
 * validation, and the Call and Abort buttons (Ctrl+Enter calls).
 */
import { html } from "htm/preact";
import { useMemo } from "preact/hooks";
import type { InspectorTool } from "../protocol.js";
import {
	type FieldSpec,
	type FieldValue,
	type FormState,
	fieldPointers,
	placeProblems,
	setRawText,
	setValue,
	toggleRaw,
} from "./form.js";
import { ArgsFields } from "./form-view.js";
import type { Validation } from "./hooks.js";
import { ValidationView } from "./tab-views.js";

export function ArgsPanel(props: {
	tool: InspectorTool;
	form: FormState;
	validation: Validation | undefined;
	/** The call shown now is running: Abort is enabled. */
	running: boolean;
	onUpdateForm: (change: (form: FormState) => FormState) => void;
	onCall: () => void;
	onAbort: () => void;
}) {
	const { tool, form, validation, onUpdateForm: updateForm } = props;
	const editValue = (change: (spec: FieldSpec, value: FieldValue) => FieldValue) =>
		updateForm((current) => setValue(current, change(current.spec, current.value)));
	const placed = useMemo(() => {
		if (form.raw || validation?.state !== "error") return { byField: new Map(), general: [] };
		return placeProblems(fieldPointers(form.spec, form.value), validation.problems);
	}, [form, validation]);
	return html`<section class="args">
		<div class="args-bar">
			<h3>Arguments</h3>
			<span class="spacer"></span>
			<button type="button" class="small-button" data-testid="raw-toggle" aria-pressed=${form.raw} onClick=${() => updateForm(toggleRaw)}>
				${form.raw ? "Back to the form" : "Raw JSON"}
			</button>
		</div>
		${form.note ? html`<div class="note-box" data-testid="raw-note">${form.note}</div>` : null}
		<div
			class="args-form"
			data-testid="args-form"
			onKeyDown=${(event: KeyboardEvent) => {
				if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
					event.preventDefault();
					props.onCall();
				}
			}}
		>
			${
				form.raw
					? html`<textarea
							class="input json raw"
							data-testid="raw-json"
							aria-label="Arguments as JSON"
							spellcheck=${false}
							rows=${Math.max(6, Math.min(24, form.rawText.split("\n").length + 1))}
							value=${form.rawText}
							onInput=${(event: Event) => {
								const text = (event.currentTarget as HTMLTextAreaElement).value;
								updateForm((current) => setRawText(current, text));
							}}
						></textarea>`
					: html`<${ArgsFields} spec=${form.spec} value=${form.value} problems=${placed.byField} onEdit=${editValue} />`
			}
		</div>
		<${ValidationView} validation=${validation} />
		<div class="actions">
			<button type="button" class="primary" data-testid="call-button" onClick=${props.onCall} title="Run the tool with these arguments, valid or not (Ctrl+Enter)">
				Call ${tool.name}
			</button>
			<button
				type="button"
				data-testid="abort-button"
				disabled=${!props.running}
				onClick=${props.onAbort}
			>
				Abort
			</button>
			<span class="muted small">Runs even when invalid: you see what the model would get.</span>
		</div>
	</section>`;
}

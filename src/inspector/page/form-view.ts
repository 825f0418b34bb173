/**
 * The arguments form on screen: one input per field of the model in `form.ts`, each marked with
 * `data-field="<json pointer>"`, optional properties with an include checkbox, arrays with add
 * and remove buttons, and the validation problems of each field under it.
 */
import { html } from "htm/preact";
import type { VNode } from "preact";
import type { ValidationProblem } from "../protocol.js";
import {
	addItem,
	escapePointer,
	type FieldSpec,
	type FieldValue,
	optionLabel,
	parseNumber,
	removeItem,
	setChecked,
	setEnumIndex,
	setIncluded,
	setText,
} from "./form.js";

/** What every field needs: the root spec, a way to change the root value, the problems by field. */
interface FormContext {
	readonly root: FieldSpec;
	readonly edit: (change: (spec: FieldSpec, value: FieldValue) => FieldValue) => void;
	readonly problems: ReadonlyMap<string, readonly ValidationProblem[]>;
}

function idOf(pointer: string): string {
	return `field:${pointer}`;
}

function inputText(event: Event): string {
	return (event.currentTarget as HTMLInputElement | HTMLTextAreaElement).value;
}

/** Rows a textarea needs for its text, within limits. */
function rowsFor(text: string, min: number, max: number): number {
	return Math.max(min, Math.min(max, text.split("\n").length));
}

function FieldProblems(props: { problems: readonly ValidationProblem[] | undefined }) {
	if (!props.problems || props.problems.length === 0) return null;
	return html`<ul class="field-problems">
		${props.problems.map((problem) => html`<li data-testid="field-problem">${problem.message}</li>`)}
	</ul>`;
}

/** The input (or group of inputs) of one field, without its label. */
function Control(props: {
	spec: FieldSpec;
	value: FieldValue;
	pointer: string;
	ctx: FormContext;
	inArray: boolean;
}): VNode {
	const { spec, value, pointer, ctx, inArray } = props;
	const id = idOf(pointer);
	const invalid = (ctx.problems.get(pointer)?.length ?? 0) > 0;
	switch (spec.kind) {
		case "string": {
			const text = value.kind === "text" ? value.text : "";
			return html`<textarea
				id=${id}
				class="input string"
				data-field=${pointer}
				aria-invalid=${invalid ? "true" : undefined}
				rows=${rowsFor(text, 1, 10)}
				spellcheck=${false}
				value=${text}
				onInput=${(event: Event) => {
					const next = inputText(event);
					ctx.edit((root, current) => setText(root, current, pointer, next));
				}}
			></textarea>`;
		}
		case "number":
		case "integer": {
			const text = value.kind === "text" ? value.text : "";
			const notNumber = text.trim() !== "" && parseNumber(text) === undefined;
			return html`<span class="number-wrap">
				<input
					id=${id}
					class="input number"
					type="text"
					inputmode="decimal"
					autocomplete="off"
					data-field=${pointer}
					aria-invalid=${invalid ? "true" : undefined}
					value=${text}
					onInput=${(event: Event) => {
						const next = inputText(event);
						ctx.edit((root, current) => setText(root, current, pointer, next));
					}}
				/>
				${notNumber ? html`<span class="note">not a number: sent as the text typed</span>` : null}
			</span>`;
		}
		case "json": {
			const text = value.kind === "text" ? value.text : "";
			let parses = true;
			if (text.trim() !== "") {
				try {
					JSON.parse(text);
				} catch {
					parses = false;
				}
			}
			return html`<span class="json-wrap">
				<textarea
					id=${id}
					class="input json"
					data-field=${pointer}
					aria-invalid=${invalid ? "true" : undefined}
					rows=${rowsFor(text, 2, 12)}
					spellcheck=${false}
					placeholder="JSON"
					value=${text}
					onInput=${(event: Event) => {
						const next = inputText(event);
						ctx.edit((root, current) => setText(root, current, pointer, next));
					}}
				></textarea>
				${parses ? null : html`<span class="note">not JSON: sent as a string</span>`}
			</span>`;
		}
		case "boolean": {
			const checked = value.kind === "boolean" && value.checked;
			// Labelled with the value it sends, so it is not mistaken for an optional field's include box.
			return html`<label class="bool-value">
				<input
					id=${id}
					type="checkbox"
					class="bool"
					data-field=${pointer}
					checked=${checked}
					onChange=${(event: Event) => {
						const next = (event.currentTarget as HTMLInputElement).checked;
						ctx.edit((root, current) => setChecked(root, current, pointer, next));
					}}
				/>
				<code>${checked ? "true" : "false"}</code>
			</label>`;
		}
		case "enum": {
			const index = value.kind === "enum" ? value.index : -1;
			const placeholder = !inArray || index < 0;
			return html`<select
				id=${id}
				class="input enum"
				data-field=${pointer}
				aria-invalid=${invalid ? "true" : undefined}
				onChange=${(event: Event) => {
					const chosen = (event.currentTarget as HTMLSelectElement).selectedIndex - (placeholder ? 1 : 0);
					ctx.edit((root, current) => setEnumIndex(root, current, pointer, chosen));
				}}
			>
				${placeholder ? html`<option value="" selected=${index < 0}>— choose —</option>` : null}
				${spec.options.map(
					(option, at) =>
						html`<option key=${at} value=${optionLabel(option)} selected=${at === index}>${optionLabel(option)}</option>`,
				)}
			</select>`;
		}
		case "array": {
			const items = value.kind === "array" ? value.items : [];
			const full = spec.maxItems !== undefined && items.length >= spec.maxItems;
			return html`<div class="array" id=${id}>
				${items.length === 0 ? html`<div class="muted small">empty array</div>` : null}
				${items.map(
					(item, index) => html`<div class="array-item" key=${index}>
						<span class="array-index">${index}</span>
						<div class="array-control">
							<${Control} spec=${spec.items} value=${item} pointer=${`${pointer}/${index}`} ctx=${ctx} inArray=${true} />
							<${FieldProblems} problems=${ctx.problems.get(`${pointer}/${index}`)} />
						</div>
						<button
							type="button"
							class="icon"
							title="Remove this item"
							data-remove=${`${pointer}/${index}`}
							onClick=${() => ctx.edit((root, current) => removeItem(root, current, `${pointer}/${index}`))}
						>
							×
						</button>
					</div>`,
				)}
				<button
					type="button"
					class="small-button"
					data-add=${pointer}
					disabled=${full}
					onClick=${() => ctx.edit((root, current) => addItem(root, current, pointer))}
				>
					+ add item
				</button>
			</div>`;
		}
		case "object": {
			if (value.kind !== "object") return html`<span></span>`;
			return html`<div class="object" id=${id}>
				${spec.properties.length === 0 ? html`<div class="muted small">no properties</div>` : null}
				${spec.properties.map((property) => {
					const field = value.fields[property.key];
					if (!field) return null;
					return html`<${Property}
						key=${property.key}
						name=${property.key}
						required=${property.required}
						included=${property.required || value.included[property.key] === true}
						spec=${property.spec}
						value=${field}
						pointer=${`${pointer}/${escapePointer(property.key)}`}
						ctx=${ctx}
					/>`;
				})}
			</div>`;
		}
	}
}

/** One property of an object: include checkbox (optional ones), label, type, description, input, problems. */
function Property(props: {
	name: string;
	required: boolean;
	included: boolean;
	spec: FieldSpec;
	value: FieldValue;
	pointer: string;
	ctx: FormContext;
}) {
	const { name, required, included, spec, value, pointer, ctx } = props;
	const nested = spec.kind === "object" || spec.kind === "array";
	return html`<div class=${`field ${nested ? "nested" : ""} ${included ? "" : "excluded"}`} data-pointer=${pointer}>
		<div class="field-head">
			${
				required
					? null
					: html`<input
							type="checkbox"
							class="include"
							title="Include this optional field (left out, the tool does not receive it)"
							data-include=${pointer}
							checked=${included}
							onChange=${(event: Event) => {
								const checked = (event.currentTarget as HTMLInputElement).checked;
								ctx.edit((root, current) => setIncluded(root, current, pointer, checked));
							}}
						/>`
			}
			<label for=${idOf(pointer)} class="field-name" title=${spec.title}>${name}</label>
			${required ? html`<span class="required" title="required">*</span>` : html`<span class="optional">optional</span>`}
			<span class="hint">${spec.hint}</span>
			${spec.hasDefault ? html`<span class="hint">default ${JSON.stringify(spec.default)}</span>` : null}
		</div>
		${spec.description ? html`<div class="description">${spec.description}</div>` : null}
		<div class="field-body">
			<${Control} spec=${spec} value=${value} pointer=${pointer} ctx=${ctx} inArray=${false} />
		</div>
		<${FieldProblems} problems=${ctx.problems.get(pointer)} />
	</div>`;
}

/** The fields of a tool's arguments. */
export function ArgsFields(props: {
	spec: FieldSpec;
	value: FieldValue;
	problems: ReadonlyMap<string, readonly ValidationProblem[]>;
	onEdit: (change: (spec: FieldSpec, value: FieldValue) => FieldValue) => void;
}) {
	const ctx: FormContext = { root: props.spec, edit: props.onEdit, problems: props.problems };
	if (props.spec.kind === "object" && props.spec.properties.length === 0) {
		return html`<div class="muted">This tool takes no arguments.</div>`;
	}
	if (props.spec.kind === "object") {
		return html`<${Control} spec=${props.spec} value=${props.value} pointer="" ctx=${ctx} inArray=${false} />`;
	}
	// Parameters that are not an object: one field for the whole arguments.
	return html`<div class="field">
		<div class="field-head"><span class="field-name">arguments</span><span class="hint">${props.spec.hint}</span></div>
		<${Control} spec=${props.spec} value=${props.value} pointer="" ctx=${ctx} inArray=${false} />
		<${FieldProblems} problems=${props.problems.get("")} />
	</div>`;
}

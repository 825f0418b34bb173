/**
 * What the center column shows besides the form: the selected tool's heading, the validation of
 * its arguments, and the Prompt and Providers tabs.
 */
import { html } from "htm/preact";
import type { InspectorTool } from "../protocol.js";
import { jsonEqual } from "./form.js";
import type { ProvidersState, Validation } from "./hooks.js";
import { prettyJson } from "./state.js";

/** The selected tool's name, label, kind, mode, source and description; or why there is none. */
export function ToolHead(props: { tool: InspectorTool | undefined; loaded: boolean }) {
	const { tool } = props;
	if (!tool) return html`<div class="tool-head muted">${props.loaded ? "No tool selected." : "Connecting…"}</div>`;
	return html`<div class="tool-head">
		<div class="tool-title">
			<h2>${tool.name}</h2>
			<span class="muted">${tool.label}</span>
			<span class=${`badge kind-${tool.kind}`}>${tool.kind === "builtin" ? "built-in" : tool.kind}</span>
			<span class="badge mode">${tool.mode}</span>
			<span class="muted small">${tool.source ?? ""}</span>
		</div>
		<div class="tool-description">${tool.description}</div>
	</div>`;
}

export function ValidationView(props: { validation: Validation | undefined }) {
	const { validation } = props;
	if (!validation) return html`<div class="validation" data-testid="validation" data-state="pending"></div>`;
	if (validation.state === "pending") {
		return html`<div class="validation pending" data-testid="validation" data-state="pending">validating…</div>`;
	}
	if (validation.state === "ok") {
		const coerced = !jsonEqual(validation.value, validation.args);
		return html`<div class="validation ok" data-testid="validation" data-state="ok">
			<div>✓ Valid: the tool would run with these arguments.</div>
			${
				coerced
					? html`<div class="small">After the executor's repairs it receives:</div>
							<pre class="json small">${prettyJson(validation.value)}</pre>`
					: null
			}
		</div>`;
	}
	return html`<div class="validation error" data-testid="validation" data-state="error">
		<div class="validation-message">${validation.message}</div>
		${
			validation.problems.length > 0
				? html`<ul class="problems">
						${validation.problems.map(
							(problem, index) => html`<li key=${index} data-testid="validation-problem" data-path=${problem.path}>
								<code>${problem.path === "" ? "(arguments)" : problem.path}</code> ${problem.message}
							</li>`,
						)}
					</ul>`
				: null
		}
	</div>`;
}

export function PromptView(props: { prompt: string }) {
	return html`<div class="tab-body">
		<p class="muted small">The tools section of the system prompt, for the active tools: what the model reads before any call.</p>
		<pre class="prompt" data-testid="prompt-view">${props.prompt}</pre>
	</div>`;
}

export function ProvidersView(props: { state: ProvidersState | undefined; tool: InspectorTool | undefined }) {
	const { state } = props;
	return html`<div class="tab-body providers" data-testid="providers-view">
		<p class="muted small">
			The selected tool as each provider receives it (only name, description and parameters travel), with every
			rewrite of its schema.
		</p>
		${!props.tool ? html`<div class="muted">No tool selected.</div>` : null}
		${state?.loading ? html`<div class="muted">loading…</div>` : null}
		${state && !state.loading && state.error ? html`<div class="inline-error">${state.error}</div>` : null}
		${
			state && !state.loading && state.data
				? state.data.providers.map(
						(
							provider,
						) => html`<section class="provider" data-testid="provider" data-provider=${provider.provider} key=${provider.provider}>
							<header class="provider-head">
								<strong>${provider.provider}</strong>
								${
									provider.nameOk
										? html`<span class="badge ok" data-testid="name-verdict">name ok</span>`
										: html`<span class="badge diag-error" data-testid="name-verdict">name: ${provider.nameProblem ?? "refused"}</span>`
								}
								${provider.errors.length > 0 ? html`<span class="badge diag-error">rejected</span>` : null}
							</header>
							<div class="rewrites" data-testid="rewrites">
								${
									provider.rewrites.length === 0
										? html`<div class="muted small">No rewrites: the schema travels as it is.</div>`
										: html`<ul>
												${provider.rewrites.map(
													(rewrite, index) =>
														html`<li key=${index}><code>${rewrite.path || "(root)"}</code> <span class="badge">${rewrite.kind}</span> ${rewrite.message}</li>`,
												)}
											</ul>`
								}
							</div>
							${
								provider.errors.length > 0
									? html`<ul class="provider-errors" data-testid="provider-errors">
											${provider.errors.map(
												(error, index) =>
													html`<li key=${index}><code>${error.path || "(root)"}</code> <span class="badge diag-error">${error.kind}</span> ${error.message}</li>`,
											)}
										</ul>`
									: null
							}
							<pre class="json" data-testid="provider-json">${
								provider.json === undefined
									? "(not sent: the provider cannot take this schema)"
									: prettyJson(provider.json)
							}</pre>
						</section>`,
					)
				: null
		}
	</div>`;
}

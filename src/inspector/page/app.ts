/**
 * The inspector page (entry of `dist/inspector/app.js`): the tools, a form per tool validated as
 * you type, calls with their updates live, the history, the reload log and diagnostics, what the
 * model sees (prompt, provider formats), and saving the session's calls as a replay fixture. It
 * talks to the server only through `protocol.ts`.
 */
import { html } from "htm/preact";
import { render } from "preact";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type {
	FixtureResponse,
	InspectorCall,
	InspectorTool,
	Json,
	ProvidersResponse,
	ValidateResponse,
	ValidationProblem,
} from "../protocol.js";
import { stripAnsi } from "./ansi.js";
import { ApiError, api, followEvents } from "./api.js";
import { Ansi, CallView, History } from "./call-view.js";
import {
	type FieldSpec,
	type FieldValue,
	type FormState,
	fieldPointers,
	formArgs,
	jsonEqual,
	placeProblems,
	reconcileForm,
	setRawText,
	setValue,
	toggleRaw,
} from "./form.js";
import { ArgsFields } from "./form-view.js";
import { applyEvent, EMPTY_MODEL, formatClock, fromState, type PageModel, prettyJson } from "./state.js";

/** How long after the last keystroke the arguments are validated. */
const VALIDATE_DELAY_MS = 150;
/** How long a tool a reload added or changed stays marked. */
const MARK_MS = 2000;

type Tab = "call" | "prompt" | "providers";

type Validation =
	| { readonly state: "pending" }
	| { readonly state: "ok"; readonly value: Json; readonly args: Json }
	| { readonly state: "error"; readonly message: string; readonly problems: readonly ValidationProblem[] };

function messageOf(error: unknown): string {
	return error instanceof ApiError || error instanceof Error ? error.message : String(error);
}

/** Columns of monospace text that fit in an element (what renderers get as `width`). */
function columnsOf(element: HTMLElement | null): number {
	if (!element) return 100;
	const probe = document.createElement("span");
	probe.className = "mono-probe";
	probe.textContent = "0".repeat(50);
	element.append(probe);
	const charWidth = probe.getBoundingClientRect().width / 50;
	probe.remove();
	if (!(charWidth > 0)) return 100;
	return Math.max(40, Math.min(240, Math.floor((element.clientWidth - 24) / charWidth)));
}

function Connection(props: { open: boolean }) {
	return html`<span class="connection" data-testid="connection" data-state=${props.open ? "open" : "closed"} title=${props.open ? "Receiving live events" : "Not connected: trying again"}>
		<span class="dot"></span>${props.open ? "live" : "disconnected"}
	</span>`;
}

function ErrorBanner(props: { errors: readonly string[]; onDismiss: () => void }) {
	if (props.errors.length === 0) return null;
	return html`<div class="error-banner" data-testid="error-banner" role="alert">
		<div class="error-list">
			${props.errors.map((error, index) => html`<div key=${index}>${error}</div>`)}
		</div>
		<button type="button" class="icon" title="Dismiss" onClick=${props.onDismiss}>×</button>
	</div>`;
}

function ToolList(props: {
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

function Diagnostics(props: { model: PageModel }) {
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

function ReloadLog(props: { model: PageModel }) {
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

function ValidationView(props: { validation: Validation | undefined }) {
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

function PromptView(props: { prompt: string }) {
	return html`<div class="tab-body">
		<p class="muted small">The tools section of the system prompt, for the active tools: what the model reads before any call.</p>
		<pre class="prompt" data-testid="prompt-view">${props.prompt}</pre>
	</div>`;
}

type ProvidersState =
	| { readonly key: string; readonly loading: true }
	| { readonly key: string; readonly loading: false; readonly data?: ProvidersResponse; readonly error?: string };

function ProvidersView(props: { state: ProvidersState | undefined; tool: InspectorTool | undefined }) {
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

function FixturePanel(props: { recordable: number; onError: (message: string) => void }) {
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

function App() {
	const [model, setModel] = useState<PageModel>(EMPTY_MODEL);
	const [connected, setConnected] = useState(false);
	const [selected, setSelected] = useState<string | undefined>();
	const [forms, setForms] = useState<ReadonlyMap<string, FormState>>(new Map());
	const [validation, setValidation] = useState<Validation | undefined>();
	const [selectedCall, setSelectedCall] = useState<string | undefined>();
	const [tab, setTab] = useState<Tab>("call");
	const [errors, setErrors] = useState<readonly string[]>([]);
	const [marked, setMarked] = useState<ReadonlyMap<string, number>>(new Map());
	const [providers, setProviders] = useState<ProvidersState | undefined>();
	const mainRef = useRef<HTMLElement>(null);

	const report = useCallback((message: string) => {
		setErrors((previous) => [...previous.slice(-4), message]);
	}, []);

	// The event stream: the whole state on connect, then every change.
	useEffect(() => {
		let askedState = false;
		return followEvents({
			onOpen: () => setConnected(true),
			onClose: (everOpened) => {
				setConnected(false);
				// The browser says nothing about why a stream failed; the state request does.
				if (!everOpened && !askedState) {
					askedState = true;
					api.state().then(
						(state) => setModel((previous) => fromState(previous, state)),
						(error: unknown) => report(messageOf(error)),
					);
				}
			},
			onEvent: (event) => {
				setModel((previous) => applyEvent(previous, event).model);
				if (event.type === "reload") {
					const names = [...event.reload.added, ...event.reload.changed];
					if (names.length > 0) {
						const until = Date.now() + MARK_MS;
						setMarked((previous) => new Map([...previous, ...names.map((name) => [name, until] as const)]));
						setTimeout(() => {
							setMarked((previous) => new Map([...previous].filter(([, end]) => end > Date.now())));
						}, MARK_MS + 50);
					}
				}
			},
		});
	}, [report]);

	// The selected tool: the first one until the user picks; another one when it disappears.
	const tool = model.tools.find((candidate) => candidate.name === selected);
	useEffect(() => {
		if (!tool && model.tools.length > 0) setSelected(model.tools[0]!.name);
	}, [tool, model.tools]);

	// Forms follow their tool's schema across reloads, keeping what was typed.
	useEffect(() => {
		setForms((previous) => {
			let changed = false;
			const next = new Map(previous);
			for (const candidate of model.tools) {
				const existing = previous.get(candidate.name);
				if (!existing && candidate.name !== selected) continue;
				const form = reconcileForm(existing, candidate.parameters);
				if (form !== existing) {
					next.set(candidate.name, form);
					changed = true;
				}
			}
			return changed ? next : previous;
		});
	}, [model.tools, selected]);

	const form = tool ? forms.get(tool.name) : undefined;
	const args = form ? formArgs(form) : undefined;
	const argsKey = args ? (args.ok ? JSON.stringify(args.args) : `!${args.error}`) : "";
	const schemaKey = form?.schemaKey ?? "";

	// Live validation, debounced; answers to older arguments are dropped.
	const validationSeq = useRef(0);
	useEffect(() => {
		if (!tool || !args) return;
		const seq = ++validationSeq.current;
		if (!args.ok) {
			setValidation({ state: "error", message: args.error, problems: [] });
			return;
		}
		setValidation({ state: "pending" });
		const timer = setTimeout(() => {
			api.validate({ tool: tool.name, args: args.args }).then(
				(response: ValidateResponse) => {
					if (seq !== validationSeq.current) return;
					setValidation(
						response.ok
							? { state: "ok", value: response.value, args: args.args }
							: { state: "error", message: response.message, problems: response.problems },
					);
				},
				(error: unknown) => {
					if (seq !== validationSeq.current) return;
					setValidation({ state: "error", message: `Could not validate: ${messageOf(error)}`, problems: [] });
					report(messageOf(error));
				},
			);
		}, VALIDATE_DELAY_MS);
		return () => clearTimeout(timer);
		// argsKey and schemaKey stand for args and the tool's schema.
	}, [tool?.name, argsKey, schemaKey, report]);

	// The providers tab asks again when the tool or its schema changes.
	const providersKey = tool ? `${tool.name}\n${JSON.stringify(tool.parameters)}\n${tool.description}` : "";
	useEffect(() => {
		if (tab !== "providers" || !tool) return;
		if (providers?.key === providersKey) return;
		let current = true;
		const key = providersKey;
		setProviders({ key, loading: true });
		api.providers(tool.name).then(
			(data) => current && setProviders({ key, loading: false, data }),
			(error: unknown) => {
				if (!current) return;
				setProviders({ key, loading: false, error: messageOf(error) });
				report(messageOf(error));
			},
		);
		return () => {
			current = false;
		};
	}, [tab, providersKey]);

	const updateForm = (change: (form: FormState) => FormState) => {
		if (!tool) return;
		const name = tool.name;
		setForms((previous) => {
			const existing = previous.get(name);
			if (!existing) return previous;
			return new Map(previous).set(name, change(existing));
		});
	};
	const editValue = (change: (spec: FieldSpec, value: FieldValue) => FieldValue) =>
		updateForm((current) => setValue(current, change(current.spec, current.value)));

	const startCall = async (toolName: string, callArgs: Json) => {
		try {
			const started = await api.call({ tool: toolName, args: callArgs, width: columnsOf(mainRef.current) });
			setSelectedCall(started.id);
			setTab("call");
		} catch (error) {
			report(messageOf(error));
		}
	};
	const call = () => {
		if (!tool || !args) return;
		if (!args.ok) {
			report(`Not called: ${args.error}`);
			return;
		}
		void startCall(tool.name, args.args);
	};
	const rerun = (previous: InspectorCall) => void startCall(previous.tool, previous.args);

	const shownCall = model.calls.find((candidate) => candidate.id === selectedCall);
	const abort = async () => {
		if (!shownCall) return;
		try {
			const answer = await api.abort({ id: shownCall.id });
			if (!answer.aborted) report(`POST /api/abort: ${shownCall.id} was not running`);
		} catch (error) {
			report(messageOf(error));
		}
	};

	const placed = useMemo(() => {
		if (!form || form.raw || validation?.state !== "error") return { byField: new Map(), general: [] };
		return placeProblems(fieldPointers(form.spec, form.value), validation.problems);
	}, [form, validation]);

	const recordable = model.calls.filter((candidate) => candidate.recordable && candidate.status !== "running").length;

	return html`<div class="app">
		<header class="top">
			<span class="title">toolsmith inspector</span>
			<span class="muted small cwd" title="Working folder">${model.cwd}</span>
			${model.env ? html`<span class="badge">env: ${model.env}</span>` : null}
			<span class="spacer"></span>
			<${Connection} open=${connected} />
		</header>
		<${ErrorBanner} errors=${errors} onDismiss=${() => setErrors([])} />
		<div class="columns">
			<aside class="left">
				<section class="panel tools-panel">
					<h3>Tools <span class="muted small">${model.tools.length}</span></h3>
					<${ToolList} tools=${model.tools} selected=${tool?.name} marked=${marked} onSelect=${setSelected} />
				</section>
				<section class="panel diagnostics-panel">
					<h3>Diagnostics <span class="muted small">${model.diagnostics.length}</span></h3>
					<${Diagnostics} model=${model} />
				</section>
				<section class="panel reload-panel">
					<h3>Reloads</h3>
					<${ReloadLog} model=${model} />
				</section>
			</aside>
			<main class="center" ref=${mainRef}>
				${
					tool
						? html`<div class="tool-head">
								<div class="tool-title">
									<h2>${tool.name}</h2>
									<span class="muted">${tool.label}</span>
									<span class=${`badge kind-${tool.kind}`}>${tool.kind === "builtin" ? "built-in" : tool.kind}</span>
									<span class="badge mode">${tool.mode}</span>
									<span class="muted small">${tool.source ?? ""}</span>
								</div>
								<div class="tool-description">${tool.description}</div>
							</div>`
						: html`<div class="tool-head muted">${model.loaded ? "No tool selected." : "Connecting…"}</div>`
				}
				<nav class="tabs" role="tablist">
					<button type="button" role="tab" data-testid="tab-call" aria-selected=${tab === "call"} onClick=${() => setTab("call")}>Call</button>
					<button type="button" role="tab" data-testid="tab-prompt" aria-selected=${tab === "prompt"} onClick=${() => setTab("prompt")}>Prompt</button>
					<button type="button" role="tab" data-testid="tab-providers" aria-selected=${tab === "providers"} onClick=${() => setTab("providers")}>
						Providers
					</button>
				</nav>
				${tab === "prompt" ? html`<${PromptView} prompt=${model.prompt} />` : null}
				${tab === "providers" ? html`<${ProvidersView} state=${providers} tool=${tool} />` : null}
				${
					tab === "call"
						? html`<div class="tab-body call-tab">
								${
									tool && form
										? html`<section class="args">
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
															call();
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
													<button type="button" class="primary" data-testid="call-button" onClick=${call} title="Run the tool with these arguments, valid or not (Ctrl+Enter)">
														Call ${tool.name}
													</button>
													<button
														type="button"
														data-testid="abort-button"
														disabled=${shownCall?.status !== "running"}
														onClick=${() => void abort()}
													>
														Abort
													</button>
													<span class="muted small">Runs even when invalid: you see what the model would get.</span>
												</div>
											</section>`
										: null
								}
								${
									shownCall
										? html`<${CallView} call=${shownCall} key=${shownCall.id} />`
										: selectedCall
											? html`<div class="muted call-placeholder">Starting ${selectedCall}…</div>`
											: html`<div class="muted call-placeholder">No call selected: call the tool, or pick one in the history.</div>`
								}
							</div>`
						: null
				}
			</main>
			<aside class="right">
				<section class="panel history-panel">
					<h3>History <span class="muted small">${model.calls.length}</span></h3>
					<${History}
						calls=${model.calls}
						selected=${selectedCall}
						onSelect=${(id: string) => {
							setSelectedCall(id);
							setTab("call");
						}}
						onRerun=${rerun}
					/>
				</section>
				<section class="panel fixture-panel">
					<h3>Save as fixture</h3>
					<${FixturePanel} recordable=${recordable} onError=${report} />
				</section>
			</aside>
		</div>
	</div>`;
}

const root = document.getElementById("app");
if (root) render(html`<${App} />`, root);

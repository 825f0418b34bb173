/**
 * The inspector page (entry of `dist/inspector/app.js`): the tools, a form per tool validated as
 * you type, calls with their updates live, the history, the reload log and diagnostics, what the
 * model sees (prompt, provider formats), running an eval scenario (the Evals tab), and saving the session's calls as a replay fixture. It
 * talks to the server only through `protocol.ts`. `App` puts together the state (`hooks.ts`) and
 * the views (`panels.ts`, `tab-views.ts`, `args-panel.ts`, `call-view.ts`, `fixture-panel.ts`, `evals-view.ts`).
 */
import { html } from "htm/preact";
import { render } from "preact";
import { useRef, useState } from "preact/hooks";
import type { InspectorCall, Json } from "../protocol.js";
import { api, messageOf } from "./api.js";
import { ArgsPanel } from "./args-panel.js";
import { CallView, History } from "./call-view.js";
import { EvalsView } from "./evals-view.js";
import { FixturePanel } from "./fixture-panel.js";
import {
	type Tab,
	useErrors,
	useForms,
	useProviders,
	useSelectedTool,
	useServerState,
	useValidation,
} from "./hooks.js";
import { Connection, Diagnostics, ErrorBanner, ReloadLog, ToolList } from "./panels.js";
import { PromptView, ProvidersView, ToolHead } from "./tab-views.js";

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

function App() {
	const { errors, report, dismiss } = useErrors();
	const { model, connected, marked } = useServerState(report);
	const { selected, tool, setSelected } = useSelectedTool(model.tools);
	const { form, updateForm } = useForms(model.tools, selected, tool);
	const { args, validation } = useValidation(tool, form, report);
	const [selectedCall, setSelectedCall] = useState<string | undefined>();
	const [tab, setTab] = useState<Tab>("call");
	const providers = useProviders(tab, tool, report);
	const mainRef = useRef<HTMLElement>(null);

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

	const recordable = model.calls.filter((candidate) => candidate.recordable && candidate.status !== "running").length;

	return html`<div class="app">
		<header class="top">
			<span class="title">toolsmith inspector</span>
			<span class="muted small cwd" title="Working folder">${model.cwd}</span>
			${model.env ? html`<span class="badge">env: ${model.env}</span>` : null}
			<span class="spacer"></span>
			<${Connection} open=${connected} />
		</header>
		<${ErrorBanner} errors=${errors} onDismiss=${dismiss} />
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
				<${ToolHead} tool=${tool} loaded=${model.loaded} />
				<nav class="tabs" role="tablist">
					<button type="button" role="tab" data-testid="tab-call" aria-selected=${tab === "call"} onClick=${() => setTab("call")}>Call</button>
					<button type="button" role="tab" data-testid="tab-prompt" aria-selected=${tab === "prompt"} onClick=${() => setTab("prompt")}>Prompt</button>
					<button type="button" role="tab" data-testid="tab-providers" aria-selected=${tab === "providers"} onClick=${() => setTab("providers")}>
						Providers
					</button>
					<button type="button" role="tab" data-testid="tab-evals" aria-selected=${tab === "evals"} onClick=${() => setTab("evals")}>Evals</button>
				</nav>
				${tab === "prompt" ? html`<${PromptView} prompt=${model.prompt} />` : null}
				${tab === "providers" ? html`<${ProvidersView} state=${providers} tool=${tool} />` : null}
				${tab === "evals" ? html`<${EvalsView} onError=${report} progress=${model.evalProgress} />` : null}
				${
					tab === "call"
						? html`<div class="tab-body call-tab">
								${
									tool && form
										? html`<${ArgsPanel} tool=${tool} form=${form} validation=${validation} running=${shownCall?.status === "running"}
												onUpdateForm=${updateForm} onCall=${call} onAbort=${() => void abort()} />`
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

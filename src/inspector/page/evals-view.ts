/**
 * The Evals tab: pick a scenario of the files under the cwd, name a model (`provider/id` or
 * `scripted:<file>`), run it, and see the pass rate against the goal, what the scenario expects,
 * and each trial's calls turn by turn beside the expectations it failed.
 */
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import type { EvalRunResponse, EvalScenariosResponse, EvalTrialView } from "../protocol.js";
import { api, messageOf } from "./api.js";
import { type EvalProgress, prettyJson } from "./state.js";

const SEP = "\u0000";

function percent(rate: number): string {
	return `${Math.round(rate * 100)}%`;
}

function TrialView(props: { trial: EvalTrialView }) {
	const { trial } = props;
	return html`<div class=${`eval-trial ${trial.passed ? "passed" : "failed"}`} data-testid="eval-trial" data-passed=${String(trial.passed)}>
		<div class="eval-trial-head">
			<span class=${`status ${trial.passed ? "status-ok" : "status-error"}`}>${trial.passed ? "passed" : "failed"}</span>
			<span>#${trial.trial}</span>
			<span class="muted small">${trial.turns} turn${trial.turns === 1 ? "" : "s"}, ended by ${trial.ended}, ${Math.round(trial.durationMs)} ms</span>
		</div>
		${
			trial.calls.length > 0
				? html`<ol class="eval-calls">
						${trial.calls.map(
							(
								call,
								index,
							) => html`<li key=${index} data-testid="eval-call" class=${call.isError ? "eval-call error" : "eval-call"}>
								<span class="muted small">turn ${call.turn}</span> <code>${call.tool}</code> <code class="small">${JSON.stringify(call.args)}</code>
								${call.isError ? html` <span class="status status-error">error</span>` : null}
								${
									call.invalidFields.length > 0
										? html` <span class="small">invalid: ${call.invalidFields.map((field, i) => html`<code key=${i}>${field}</code> `)}</span>`
										: null
								}
							</li>`,
						)}
					</ol>`
				: html`<div class="muted small">No tool calls.</div>`
		}
		${
			trial.failures.length > 0
				? html`<ul class="problems eval-failures">
						${trial.failures.map(
							(failure, index) => html`<li key=${index} data-testid="eval-failure">
								<code>${failure.expectation}</code> ${failure.message}
								${
									failure.expected !== undefined || failure.actual !== undefined
										? html`<div class="eval-beside small">
												<div>expected <code data-testid="eval-expected">${JSON.stringify(failure.expected ?? null)}</code></div>
												<div>got <code data-testid="eval-actual">${JSON.stringify(failure.actual ?? null)}</code></div>
											</div>`
										: null
								}
							</li>`,
						)}
					</ul>`
				: null
		}
		${trial.answer !== "" ? html`<div class="small">Answer: <span class="eval-answer">${trial.answer}</span></div>` : null}
	</div>`;
}

function ReportView(props: { report: EvalRunResponse }) {
	const { report } = props;
	return html`<div class="eval-report" data-testid="eval-report">
		<div class="eval-summary" data-testid="eval-summary">
			<span class=${`status ${report.ok ? "status-ok" : "status-error"}`}>${report.ok ? "ok" : "under goal"}</span>
			${report.scenario}: ${report.passed}/${report.trials} passed (${percent(report.passRate)}, goal ${percent(report.goal)})
			<span class="muted small">${` with ${report.model}`}</span>
		</div>
		<details class="eval-expected">
			<summary class="small">Expected</summary>
			<pre class="json small">${prettyJson(report.expected)}</pre>
		</details>
		${report.results.map((trial) => html`<${TrialView} key=${trial.trial} trial=${trial} />`)}
	</div>`;
}

/** What a running eval has done so far, as a line. */
function progressText(run: EvalProgress | undefined): string {
	if (!run) return "Running: waiting for the first trial to end…";
	return `Running: ${run.ended} of ${run.trials} trial${run.trials === 1 ? "" : "s"} ended, ${run.passed} passed…`;
}

/** The newest run of `scenario` among the runs the event stream told of (run ids count up: `eval-<n>`). */
function latestRun(progress: Readonly<Record<string, EvalProgress>>, scenario: string): EvalProgress | undefined {
	let newest: { readonly n: number; readonly run: EvalProgress } | undefined;
	for (const [id, run] of Object.entries(progress)) {
		const n = Number(id.slice(id.lastIndexOf("-") + 1));
		if (run.scenario === scenario && (newest === undefined || n > newest.n)) newest = { n, run };
	}
	return newest?.run;
}

export function EvalsView(props: {
	onError: (message: string) => void;
	progress: Readonly<Record<string, EvalProgress>>;
}) {
	const [list, setList] = useState<EvalScenariosResponse | undefined>();
	const [choice, setChoice] = useState("");
	const [model, setModel] = useState("");
	const [baseUrl, setBaseUrl] = useState("");
	const [trials, setTrials] = useState("1");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | undefined>();
	const [report, setReport] = useState<EvalRunResponse | undefined>();

	useEffect(() => {
		api
			.evals()
			.then((answer) => {
				setList(answer);
				const first = answer.files.find((f) => f.scenarios.length > 0);
				if (first) setChoice(`${first.file}${SEP}${first.scenarios[0]}`);
			})
			.catch((caught: unknown) => setError(messageOf(caught)));
	}, []);

	const run = async () => {
		const [file, scenario] = choice.split(SEP);
		if (!file || scenario === undefined) return;
		if (model.trim() === "") {
			setError("Name a model first: provider/id (openai/gpt-4.1-mini, …) or scripted:<file>.");
			return;
		}
		setBusy(true);
		setError(undefined);
		try {
			const count = Number(trials);
			setReport(
				await api.runEval({
					file,
					scenario,
					model: model.trim(),
					...(baseUrl.trim() !== "" ? { baseUrl: baseUrl.trim() } : {}),
					...(trials.trim() !== "" ? { trials: count } : {}),
				}),
			);
		} catch (caught) {
			setReport(undefined);
			setError(messageOf(caught));
			props.onError(messageOf(caught));
		} finally {
			setBusy(false);
		}
	};

	const value = (set: (text: string) => void) => (event: Event) => set((event.currentTarget as HTMLInputElement).value);
	const files = list?.files ?? [];
	return html`<div class="tab-body evals-tab" data-testid="evals">
		${
			list && files.length === 0
				? html`<div class="muted">No scenario files (<code>*.eval.ts</code>, <code>*.eval.json</code>, …) under the working folder.</div>`
				: null
		}
		${files
			.filter((f) => f.error !== undefined)
			.map((f) => html`<div class="inline-error small" key=${f.file}><code>${f.file}</code>: ${f.error}</div>`)}
		<div class="eval-form">
			<label class="small">Scenario
				<select class="input" data-testid="eval-scenario" value=${choice} onChange=${value(setChoice)}>
					${files.map(
						(f) => html`<optgroup key=${f.file} label=${f.file}>
							${f.scenarios.map((name) => html`<option key=${name} value=${`${f.file}${SEP}${name}`}>${name}</option>`)}
						</optgroup>`,
					)}
				</select>
			</label>
			<label class="small">Model
				<input type="text" class="input" data-testid="eval-model" placeholder="openai/gpt-4.1-mini or scripted:<file>"
					value=${model} onInput=${value(setModel)} />
			</label>
			<label class="small">Base URL
				<input type="text" class="input" data-testid="eval-base-url" placeholder="(an OpenAI-compatible server)"
					value=${baseUrl} onInput=${value(setBaseUrl)} />
			</label>
			<label class="small">Trials
				<input type="number" min="1" class="input" data-testid="eval-trials" value=${trials} onInput=${value(setTrials)} />
			</label>
			<button type="button" data-testid="eval-run" disabled=${busy || choice === ""} onClick=${() => void run()}>
				${busy ? "Running…" : "Run"}
			</button>
		</div>
		${
			model.trim() === ""
				? html`<div class="muted small" data-testid="eval-hint">
						Name the model to evaluate: <code>provider/id</code> (keys from the usual environment variables), or
						<code>${"scripted:<file>"}</code> for a scripted one.
					</div>`
				: null
		}
		${
			busy
				? html`<div class="muted small" data-testid="eval-progress">${progressText(latestRun(props.progress, choice.split(SEP)[1] ?? ""))}</div>`
				: null
		}
		${error ? html`<div class="inline-error" data-testid="eval-error">${error}</div>` : null}
		${report ? html`<${ReportView} report=${report} />` : null}
	</div>`;
}

/**
 * The page's state as hooks, each one concern of it: the errors shown, the server's state followed
 * over the event stream, the selected tool, the arguments forms, their live validation, and the
 * provider formats of the selected tool.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { InspectorTool, Json, ProvidersResponse, ValidateResponse, ValidationProblem } from "../protocol.js";
import { api, followEvents, messageOf } from "./api.js";
import { type FormState, formArgs, reconcileForm } from "./form.js";
import { applyEvent, EMPTY_MODEL, fromState, type PageModel } from "./state.js";

/** How long after the last keystroke the arguments are validated. */
const VALIDATE_DELAY_MS = 150;
/** How long a tool a reload added or changed stays marked. */
const MARK_MS = 2000;

export type Tab = "call" | "prompt" | "providers" | "evals";

export type Validation =
	| { readonly state: "pending" }
	| { readonly state: "ok"; readonly value: Json; readonly args: Json }
	| { readonly state: "error"; readonly message: string; readonly problems: readonly ValidationProblem[] };

export type ProvidersState =
	| { readonly key: string; readonly loading: true }
	| { readonly key: string; readonly loading: false; readonly data?: ProvidersResponse; readonly error?: string };

/** The errors in the banner (the last five), `report` to add one, `dismiss` to clear them. */
export function useErrors() {
	const [errors, setErrors] = useState<readonly string[]>([]);
	const report = useCallback((message: string) => {
		setErrors((previous) => [...previous.slice(-4), message]);
	}, []);
	const dismiss = useCallback(() => setErrors([]), []);
	return { errors, report, dismiss };
}

/**
 * The server's state, from the event stream: the whole state on connect, then every change; whether
 * the stream is open; the tools a reload just added or changed, marked for a while.
 */
export function useServerState(report: (message: string) => void) {
	const [model, setModel] = useState<PageModel>(EMPTY_MODEL);
	const [connected, setConnected] = useState(false);
	const [marked, setMarked] = useState<ReadonlyMap<string, number>>(new Map());
	useEffect(() => {
		let askedState = false;
		// The last refusal reported, so that a refusal repeated at each retry shows once.
		let refused: string | undefined;
		return followEvents({
			onOpen: () => {
				refused = undefined;
				setConnected(true);
			},
			onRefused: (message) => {
				if (message === refused) return;
				refused = message;
				report(message);
			},
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
				// The server ended the stream: the browser connects again, and its `hello` brings the state.
				if (event.type === "dropped") report(`Live events stopped: ${event.message}`);
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
	return { model, connected, marked };
}

/** The selected tool: the first one until the user picks; another one when it disappears. */
export function useSelectedTool(tools: readonly InspectorTool[]) {
	const [selected, setSelected] = useState<string | undefined>();
	const tool = tools.find((candidate) => candidate.name === selected);
	useEffect(() => {
		if (!tool && tools.length > 0) setSelected(tools[0]!.name);
	}, [tool, tools]);
	return { selected, tool, setSelected };
}

/**
 * The arguments form of each tool shown so far, following its tool's schema across reloads and
 * keeping what was typed; `updateForm` changes the form of `tool`.
 */
export function useForms(
	tools: readonly InspectorTool[],
	selected: string | undefined,
	tool: InspectorTool | undefined,
) {
	const [forms, setForms] = useState<ReadonlyMap<string, FormState>>(new Map());
	useEffect(() => {
		setForms((previous) => {
			let changed = false;
			const next = new Map(previous);
			for (const candidate of tools) {
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
	}, [tools, selected]);
	const updateForm = (change: (form: FormState) => FormState) => {
		if (!tool) return;
		const name = tool.name;
		setForms((previous) => {
			const existing = previous.get(name);
			if (!existing) return previous;
			return new Map(previous).set(name, change(existing));
		});
	};
	return { form: tool ? forms.get(tool.name) : undefined, updateForm };
}

/** The arguments of `form` validated live, debounced; answers to older arguments are dropped. */
export function useValidation(
	tool: InspectorTool | undefined,
	form: FormState | undefined,
	report: (message: string) => void,
) {
	const [validation, setValidation] = useState<Validation | undefined>();
	const args = form ? formArgs(form) : undefined;
	const argsKey = args ? (args.ok ? JSON.stringify(args.args) : `!${args.error}`) : "";
	const schemaKey = form?.schemaKey ?? "";
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
	return { args, validation };
}

/** The selected tool as each provider receives it, asked for again when the tool or its schema changes. */
export function useProviders(tab: Tab, tool: InspectorTool | undefined, report: (message: string) => void) {
	const [providers, setProviders] = useState<ProvidersState | undefined>();
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
	return providers;
}

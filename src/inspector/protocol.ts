/**
 * What the inspector's page and its loopback server say to each other: the JSON of every endpoint
 * and of the event stream. Types only, shared by the server (`node-server.ts`) and the page
 * (`page/`); nothing here imports Node or the DOM.
 *
 * Every request carries the session token: `?token=` in the URL (the page, its assets, the event
 * stream) or the `x-toolsmith-token` header (the page's `fetch` calls).
 *
 * Endpoints, all JSON:
 * - `GET /api/state` → `InspectorState`
 * - `GET /api/events` → Server-Sent Events, one `InspectorEvent` per `data:` line (503 with
 *   `Retry-After` when the cap of streams is reached; a client that falls behind gets `dropped`)
 * - `POST /api/validate` `ValidateRequest` → `ValidateResponse`
 * - `POST /api/call` `CallRequest` → `CallStarted` (then `call`/`update` events, and `nested`/`nested-update`
 *   events for the calls its tool makes through `ctx.executeTool`)
 * - `POST /api/abort` `AbortRequest` → `{ aborted: boolean }`
 * - `GET /api/providers?tool=<name>` → `ProvidersResponse`
 * - `POST /api/fixture` `FixtureRequest` → `FixtureResponse`
 * - `GET /api/evals` → `EvalScenariosResponse` (the scenario files under the cwd)
 * - `POST /api/evals/run` `EvalRunRequest` → `EvalRunResponse` (once every trial has run; each trial
 *   also an `eval-trial` event as it ends)
 * A refused or failed request answers `{ error: string }` with a 4xx/5xx status.
 */

/** A JSON value as it crosses the wire. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Lines a renderer produced, with ANSI colour codes (the page turns them into HTML). */
export interface RenderedView {
	readonly lines: readonly string[];
	/** Set when the tool's renderer threw: the lines are then the fallback rendering. */
	readonly error?: string;
}

export interface InspectorDiagnostic {
	readonly severity: "error" | "warning" | "info";
	readonly message: string;
	readonly code?: string;
	/** The file, absolute. */
	readonly path?: string;
	readonly line?: number;
	readonly column?: number;
	/** One line as `toolsmith dev` prints it: `error hello.ts:3:7 Unexpected token [E_EXTENSION_LOAD]`. */
	readonly text: string;
}

export interface InspectorTool {
	readonly name: string;
	readonly label: string;
	readonly description: string;
	/** `builtin`; `extension`; `override`: an extension tool that replaces a built-in of the same name. */
	readonly kind: "builtin" | "extension" | "override";
	/** The extension file as shown to the user (relative to the cwd when inside it); absent for built-ins. */
	readonly source?: string;
	readonly mode: "parallel" | "sequential";
	/** The parameters' JSON schema (a TypeBox schema as JSON). */
	readonly parameters: Json;
	readonly promptSnippet?: string;
	readonly promptGuidelines?: readonly string[];
	/** The current diagnostics of its extension file. */
	readonly diagnostics: readonly InspectorDiagnostic[];
}

export interface InspectorReload {
	/** Epoch ms when the page's server saw it. */
	readonly at: number;
	readonly path: string;
	readonly kind: "load" | "reload" | "unload";
	readonly ok: boolean;
	readonly durationMs: number;
	readonly added: readonly string[];
	readonly removed: readonly string[];
	readonly changed: readonly string[];
	/** The reload line and its diagnostics as `toolsmith dev` prints them (ANSI). */
	readonly lines: readonly string[];
	readonly diagnostics: readonly InspectorDiagnostic[];
}

export interface InspectorUpdate {
	/** Ms since the call started. */
	readonly atMs: number;
	readonly rendered: RenderedView;
	/** The partial result as the tool sent it: `{ content, details }`. */
	readonly partial: Json;
}

export type CallStatus = "running" | "ok" | "error" | "aborted";

/** A call a tool made through `ctx.executeTool` while one of the session's calls ran (and the calls it made). */
export interface InspectorNestedCall {
	/** `<calling id>/<n>`: the tool call id the called tool sees. */
	readonly toolCallId: string;
	/** The tool call id of the call that made it: the page's call, or another nested call. */
	readonly parentToolCallId: string;
	readonly tool: string;
	readonly args: Json;
	/** `running` until its end event; a refused call (invalid arguments, blocked, not callable) is an `error`. */
	readonly status: "running" | "ok" | "error";
	/** Milliseconds the called tool ran; absent for a call that never ran. */
	readonly durationMs?: number;
	readonly renderedCall: RenderedView;
	readonly renderedResult?: RenderedView;
	/** `{ content, details, isError }` as the calling tool received it. */
	readonly result?: Json;
	/** Its partial results (the latest ones). */
	readonly updates: readonly InspectorUpdate[];
}

export interface InspectorCall {
	/** The call's id in this session (`call-1`, …), also the tool call id the tool sees. */
	readonly id: string;
	readonly tool: string;
	readonly args: Json;
	/** Epoch ms. */
	readonly startedAt: number;
	readonly status: CallStatus;
	readonly durationMs?: number;
	readonly renderedCall: RenderedView;
	readonly renderedResult?: RenderedView;
	/** The tool result message: `{ content, details, isError, … }` as the executor returned it. */
	readonly result?: Json;
	readonly updates: readonly InspectorUpdate[];
	/**
	 * The calls its tool made through `ctx.executeTool` (and theirs), in the order they started (the
	 * first 256); absent when it made none.
	 */
	readonly nested?: readonly InspectorNestedCall[];
	/** Whether "Save as fixture" will include it (false for aborted calls and calls made elsewhere). */
	readonly recordable: boolean;
}

export interface InspectorState {
	readonly cwd: string;
	/** The env's kind (`node`, `memory`, …). */
	readonly env: string;
	readonly tools: readonly InspectorTool[];
	/** Diagnostics of the last load of every extension, by file. */
	readonly diagnostics: readonly InspectorDiagnostic[];
	/** Reloads since the server started, oldest first (the last 200). */
	readonly reloads: readonly InspectorReload[];
	/** Calls since the server started, oldest first. */
	readonly calls: readonly InspectorCall[];
	/** The tools section of the system prompt for the active tools. */
	readonly prompt: string;
}

/** The part of the state a reload or a diagnostic changes (the calls and reloads are not resent). */
export type InspectorToolsState = Pick<InspectorState, "cwd" | "env" | "tools" | "diagnostics" | "prompt">;

/** The event stream: `hello` first (the whole state), then each change as it happens. */
export type InspectorEvent =
	| { readonly type: "hello"; readonly state: InspectorState }
	/**
	 * The last event of a stream the server ended because its client fell behind (`reason:
	 * "behind"`: more than the bound of unread bytes waited for it); sent as `event: dropped`.
	 * `message` says so for people. The page connects again, and the new stream's `hello` brings the
	 * state.
	 */
	| { readonly type: "dropped"; readonly reason: "behind"; readonly message: string }
	| { readonly type: "reload"; readonly reload: InspectorReload; readonly state: InspectorToolsState }
	| { readonly type: "diagnostic"; readonly diagnostic: InspectorDiagnostic; readonly state: InspectorToolsState }
	| { readonly type: "call"; readonly call: InspectorCall }
	| { readonly type: "update"; readonly id: string; readonly update: InspectorUpdate }
	/** A nested call of the call `id` started or ended (the whole nested call, replacing the one of its `toolCallId`). */
	| { readonly type: "nested"; readonly id: string; readonly call: InspectorNestedCall }
	/** A partial result of the nested call `toolCallId` of the call `id`. */
	| {
			readonly type: "nested-update";
			readonly id: string;
			readonly toolCallId: string;
			readonly parentToolCallId: string;
			readonly update: InspectorUpdate;
	  }
	/** A trial of the eval run `run` (as `POST /api/evals/run` answers it) ended; trials come in the order they end. */
	| {
			readonly type: "eval-trial";
			readonly run: string;
			readonly scenario: string;
			readonly trials: number;
			readonly trial: EvalTrialView;
	  };

export interface ValidateRequest {
	readonly tool: string;
	readonly args: Json;
}

export interface ValidationProblem {
	/** JSON pointer of the field (`""` for the arguments as a whole). */
	readonly path: string;
	readonly message: string;
}

/** What the executor would do with the arguments: run the tool with `value`, or answer the model with `message`. */
export type ValidateResponse =
	| { readonly ok: true; readonly value: Json }
	| { readonly ok: false; readonly message: string; readonly problems: readonly ValidationProblem[] };

export interface CallRequest {
	readonly tool: string;
	readonly args: Json;
	/** Columns the page shows; renderers get this width. Default 100. */
	readonly width?: number;
}

export interface CallStarted {
	readonly id: string;
}

export interface AbortRequest {
	readonly id: string;
}

export interface ProviderView {
	readonly provider: "openai-chat" | "openai-responses" | "anthropic" | "google";
	/** The tool as the provider receives it (absent when the provider would reject it). */
	readonly json?: Json;
	/** Every rewrite of the schema, and why. */
	readonly rewrites: readonly { readonly path: string; readonly kind: string; readonly message: string }[];
	/** What the provider cannot take (then `json` is absent). */
	readonly errors: readonly { readonly path: string; readonly kind: string; readonly message: string }[];
	readonly nameOk: boolean;
	readonly nameProblem?: string;
}

export interface ProvidersResponse {
	readonly tool: string;
	readonly providers: readonly ProviderView[];
}

export interface FixtureRequest {
	/** The fixture's name (also its file name, made safe). Default `inspector-<date>`. */
	readonly name?: string;
}

export interface FixtureResponse {
	/** The file written, absolute. */
	readonly path: string;
	/** The same, as shown to the user. */
	readonly displayPath: string;
	/** How many calls it holds. */
	readonly calls: number;
	/** Calls left out (aborted, or made elsewhere) and files it could not capture. */
	readonly warnings: readonly string[];
	/** The command that replays it: `toolsmith test <file> --extensions <paths>`. */
	readonly command: string;
}

/** One scenario file under the cwd, and the names of its scenarios (or why it could not be loaded). */
export interface EvalScenarioFile {
	/** As shown and as sent back in `EvalRunRequest.file`: relative to the cwd when inside it. */
	readonly file: string;
	readonly scenarios: readonly string[];
	readonly error?: string;
}

export interface EvalScenariosResponse {
	readonly files: readonly EvalScenarioFile[];
}

export interface EvalRunRequest {
	/** A file as `GET /api/evals` lists it. */
	readonly file: string;
	readonly scenario: string;
	/** `provider/model-id`, or `scripted:<file>` (relative to the cwd). */
	readonly model: string;
	/** An OpenAI-compatible server's base URL. */
	readonly baseUrl?: string;
	/** Default 1. */
	readonly trials?: number;
}

/** One call the model made in a trial. */
export interface EvalTrialCall {
	/** 1-based. */
	readonly turn: number;
	readonly tool: string;
	readonly args: Json;
	readonly isError: boolean;
	/** The argument fields validation refused. */
	readonly invalidFields: readonly string[];
}

/** An expectation a trial failed: the expected value beside the actual one (patterns as `/…/`). */
export interface EvalTrialFailure {
	readonly expectation: string;
	readonly message: string;
	readonly expected?: Json;
	readonly actual?: Json;
}

export interface EvalTrialView {
	readonly trial: number;
	readonly passed: boolean;
	readonly turns: number;
	readonly ended: string;
	readonly answer: string;
	readonly durationMs: number;
	readonly calls: readonly EvalTrialCall[];
	readonly failures: readonly EvalTrialFailure[];
}

export interface EvalRunResponse {
	/** The run's id, as its `eval-trial` events name it. */
	readonly run: string;
	readonly model: string;
	readonly scenario: string;
	readonly trials: number;
	readonly passed: number;
	readonly passRate: number;
	/** The scenario's pass-rate goal. */
	readonly goal: number;
	readonly ok: boolean;
	/** What the scenario expects, as JSON (patterns as `/…/`, predicates as `(predicate)`). */
	readonly expected: Json;
	readonly results: readonly EvalTrialView[];
}

/** The conformance checks by id and title, in the order they run, and what a check and a tool's report hold. */
/** Every check, in the order they run. */
export const CONFORMANCE_CHECKS = [
	{ id: "name-valid", title: "the name is valid for every provider" },
	{ id: "description", title: "a description of sane length" },
	{ id: "label", title: "a label" },
	{ id: "parameters-object", title: "parameters are an object schema" },
	{ id: "schema-openai", title: "the schema compiles for OpenAI" },
	{ id: "schema-anthropic", title: "the schema compiles for Anthropic" },
	{ id: "schema-google", title: "the schema compiles for Google" },
	{ id: "prompt-snippet", title: "promptSnippet is one line" },
	{ id: "prompt-guidelines", title: "promptGuidelines are strings" },
	{ id: "valid-samples", title: "valid samples run without breaking the executor" },
	{ id: "invalid-samples", title: "near-miss arguments are rejected naming the field" },
	{ id: "abort", title: "an aborted signal settles execute promptly" },
	{ id: "content", title: "content is well formed and within the truncation budget" },
	{ id: "throws", title: "failures are thrown, so they become isError" },
	{ id: "updates", title: "partial updates are well formed" },
	{ id: "render", title: "renderCall and renderResult do not throw" },
	{ id: "deterministic", title: "the same input in two fresh envs gives the same result" },
] as const;

/** The id of a conformance check, as listed in `CONFORMANCE_CHECKS` and named in baselines. */
export type ConformanceCheckId = (typeof CONFORMANCE_CHECKS)[number]["id"];
/** How one conformance check ended. */
export type CheckStatus = "pass" | "fail" | "skip";

/** The outcome of one conformance check on one tool. */
export interface ConformanceCheck {
	readonly id: ConformanceCheckId;
	readonly title: string;
	readonly status: CheckStatus;
	/** Why it failed or was skipped; what was checked when it passed. */
	readonly message: string;
	/** Extra lines: each problem, or the provider rewrites. */
	readonly details: readonly string[];
	/** Set by a baseline: the failure is known and accepted. */
	readonly expectedFailure?: boolean;
}

/** Every conformance check's outcome for one tool, as `checkTool` returns it. */
export interface ToolConformanceReport {
	readonly tool: string;
	readonly checks: readonly ConformanceCheck[];
	/** No check failed (expected failures from a baseline do not count). */
	readonly pass: boolean;
}

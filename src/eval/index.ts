/**
 * toolsmith-sdk/eval: does a model call your tools right? Scenarios (`defineEval`), the loop that
 * runs them against a model (`runEvals`), the checks (matchers), a scripted model for tests, and
 * the comparison of two runs. Node-only as a whole (it loads extensions and makes temp folders);
 * modules not named `node-*` are runtime-neutral.
 */
import { loadNodeProvisionsWith } from "../extensions/node-provided.js";

export {
	type ComparedSide,
	compareCounts,
	compareEvals,
	type EvalComparison,
	type Interval,
	newcombeInterval,
	type ScenarioComparison,
	trialsToResolve,
	wilsonInterval,
} from "./compare.js";
export { defineEval, EvalScenarioError, scenarioProblems } from "./define.js";
export {
	DEFAULT_REQUEST_TIMEOUT_MS,
	DEFAULT_TURN_LIMIT,
	invalidFieldsOf,
	runTrial,
	type TrialSetup,
} from "./loop.js";
export {
	CALL_ORDERS,
	callMismatches,
	checkExpectations,
	matchCalls,
	matchesCall,
	matchesText,
	type TrialOutcome,
	valueMismatches,
} from "./matchers.js";
export {
	findScenarioFiles,
	loadScenarioFile,
	loadScriptedModel,
	ScenarioFileError,
	type ScenarioFileOptions,
} from "./node-files.js";
export { createEvalModel, type EvalModelOptions } from "./node-model.js";
export { fixtureFileName, runEvals } from "./node-run.js";
export { scenarioReport } from "./report.js";
export { type ModelScript, type ScriptedModelOptions, type ScriptedTurn, scriptedModel } from "./scripted.js";
export { type EvalToolset, toolsetOf } from "./toolset.js";
export type {
	CallOrder,
	EvalExpectations,
	EvalMessage,
	EvalModel,
	EvalModelRequest,
	EvalModelTool,
	EvalModelTurn,
	EvalReport,
	EvalRunOptions,
	EvalScenario,
	EvalTools,
	EvalUsage,
	EvalWorld,
	ExpectationFailure,
	ExpectedCall,
	InvalidArgumentStats,
	ScenarioReport,
	TextMatcher,
	TrialCall,
	TrialResult,
	ValueMatcher,
} from "./types.js";

// Extensions the scenarios load get toolsmith's entries and the MCP client from the Node entry,
// imported the first time one of them is needed.
loadNodeProvisionsWith(() => import("../node.js"));

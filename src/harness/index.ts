/**
 * toolsmith-sdk/harness: test tools without a model and without a disk — the test harness, replay
 * fixtures, recorded sessions, recording, and conformance checks. Modules named `node-*` need
 * Node.js; the rest is runtime-neutral.
 */
import { loadNodeProvisionsWith } from "../extensions/node-provided.js";

export { type CheckToolOptions, checkTool } from "./conformance.js";
export {
	applyConformanceBaseline,
	type ConformanceBaseline,
	type ConformanceSummary,
	parseConformanceBaseline,
	type StaleBaselineEntry,
} from "./conformance-baseline.js";
export {
	type CheckStatus,
	CONFORMANCE_CHECKS,
	type ConformanceCheck,
	type ConformanceCheckId,
	type ToolConformanceReport,
} from "./conformance-checks.js";
export { formatConformanceReport } from "./conformance-report.js";
export {
	type CallExpectation,
	type FileExpectation,
	type FixtureCall,
	type FixtureCommand,
	type FixtureIssue,
	type FixtureStep,
	parseReplayFixture,
	parseReplayFixtureText,
	type ReplayFixture,
	ReplayFixtureError,
	ReplayFixtureSchema,
	replayFixtureJsonSchema,
	type TextExpectation,
} from "./fixture.js";
export {
	type BuiltinToolDefinition,
	createMemoryHarness,
	type HarnessArguments,
	type HarnessBuiltins,
	type HarnessCall,
	type HarnessCallArguments,
	type HarnessCallOptions,
	type InlineExtension,
	type MemoryHarnessOptions,
	type TestHarness,
	type ToolArguments,
} from "./harness.js";
export {
	type CheckExtensionsOptions,
	checkExtensions,
	type ExtensionsConformanceSummary,
	loadConformanceBaseline,
	loadExtensionTools,
} from "./node-conformance.js";
export { createTestHarness, type TestHarnessOptions } from "./node-harness.js";
export { loadReplayFixture, type ReplayFileOptions, replayFile } from "./node-replay.js";
export { loadSession } from "./node-session.js";
export {
	type EnvIoEntry,
	type FixtureFromRecordingOptions,
	RecordingEnv,
	type RecordingOptions,
	recordingEnv,
} from "./record.js";
export {
	type FormatReplayReportOptions,
	formatReplayReport,
	type ReplayCallReport,
	type ReplayOptions,
	type ReplayReport,
	type ReplayStepReport,
	replay,
	type UnknownToolReport,
} from "./replay.js";
export {
	NORMALIZATION_RULES,
	type ReplaySessionOptions,
	replaySession,
} from "./replay-session.js";
export {
	type ParseSessionOptions,
	parseSession,
	type RecordedBatch,
	type RecordedCall,
	type RecordedResult,
	type RecordedSession,
	type SessionFigures,
	SessionParseError,
	sessionFigures,
} from "./session.js";
export {
	formatSessionReplayReport,
	type SessionCallOutcome,
	type SessionCallStatus,
	type SessionReplayFigures,
	type SessionReplayReport,
	type SessionToolFigures,
	type UnknowableReason,
} from "./session-report.js";

// Extensions the harness loads get toolsmith's entries and the MCP client from the Node entry,
// imported the first time one of them is needed.
loadNodeProvisionsWith(() => import("../node.js"));

/**
 * toolsmith/harness: test tools without a model and without a disk — replay fixtures, recorded
 * sessions, the test harness and conformance checks. Files named `node-*` need Node.js; the rest
 * is runtime-neutral.
 */
export { loadSession } from "./node-session.js";
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

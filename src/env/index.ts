export {
	type CommandLogEntry,
	MemoryExecutionEnv,
	type MemoryExecutionEnvOptions,
	type MemorySeedFile,
	type ScriptedChunk,
	type ScriptedCommand,
	type ScriptedOutput,
	type ScriptedRunContext,
} from "./memory.js";
export { withFileMutationQueue } from "./mutation-queue.js";
export type {
	DirEntry,
	ExecOptions,
	ExecResult,
	ExecutionEnv,
	FileInfo,
	FileKind,
	FileSystem,
	Shell,
	SignalOptions,
} from "./types.js";

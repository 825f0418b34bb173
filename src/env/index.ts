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

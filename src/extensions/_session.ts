/**
 * The session an extension's context shows in a host without an agent loop: the reference's
 * read-only session manager for a session that is never written (as its `SessionManager.inMemory`):
 * no file, no entries, a header naming the runtime's folder. Handlers that look at the session on
 * `session_start` (to restore state from earlier entries, to name the session file) then see an
 * empty, new session instead of failing on a missing `ctx.sessionManager`.
 */

/** The header entry the reference writes first in every session. */
export interface HeadlessSessionHeader {
	readonly type: "session";
	readonly version: number;
	readonly id: string;
	readonly timestamp: string;
	readonly cwd: string;
}

/** The reference's `ReadonlySessionManager`, for a session with no entries. */
export interface HeadlessSession {
	getCwd(): string;
	getSessionDir(): string;
	getSessionId(): string;
	getSessionFile(): string | undefined;
	getLeafId(): string | null;
	getLeafEntry(): undefined;
	getEntry(id: string): undefined;
	getLabel(id: string): undefined;
	getBranch(fromId?: string): never[];
	getHeader(): HeadlessSessionHeader;
	getEntries(): never[];
	getTree(): never[];
	getSessionName(): string | undefined;
}

/** The session format version the reference writes. */
const SESSION_VERSION = 3;

function sessionId(): string {
	const random = globalThis.crypto?.randomUUID?.();
	return random ?? `${Date.now().toString(16)}-${Math.random().toString(16).slice(2)}`;
}

/** A new, empty session in `cwd`; every call returns fresh arrays, so a handler cannot change it. */
export function createHeadlessSession(cwd: string): HeadlessSession {
	const header: HeadlessSessionHeader = Object.freeze({
		type: "session",
		version: SESSION_VERSION,
		id: sessionId(),
		timestamp: new Date().toISOString(),
		cwd,
	});
	return Object.freeze({
		getCwd: () => cwd,
		getSessionDir: () => "",
		getSessionId: () => header.id,
		getSessionFile: () => undefined,
		getLeafId: () => null,
		getLeafEntry: () => undefined,
		getEntry: () => undefined,
		getLabel: () => undefined,
		getBranch: () => [],
		getHeader: () => header,
		getEntries: () => [],
		getTree: () => [],
		getSessionName: () => undefined,
	});
}

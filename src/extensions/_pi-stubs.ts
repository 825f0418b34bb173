/**
 * Members of the reference extension API that toolsmith accepts but does not implement. Each one
 * is a no-op (returning the value a host without sessions, models or a UI would return) and is
 * reported once per extension, so a pi extension that also does other things still loads.
 */

/** Member name → what the stub returns. */
export const UNSUPPORTED_API_MEMBERS: Readonly<Record<string, () => unknown>> = Object.freeze({
	registerShortcut: () => undefined,
	registerMessageRenderer: () => undefined,
	registerProvider: () => undefined,
	unregisterProvider: () => undefined,
	sendMessage: () => undefined,
	sendUserMessage: () => undefined,
	appendEntry: () => undefined,
	setSessionName: () => undefined,
	getSessionName: () => undefined,
	setLabel: () => undefined,
	setModel: () => Promise.resolve(false),
	getThinkingLevel: () => "off",
	setThinkingLevel: () => undefined,
	// Added in pi 1.x.
	registerMarkdownTransformer: () => undefined,
	registerEntryRenderer: () => undefined,
	registerVirtualModel: () => undefined,
	unregisterVirtualModel: () => undefined,
	getSettings: () => Object.freeze({}),
});

/** Events the reference emits that toolsmith never does (no sessions, models or input loop). */
export const EMITTED_EVENTS: ReadonlySet<string> = new Set([
	"session_start",
	"session_shutdown",
	"tool_call",
	"tool_result",
	"mcp_servers_change",
]);

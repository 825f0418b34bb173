/**
 * What the rooms above `extensions` hand down to it, since it may not import them: toolsmith's own
 * entries (handed to extensions that import `toolsmith-sdk`, `toolsmith-sdk/node` or
 * `toolsmith-sdk/runtime`, so they get this running instance) and the MCP client (for the servers
 * extensions register). The Node entry (`src/node.ts`) provides both when it is evaluated; the other
 * entries that load extensions (the CLI, the harness) say how to load it, and it is loaded the first
 * time either is needed. Node-only.
 */
import type { ToolDefinition } from "../contract/tool.js";

/** The MCP servers an extension may register, as the client takes them. */
export type McpServerToConnect = (
	| {
			readonly command: string;
			readonly args?: readonly string[];
			readonly env?: Readonly<Record<string, string>>;
			readonly cwd?: string;
	  }
	| { readonly url: string; readonly headers?: Readonly<Record<string, string>> }
) & {
	readonly timeoutMs?: number;
	readonly onDiagnostic?: (diagnostic: { severity: "error" | "warning" | "info"; message: string }) => void;
};

/** The part of an MCP client's connection the extension host uses. */
export interface McpConnection {
	readonly tools: readonly ToolDefinition[];
	onToolsChanged(listener: (tools: readonly ToolDefinition[]) => void): () => void;
	close(): Promise<void>;
}

/** What the Node entry provides. */
export interface NodeProvisions {
	/** toolsmith's entries by the specifiers extensions import them with. */
	entries(): Promise<Readonly<Record<string, unknown>>>;
	/** Connect one MCP server (`loadMcpTools`). */
	connectMcp(server: McpServerToConnect): Promise<McpConnection>;
}

let provided: NodeProvisions | undefined;
let loadProvider: (() => Promise<unknown>) | undefined;

/** Called by the Node entry when it is evaluated. */
export function provideNodeProvisions(provisions: NodeProvisions): void {
	provided = provisions;
}

/** Called by an entry that loads extensions without importing the Node entry itself: how to import it. */
export function loadNodeProvisionsWith(load: () => Promise<unknown>): void {
	loadProvider ??= load;
}

/** What the Node entry provides, importing it first when an entry said how; undefined when none did. */
export async function nodeProvisions(): Promise<NodeProvisions | undefined> {
	if (!provided && loadProvider) await loadProvider();
	return provided;
}

/**
 * Provider rules on tool names that are stricter than the registry's own. A name breaking one of
 * them still registers (most agents talk to one provider), but the author is told.
 */
import { checkToolName } from "../providers/names.js";

const PROVIDERS = { openai: "OpenAI", anthropic: "Anthropic", google: "Google Gemini", mcp: "MCP" } as const;

/** One sentence per provider whose rule `name` breaks. */
export function providerNameProblems(name: string): string[] {
	const report = checkToolName(name);
	if (report.portable) return [];
	const problems: string[] = [];
	for (const [key, provider] of Object.entries(PROVIDERS) as [keyof typeof PROVIDERS, string][]) {
		const verdict = report[key];
		if (!verdict.ok) problems.push(`${provider} rejects this name (${verdict.problem}; rule: ${verdict.rule})`);
	}
	return problems;
}

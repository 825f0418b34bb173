/**
 * Provider rules on tool names that are stricter than the registry's own. A name breaking one of
 * them still registers (most agents talk to one provider), but the author is told.
 */

interface ProviderRule {
	readonly provider: string;
	readonly test: RegExp;
	readonly rule: string;
}

const RULES: readonly ProviderRule[] = [
	{
		provider: "Google Gemini",
		test: /^[a-zA-Z_]/,
		rule: "function names must start with a letter or an underscore",
	},
];

/** One sentence per provider whose rule `name` breaks. */
export function providerNameProblems(name: string): string[] {
	return RULES.filter((rule) => !rule.test.test(name)).map(
		(rule) => `${rule.provider} rejects this name (${rule.rule})`,
	);
}

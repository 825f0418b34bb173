/** Tool-name rules of each provider (and of MCP), checked in one call. */
import { describeValue } from "../contract/errors.js";

/** Whether one provider (or MCP) accepts a tool name, and why not when it does not. */
export interface ToolNameVerdict {
	readonly ok: boolean;
	/** The rule, in words; set whether or not the name passes. */
	readonly rule: string;
	/** Why the name fails; undefined when it passes. */
	readonly problem?: string;
}

/** Whether each provider (and MCP) accepts a tool name, and why not where it does not. */
export interface ToolNameReport {
	readonly openai: ToolNameVerdict;
	readonly anthropic: ToolNameVerdict;
	readonly google: ToolNameVerdict;
	readonly mcp: ToolNameVerdict;
	/** True when every provider above accepts the name. */
	readonly portable: boolean;
}

interface Rule {
	readonly rule: string;
	readonly max: number;
	readonly chars: RegExp;
	readonly charsText: string;
	readonly first?: RegExp;
	readonly firstText?: string;
}

const RULES: Record<"openai" | "anthropic" | "google" | "mcp", Rule> = {
	openai: { rule: "^[a-zA-Z0-9_-]{1,64}$", max: 64, chars: /^[a-zA-Z0-9_-]*$/, charsText: "letters, digits, _ and -" },
	anthropic: {
		rule: "^[a-zA-Z0-9_-]{1,64}$",
		max: 64,
		chars: /^[a-zA-Z0-9_-]*$/,
		charsText: "letters, digits, _ and -",
	},
	google: {
		rule: "starts with a letter or _, then letters, digits, _ . : -; at most 64 characters",
		max: 64,
		chars: /^[a-zA-Z0-9_.:-]*$/,
		charsText: "letters, digits, _ . : and -",
		first: /^[a-zA-Z_]/,
		firstText: "a letter or _",
	},
	mcp: {
		rule: "^[a-zA-Z0-9_.-]{1,128}$",
		max: 128,
		chars: /^[a-zA-Z0-9_.-]*$/,
		charsText: "letters, digits, _ . and -",
	},
};

function verdict(name: string, rule: Rule): ToolNameVerdict {
	if (name.length === 0) return { ok: false, rule: rule.rule, problem: "the name is empty" };
	if (name.length > rule.max) {
		return {
			ok: false,
			rule: rule.rule,
			problem: `the name has ${name.length} characters; at most ${rule.max} are allowed`,
		};
	}
	if (!rule.chars.test(name)) {
		const bad = [...new Set([...name].filter((c) => !rule.chars.test(c)))].map((c) => JSON.stringify(c)).join(", ");
		return { ok: false, rule: rule.rule, problem: `${bad} not allowed (only ${rule.charsText})` };
	}
	if (rule.first && !rule.first.test(name)) {
		return { ok: false, rule: rule.rule, problem: `the name must start with ${rule.firstText}` };
	}
	return { ok: true, rule: rule.rule };
}

/**
 * Whether each provider accepts `name` as a tool name, with the reason when not. OpenAI and
 * Anthropic: `^[a-zA-Z0-9_-]{1,64}$`; Google: starts with a letter or underscore, then letters,
 * digits, `_ . : -`, at most 64; MCP: `^[a-zA-Z0-9_.-]{1,128}$`.
 */
export function checkToolName(name: string): ToolNameReport {
	const text = typeof name === "string" ? name : describeValue(name);
	const openai = verdict(text, RULES.openai);
	const anthropic = verdict(text, RULES.anthropic);
	const google = verdict(text, RULES.google);
	const mcp = verdict(text, RULES.mcp);
	return { openai, anthropic, google, mcp, portable: openai.ok && anthropic.ok && google.ok && mcp.ok };
}

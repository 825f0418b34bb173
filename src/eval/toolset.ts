/**
 * The tools of a scenario as one trial uses them: a registry holding the built-ins asked for and the
 * definitions given (extensions are loaded into it by the Node side), what the model is told of
 * them (descriptions overridden by `tools.descriptions`), the system prompt, and the executor's
 * configuration over a trial's env. Runtime-neutral.
 */
import type { ExecutionEnv } from "../contract/env.js";
import type { ToolContext, ToolContextFactory, ToolDefinition, ToolUI } from "../contract/tool.js";
import type { ExecuteToolCallsConfig } from "../exec/types.js";
import { createToolRegistry, type ToolRegistry } from "../extensions/registry.js";
import { buildToolsPrompt } from "../prompt/tools-prompt.js";
import { BUILTIN_TOOL_SETS, createBuiltinTools } from "../tools/builtins.js";
import type { EvalModelTool, EvalScenario, EvalTools } from "./types.js";

/** What one trial needs of the tools: what the model sees, the system prompt, and how to run a batch. */
export interface EvalToolset {
	readonly modelTools: readonly EvalModelTool[];
	readonly system: string;
	/** The executor's configuration (tools, extension hooks, callable tools) with contexts over `env`. */
	executorConfig(env: ExecutionEnv): ExecuteToolCallsConfig;
}

/** The built-in definitions `tools.builtins` asks for (`true`: every built-in; names: those, in that order). */
export function builtinDefinitions(option: EvalTools["builtins"]): ToolDefinition[] {
	if (option === undefined || option === false) return [];
	const all = createBuiltinTools({ set: "all" });
	if (option === true) return all;
	return option.map((name) => {
		const found = all.find((tool) => tool.name === name);
		if (!found)
			throw new Error(`tools.builtins: no built-in tool "${name}" (there are ${BUILTIN_TOOL_SETS.all.join(", ")})`);
		return found;
	});
}

/** A registry with the scenario's built-ins and definitions (extensions are loaded into it afterwards). */
export function scenarioRegistry(scenario: EvalScenario): ToolRegistry {
	return createToolRegistry({
		builtins: [...builtinDefinitions(scenario.tools?.builtins), ...(scenario.tools?.definitions ?? [])],
	});
}

const headlessUI: ToolUI = {
	select: async () => undefined,
	confirm: async () => false,
	input: async () => undefined,
	notify: () => {},
};

/** Contexts over `env` with no person to answer dialogs. */
export function evalContextFactory(env: ExecutionEnv): ToolContextFactory {
	return (info) => {
		const ctx: ToolContext = { env, cwd: env.cwd, hasUI: false, ui: headlessUI };
		return info.signal ? { ...ctx, signal: info.signal } : ctx;
	};
}

/** A schema as plain JSON (TypeBox's symbol keys dropped). */
function plainSchema(schema: unknown): Readonly<Record<string, unknown>> {
	return JSON.parse(JSON.stringify(schema ?? { type: "object" })) as Record<string, unknown>;
}

/**
 * The toolset of `registry` as it stands: the declared tools (what `prepareLoadout` hooks leave),
 * their descriptions replaced by `scenario.tools.descriptions`, and the system prompt: toolsmith's
 * tools section, then `scenario.system`. Throws when a description override names no declared tool.
 */
export function toolsetOf(registry: ToolRegistry, scenario: EvalScenario): EvalToolset {
	const snapshot = registry.snapshot();
	const overrides = scenario.tools?.descriptions ?? {};
	const declarations = snapshot.declarations();
	for (const name of Object.keys(overrides)) {
		if (!declarations.some((declaration) => declaration.name === name)) {
			throw new Error(
				`tools.descriptions: no tool "${name}" among the scenario's tools (${declarations.map((d) => d.name).join(", ") || "none"})`,
			);
		}
	}
	const modelTools: EvalModelTool[] = declarations.map((declaration) => ({
		name: declaration.name,
		description: overrides[declaration.name] ?? declaration.description,
		parameters: plainSchema(declaration.parameters),
	}));
	const promptTools = declarations.map((declaration) => {
		const definition = snapshot.get(declaration.name)?.definition;
		const description = overrides[declaration.name] ?? declaration.description;
		return {
			name: declaration.name,
			description,
			// An overridden description is what the comparison varies: the snippet then follows it.
			...(definition?.promptSnippet !== undefined && overrides[declaration.name] === undefined
				? { promptSnippet: definition.promptSnippet }
				: {}),
			...(definition?.promptGuidelines !== undefined ? { promptGuidelines: definition.promptGuidelines } : {}),
		};
	});
	const system = [buildToolsPrompt(promptTools), scenario.system ?? ""]
		.filter((part) => part.trim() !== "")
		.join("\n\n");
	return {
		modelTools,
		system,
		executorConfig: (env) => snapshot.executorConfig(evalContextFactory(env)),
	};
}

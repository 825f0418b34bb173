/** `createTestHarness`: the harness core plus extension files loaded through the real loader (Node only). */
import { resolve } from "node:path";
import type { ToolDefinition } from "../contract/tool.js";
import { loadExtensions } from "../extensions/node-loader.js";
import {
	finishHarness,
	type HarnessArguments,
	type HarnessBuiltins,
	type InlineExtension,
	inlinePath,
	type MemoryHarnessOptions,
	prepareHarness,
	type TestHarness,
} from "./harness.js";

/** Options for `createTestHarness`: those of `createMemoryHarness`, with extensions also given as paths loaded from disk. */
export interface TestHarnessOptions<
	TTool extends ToolDefinition = ToolDefinition,
	TBuiltins extends HarnessBuiltins = HarnessBuiltins,
> extends Omit<MemoryHarnessOptions<TTool, TBuiltins>, "extensions"> {
	/**
	 * Extensions to load: paths of extension files or folders (relative to `process.cwd()`), loaded
	 * with the same loader as production, and/or factories. A broken extension does not reject: it
	 * shows up in `harness.diagnostics`.
	 */
	readonly extensions?: readonly (string | InlineExtension)[];
}

/**
 * A harness with a MemoryExecutionEnv, the production registry and executor, the built-ins (unless
 * `builtins: false`), your tools and your extensions. Rejects only for an unusable seed.
 *
 * `harness.call` checks its arguments against the schemas of `tools` and of the built-ins; a tool
 * that only an extension registers takes any arguments.
 */
export async function createTestHarness<
	TTool extends ToolDefinition = ToolDefinition,
	TBuiltins extends HarnessBuiltins = true,
>(options: TestHarnessOptions<TTool, TBuiltins> = {}): Promise<TestHarness<HarnessArguments<TTool, TBuiltins>>> {
	const { env, runtime, diagnostics } = prepareHarness(options);
	const extensions = options.extensions ?? [];
	const paths = extensions.filter((e): e is string => typeof e === "string").map((p) => resolve(p));
	if (paths.length > 0) {
		const loaded = await loadExtensions(paths, { runtime });
		for (const diagnostic of loaded.diagnostics) if (!diagnostics.includes(diagnostic)) diagnostics.push(diagnostic);
	}
	const inline = extensions.filter((e): e is InlineExtension => typeof e !== "string");
	for (let i = 0; i < inline.length; i++) {
		const extension = inline[i]!;
		await runtime.activate(inlinePath(extension, i), typeof extension === "function" ? extension : extension.factory);
	}
	return finishHarness(runtime, env, diagnostics, options);
}

/**
 * `test`, `check`, `replay-session` and `schema`: options and help here; the engines (toolsmith-sdk/harness,
 * the provider converters) are imported when a command runs, so `--help` stays fast.
 */

import { UsageError } from "../command/args.js";
import { defineCommand } from "../command/node-command.js";
import type { ToolProvider } from "../providers/types.js";

const extensionsOption = {
	type: "string",
	multiple: true,
	valueName: "paths",
	description: "Extension files or folders whose tools are loaded next to the built-ins",
} as const;

export const testCommand = defineCommand({
	name: "test",
	summary: "Replay fixture files against your tools and print a summary",
	description: [
		"Each fixture seeds files and scripted commands, runs batches of tool calls on an in-memory env and",
		"checks the results. Folders are searched for *.json files (node_modules, dot-folders, package.json",
		'and tsconfig*.json skipped). A fixture\'s own "extensions" field (paths relative to the fixture)',
		"adds to --extensions. Every extension diagnostic (error, warning, info) is printed on stderr; an",
		"error fails the fixtures that load that extension. Prints one row per fixture and the report of",
		"each failing one; exits 1 when any fixture fails.",
	].join("\n"),
	options: {
		extensions: extensionsOption,
		verbose: { type: "boolean", description: "Also report the calls that passed" },
	},
	positionals: [
		{
			name: "fixtures",
			variadic: true,
			required: true,
			description: "Replay fixture files (JSON) or folders holding them",
		},
	],
	examples: ["toolsmith test test/fixtures/replay --extensions ./tools", "toolsmith test test/fixtures --extensions ."],
	async run({ options, positionals, io, theme, errorTheme }) {
		const { runTests } = await import("./_harness-run.js");
		return runTests({
			fixtures: positionals,
			extensions: options.extensions,
			verbose: options.verbose,
			io,
			theme,
			errorTheme,
		});
	},
});

export const checkCommand = defineCommand({
	name: "check",
	summary: "Run the conformance checks on the tools of extensions or an MCP server",
	description: [
		"Static checks (name, description, label, schema for each provider, prompt fields) and behavioral",
		"ones on an in-memory env (generated valid and near-miss arguments, abort, result shape, renderers,",
		"determinism). A project folder whose package.json names its entries (toolsmith.extensions or",
		"pi.extensions) is one extension package. Every extension diagnostic (error, warning, info) is",
		"printed on stderr. With the project's tsconfig.json and its own typescript, the files checked are",
		"also searched for conditions that test an env Result (always true) instead of its .ok; each one",
		"is an error on stderr. Exits 1 when a check fails that the baseline does not expect, when the",
		"baseline has a stale entry, when a condition tests a Result, or when loading went wrong (a missing",
		"path, a module that does not load or has no default-export function, a factory that throws, an",
		"invalid tool, incompatible engines). A failing session_start or session_shutdown handler is",
		"printed as an error but does not fail the check: it does not concern the checked tools.",
		"",
		"The behavioral checks run each tool on an empty in-memory env with arguments generated from its",
		"schema, so a tool that reads files or runs commands only fails there and its content check is",
		"skipped. Give it a world it succeeds in: --files <dir> copies a folder's files into the env",
		"(paths relative to the folder, node_modules and .git left out); --fixtures <paths> takes replay",
		"fixtures (files or folders of *.json): their files and scripted commands seed the env, and the",
		"arguments of every call not expecting an error become samples of its tool; --sample",
		"<tool>=<json> adds arguments of your own (repeatable). These samples run before the generated",
		"ones; where two sources give the same file, --files wins, then the later fixture.",
		"",
		"With --mcp, the tools of an MCP server are checked too (or alone): a command line that starts it",
		"over stdio (split as a shell splits it: quotes and backslashes work, nothing is expanded) or the",
		"http(s) URL of a Streamable HTTP server. Its calls act on the real world, not on an in-memory env,",
		"so only the tools the server marks read-only (readOnlyHint) are called; the others get the static",
		"checks, and --call-all calls them too. The server is closed when the check ends.",
	].join("\n"),
	options: {
		baseline: {
			type: "string",
			valueName: "file",
			description: 'Expected-failures baseline: { "expectedFailures": { "<tool>": ["<check id>"] } }',
		},
		nondeterministic: {
			type: "string",
			multiple: true,
			valueName: "tools",
			description: "Tools whose results depend on time, randomness or state: skip their determinism check",
		},
		files: {
			type: "string",
			multiple: true,
			commas: false,
			valueName: "dir",
			description: "A folder whose files the tools find in the env of the behavioral checks",
		},
		fixtures: {
			type: "string",
			multiple: true,
			valueName: "paths",
			description: "Replay fixtures whose files, commands and calls seed the behavioral checks",
		},
		sample: {
			type: "string",
			multiple: true,
			commas: false,
			valueName: "tool=json",
			description: "Arguments of your own for a tool, run before the generated ones",
		},
		verbose: { type: "boolean", description: "Show the details of passing checks too" },
		mcp: {
			type: "string",
			valueName: "command|url",
			description: "Also check the tools of an MCP server: the command that starts it, or its URL",
		},
		header: {
			type: "string",
			multiple: true,
			commas: false,
			valueName: "name: value",
			description: "With an --mcp URL: a header sent with every request (Authorization: Bearer …)",
		},
		"call-all": {
			type: "boolean",
			description: "With --mcp: also call the tools the server does not mark read-only",
		},
	},
	positionals: [{ name: "paths", variadic: true, description: "Extension files or folders to check" }],
	examples: [
		"toolsmith check .",
		"toolsmith check ./tools/weather.ts",
		"toolsmith check . --fixtures test/fixtures",
		'toolsmith check . --files test/files --sample \'word_count={"path":"notes.txt"}\'',
		"toolsmith check docs/examples --nondeterministic todo",
		"toolsmith check ./tools --baseline conformance-baseline.json",
		'toolsmith check --mcp "npx -y @modelcontextprotocol/server-everything"',
		'toolsmith check --mcp http://127.0.0.1:3000/mcp --header "Authorization: Bearer $TOKEN"',
	],
	async run({ options, positionals, io, theme, errorTheme }) {
		if (positionals.length === 0 && options.mcp === undefined) {
			throw new UsageError("give extension paths to check, or --mcp <command|url> for the tools of an MCP server");
		}
		if (options.mcp === undefined && (options.header.length > 0 || options["call-all"])) {
			throw new UsageError(`${options["call-all"] ? "--call-all" : "--header"} applies to --mcp only`);
		}
		if (positionals.length === 0 && (options.files.length > 0 || options.fixtures.length > 0)) {
			throw new UsageError(
				`${options.files.length > 0 ? "--files" : "--fixtures"} seeds the in-memory env of extension tools; an MCP server's tools act on the real world (give extension paths too)`,
			);
		}
		const { runCheck } = await import("./_harness-run.js");
		return runCheck({
			paths: positionals,
			mcp:
				options.mcp === undefined
					? undefined
					: { spec: options.mcp, headers: options.header, callAll: options["call-all"] },
			baseline: options.baseline,
			nondeterministic: options.nondeterministic,
			files: options.files,
			samples: options.sample,
			fixtures: options.fixtures,
			verbose: options.verbose,
			io,
			theme,
			errorTheme,
		});
	},
});

export const replaySessionCommand = defineCommand({
	name: "replay-session",
	summary: "Replay a recorded pi session through toolsmith's tools and report its fidelity",
	description: [
		"Every recorded call is replayed on an env rebuilt from the recording and classified as match,",
		"mismatch (with a diff) or unknowable (it depends on state the recording does not hold).",
		"Exits 1 when any call is a mismatch.",
	].join("\n"),
	options: {
		extensions: {
			...extensionsOption,
			description: "Extension files or folders whose tools replace or join the built-ins in the replay",
		},
		verbose: { type: "boolean", description: "List every call, not only the mismatches" },
	},
	positionals: [{ name: "file", required: true, description: "A recorded session (.jsonl)" }],
	examples: ["toolsmith replay-session ~/.pi/agent/sessions/run.jsonl"],
	async run({ options, positionals, io, theme }) {
		const { runReplaySession } = await import("./_harness-run.js");
		return runReplaySession({
			file: positionals[0]!,
			extensions: options.extensions,
			verbose: options.verbose,
			io,
			theme,
		});
	},
});

export const schemaCommand = defineCommand({
	name: "schema",
	summary: "Print tools in a provider's wire format, with what the provider rewrites",
	description: [
		"The provider's tool list goes to stdout as JSON (ready to paste into a request); the report of",
		"rewritten and rejected schemas goes to stderr. Tools a provider would reject are left out of the",
		"JSON and make the command exit 1. Without paths, the built-in tools are printed.",
	].join("\n"),
	options: {
		provider: {
			type: "string",
			choices: ["openai", "openai-chat", "openai-responses", "anthropic", "google"],
			default: "openai",
			description: "The wire format: openai (= openai-chat), openai-responses, anthropic or google",
		},
		strict: { type: "boolean", description: "OpenAI strict function calling (per tool, when the schema allows it)" },
	},
	positionals: [
		{ name: "paths", variadic: true, description: "Extension files or folders (the built-ins without any)" },
	],
	examples: ["toolsmith schema ./tools --provider anthropic", "toolsmith schema --provider google > tools.json"],
	async run({ options, positionals, io, errorTheme }) {
		const { runSchema } = await import("./_schema.js");
		return runSchema({
			paths: positionals,
			provider: options.provider === "openai" ? "openai-chat" : (options.provider as ToolProvider),
			strict: options.strict,
			io,
			theme: errorTheme,
		});
	},
});

/**
 * `toolsmith new <name>`: add a tool to the project in the current folder (its source, test and
 * replay fixture, registered in `src/tools/index.ts`), with the generator `npm create toolsmith` uses.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { addTool, DEFAULT_TOOL_NAME, GeneratorError, packageRoot } from "../../create-tool/src/generator.js";
import { CommandError, defineCommand, EXIT_OK } from "../command/node-command.js";

export const newCommand = defineCommand({
	name: "new",
	summary: "Add a tool to this project: its source, a test and a replay fixture",
	description: [
		"Writes src/tools/<name>.ts, test/<name>.test.ts and test/fixtures/<name>.json from the tool",
		"template (a tool that counts the words of a file: replace its body), and registers the tool in",
		"src/tools/index.ts, which projects made by npm create toolsmith register from. Refuses, writing",
		"nothing, when one of the files exists. Names: a letter first, then letters, digits, _ and -.",
	].join("\n"),
	options: {
		cwd: { type: "string", short: "C", valueName: "dir", description: "The project folder (default: the current one)" },
		register: {
			type: "boolean",
			default: true,
			description: "Append the tool to src/tools/index.ts (--no-register writes only its files)",
		},
	},
	positionals: [{ name: "name", required: true, description: `The tool's name, e.g. ${DEFAULT_TOOL_NAME}` }],
	examples: ["toolsmith new fetch_issue", "toolsmith new lint-file --cwd packages/tools"],
	async run({ options, positionals, io, theme }) {
		const root = packageRoot(dirname(fileURLToPath(import.meta.url)), "toolsmith-sdk");
		if (!root) throw new CommandError("cannot find toolsmith-sdk's own package.json, which its templates sit beside");
		// An absolute --cwd stays as it is; a relative one is taken from the current folder.
		const projectDir = options.cwd === undefined ? io.cwd : resolve(io.cwd, options.cwd);
		if (options.cwd !== undefined && !(existsSync(projectDir) && statSync(projectDir).isDirectory())) {
			throw new CommandError(
				`--cwd ${options.cwd}: ${projectDir} is not a folder; give the folder of your tool project (npm create toolsmith makes one)`,
			);
		}
		let added: Awaited<ReturnType<typeof addTool>>;
		try {
			added = await addTool({
				templatesDir: join(root, "templates"),
				projectDir,
				toolName: positionals[0]!,
				register: options.register,
			});
		} catch (error) {
			if (error instanceof GeneratorError) throw new CommandError(error.message);
			throw error;
		}
		io.stdout.write(`Added the tool ${theme.bold(added.toolName)}:\n`);
		for (const file of added.files) {
			io.stdout.write(`  ${file}${file === added.registeredIn ? theme.fg("muted", " (registered)") : ""}\n`);
		}
		if (!added.registeredIn) {
			io.stdout.write("Register it in your extension: api.registerTool(...) with the tool from its file.\n");
		}
		return EXIT_OK;
	},
});

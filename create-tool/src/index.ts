/**
 * The `create-toolsmith` executable (`npm create toolsmith`): binds the command to the real process,
 * the terminal prompts and the templates shipped next to it.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as clack from "@clack/prompts";
import { runCommand } from "../../src/command/node-command.js";
import { processIO } from "../../src/command/node-io.js";
import { createCommand, createProgram, type Prompts } from "./create.js";
import { packageRoot } from "./generator.js";

const root = packageRoot(dirname(fileURLToPath(import.meta.url)), "create-toolsmith");
if (!root) throw new Error("create-toolsmith cannot find its own package.json");
const { version } = (await import(join(root, "package.json"), { with: { type: "json" } })).default as {
	version: string;
};
// The package ships a copy of the templates; in the repository they live once, beside this package.
const templatesDir = [join(root, "templates"), join(dirname(root), "templates")].find((dir) => existsSync(dir))!;

/** clack answers Ctrl-C and Esc with a symbol; the command takes `undefined` for them. */
function answer<T>(value: T): Exclude<T, symbol> | undefined {
	return typeof value === "symbol" ? undefined : (value as Exclude<T, symbol>);
}

const prompts: Prompts = {
	intro: (title) => clack.intro(title),
	text: async (question) =>
		answer(
			await clack.text({
				message: question.message,
				placeholder: question.placeholder,
				defaultValue: question.placeholder,
				validate: (value) => question.validate(value ?? ""),
			}),
		),
	select: async (question) =>
		answer(
			await clack.select({ message: question.message, options: question.options.map((option) => ({ ...option })) }),
		),
	confirm: async (question) => answer(await clack.confirm(question)),
	async progress(message, task) {
		const spin = clack.spinner();
		spin.start(message);
		try {
			const result = await task();
			spin.stop(message);
			return result;
		} catch (error) {
			spin.error(message);
			throw error;
		}
	},
	step: (message) => clack.log.step(message),
	outro: (message) => clack.outro(message),
	cancel: (message) => clack.cancel(message),
};

const io = processIO();

const argv = process.argv.slice(2);
const command = createCommand({ templatesDir, toolsmithVersion: version, prompts });
async function main(): Promise<number> {
	if (argv[0] === "--version" || argv[0] === "-v") {
		process.stdout.write(`${version}\n`);
		return 0;
	}
	return runCommand(createProgram(version), command, argv, io);
}

const code = await main();
process.stdout.write("", () => process.exit(code));

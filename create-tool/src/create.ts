/**
 * `npm create toolsmith [directory]`: asks what it needs on a terminal, takes everything from flags
 * otherwise, renders the template with the generator, then installs and initializes git.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UsageError } from "../../src/command/args.js";
import {
	CommandError,
	type CommandSpec,
	defineCommand,
	EXIT_INTERRUPTED,
	EXIT_OK,
	type Program,
} from "../../src/command/node-command.js";
import { API_VERSION } from "../../src/extensions/api.js";
import {
	DEFAULT_TOOL_NAME,
	displayPath,
	GeneratorError,
	generateProject,
	listTemplates,
	PACKAGE_MANAGERS,
	type PackageManager,
	packageManagerCommands,
	packageManagerFromAgent,
	type TemplateInfo,
	targetRefusal,
	toolNameProblem,
	toolsmithDependencySpec,
} from "./generator.js";

/** The questions asked on a terminal. Each resolves to the answer, or to `undefined` for Ctrl-C / Esc. */
export interface Prompts {
	intro(title: string): void;
	text(question: {
		message: string;
		placeholder: string;
		validate: (value: string) => string | undefined;
	}): Promise<string | undefined>;
	select(question: {
		message: string;
		options: readonly { value: string; label: string; hint: string }[];
	}): Promise<string | undefined>;
	confirm(question: { message: string; initialValue: boolean }): Promise<boolean | undefined>;
	/** A line of progress, in the prompts' style. */
	step(message: string): void;
	/** Shown while `task` runs (an install). */
	progress<T>(message: string, task: () => Promise<T>): Promise<T>;
	outro(message: string): void;
	cancel(message: string): void;
}

/** Runs a program to its exit code (`install`, `git init`), its output going to the user. */
export type Runner = (
	command: string,
	args: readonly string[],
	options: {
		readonly cwd: string;
		readonly env: Readonly<Record<string, string | undefined>>;
		readonly quiet: boolean;
	},
) => Promise<number>;

export interface CreateSetup {
	/** The templates folder (a copy of the repository's `templates/`). */
	readonly templatesDir: string;
	/** The toolsmith-sdk version this create-toolsmith was released with: the default dependency is `^` it. */
	readonly toolsmithVersion: string;
	/** The questions; without them (or off a terminal) nothing is asked. */
	readonly prompts?: Prompts;
	readonly run?: Runner;
}

/** The real runner: the child inherits the terminal (or is silent, while a spinner shows). */
export const spawnRunner: Runner = (command, args, options) =>
	new Promise((done) => {
		const child = spawn(command, [...args], {
			cwd: options.cwd,
			env: { ...options.env },
			stdio: options.quiet ? "ignore" : ["ignore", "inherit", "inherit"],
		});
		child.on("error", () => done(127));
		child.on("close", (code, signal) => done(code ?? (signal ? 128 : 1)));
	});

const DEFAULT_DIRECTORY = "my-tools";

function templateUsage(name: string, templates: readonly TemplateInfo[]): UsageError {
	return new UsageError(`unknown template '${name}': use one of ${templates.map((t) => `'${t.name}'`).join(", ")}`);
}

export function createCommand(setup: CreateSetup): CommandSpec {
	return defineCommand({
		name: "toolsmith",
		summary: "Start a project of tools for LLM coding agents, with tests that pass on the first run",
		description: [
			"On a terminal it asks for what the flags do not say; otherwise (or with --yes) it uses the",
			"defaults. The project is written to a temporary folder and moved into place, so an error never",
			"leaves half a project; an existing folder that is not empty is refused. With npm, pass flags",
			"after --: npm create toolsmith@latest my-tools -- --template stateful. --version prints the version.",
		].join("\n"),
		options: {
			template: { type: "string", short: "t", valueName: "name", description: "The template (see --list)" },
			list: { type: "boolean", description: "List the templates and exit" },
			yes: { type: "boolean", short: "y", description: "Ask nothing: defaults for everything not given" },
			install: { type: "boolean", default: true, description: "Install the dependencies" },
			git: {
				type: "boolean",
				description: "Initialize a git repository, or not with --no-git (default: yes, unless inside one)",
			},
			pm: {
				type: "string",
				choices: PACKAGE_MANAGERS,
				valueName: "manager",
				description: "The package manager for install and the README (default: the one running this)",
			},
			toolsmith: {
				type: "string",
				valueName: "spec",
				description: "The toolsmith-sdk dependency: a version, a range, a path or a tarball",
			},
			tool: { type: "string", valueName: "name", description: `The first tool's name (default: ${DEFAULT_TOOL_NAME})` },
		},
		positionals: [{ name: "directory", description: `Where the project goes (default: ${DEFAULT_DIRECTORY})` }],
		examples: [
			"npm create toolsmith@latest my-tools",
			"npm create toolsmith@latest my-tools -- --template stateful --yes",
			"create-toolsmith my-tools --yes --no-install --toolsmith ../toolsmith-sdk-0.1.0.tgz",
		],
		async run({ options, positionals, given, io, theme }) {
			const templates = listTemplates(setup.templatesDir);
			if (options.list) {
				const width = Math.max(...templates.map((t) => t.name.length));
				for (const t of templates) io.stdout.write(`${theme.bold(t.name.padEnd(width))}  ${t.description}\n`);
				return EXIT_OK;
			}
			if (options.template !== undefined && !templates.some((t) => t.name === options.template)) {
				throw templateUsage(options.template, templates);
			}
			if (options.tool !== undefined) {
				const problem = toolNameProblem(options.tool);
				if (problem) throw new UsageError(`invalid value '${options.tool}' for --tool: ${problem}`);
			}
			const prompts = !options.yes && io.stdin.isTTY && io.stdout.isTTY ? setup.prompts : undefined;
			const cancelled = () => {
				prompts?.cancel("Cancelled: nothing was written.");
				return EXIT_INTERRUPTED;
			};
			const pm: PackageManager =
				(options.pm as PackageManager | undefined) ?? packageManagerFromAgent(io.env.npm_config_user_agent);
			prompts?.intro("create-toolsmith");

			let directory = positionals[0];
			if (directory === undefined && prompts) {
				directory = await prompts.text({
					message: "Where should the project go?",
					placeholder: DEFAULT_DIRECTORY,
					validate: (value) => {
						return targetRefusal(resolve(io.cwd, value.trim() || DEFAULT_DIRECTORY))?.message;
					},
				});
				if (directory === undefined) return cancelled();
			}
			const dir = resolve(io.cwd, directory?.trim() || DEFAULT_DIRECTORY);

			let template = options.template;
			if (template === undefined && prompts) {
				template = await prompts.select({
					message: "Which template?",
					options: templates.map((t) => ({ value: t.name, label: t.name, hint: t.description })),
				});
				if (template === undefined) return cancelled();
			}
			template ??= "tool";

			let install = options.install;
			if (!given.has("install") && prompts) {
				const answer = await prompts.confirm({ message: `Install the dependencies now (${pm})?`, initialValue: true });
				if (answer === undefined) return cancelled();
				install = answer;
			}
			const insideRepo = await isInsideGitRepo(dirname(dir), setup.run ?? spawnRunner, io.env);
			let git = given.has("git") ? options.git : !insideRepo;
			if (!given.has("git") && !insideRepo && prompts) {
				const answer = await prompts.confirm({ message: "Initialize a git repository?", initialValue: true });
				if (answer === undefined) return cancelled();
				git = answer;
			}

			let project: Awaited<ReturnType<typeof generateProject>>;
			try {
				project = await generateProject({
					templatesDir: setup.templatesDir,
					template,
					targetDir: dir,
					...(options.tool !== undefined ? { toolName: options.tool } : {}),
					toolsmithSpec: toolsmithDependencySpec(options.toolsmith ?? `^${setup.toolsmithVersion}`, io.cwd),
					apiRange: `^${API_VERSION}`,
					packageManager: pm,
				});
			} catch (error) {
				if (error instanceof GeneratorError) throw new CommandError(error.message);
				throw error;
			}
			const where = displayPath(project.dir, io.cwd);
			const say = (line: string) => (prompts ? prompts.step(line) : io.stdout.write(`${line}\n`));
			say(`Created ${where} from the '${template}' template (${project.files.length} files).`);

			const commands = packageManagerCommands(pm);
			const run = setup.run ?? spawnRunner;
			if (install) {
				const task = () => run(pm, ["install"], { cwd: project.dir, env: io.env, quiet: prompts !== undefined });
				const code = prompts ? await prompts.progress(`Installing with ${pm}`, task) : await task();
				if (code !== 0) {
					throw new CommandError(
						`'${pm} install' failed (exit code ${code}); the project is in ${where}: fix the cause and run '${commands.install}' there`,
					);
				}
				say(`Installed the dependencies with ${pm}.`);
			}
			if (git) {
				const code = await run("git", ["init", "--quiet"], { cwd: project.dir, env: io.env, quiet: true });
				say(code === 0 ? "Initialized a git repository." : "Could not run 'git init' (is git installed?); skipped.");
			}

			const steps: [string, string][] = [
				...(where === "."
					? []
					: [[`cd ${where.includes(" ") ? JSON.stringify(where) : where}`, ""] as [string, string]]),
				...(install ? [] : [[commands.install, ""] as [string, string]]),
				[`${commands.run} dev`, "# try the tools; edits reload at once"],
				[commands.test, "# the tests pass as generated"],
			];
			const width = Math.max(...steps.map(([command]) => command.length));
			const next = steps.map(([command, note]) => (note ? `${command.padEnd(width)}  ${note}` : command));
			if (prompts) prompts.outro(`Next:\n${next.map((line) => `  ${line}`).join("\n")}`);
			else say(`\nNext:\n${next.map((line) => `  ${line}`).join("\n")}`);
			return EXIT_OK;
		},
	});
}

async function isInsideGitRepo(
	dir: string,
	run: Runner,
	env: Readonly<Record<string, string | undefined>>,
): Promise<boolean> {
	let existing = dir;
	while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
	return (await run("git", ["rev-parse", "--is-inside-work-tree"], { cwd: existing, env, quiet: true })) === 0;
}

/** `create-toolsmith` as a program of one command, for the command framework's help and errors. */
export function createProgram(version: string): Program {
	return { name: "npm create", version, summary: "start a toolsmith project", commands: [] };
}

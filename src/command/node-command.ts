/**
 * The command framework: commands declared as data (name, summary, options, positionals, run), help
 * text generated from them, and one dispatcher that maps every outcome to an exit code:
 * 0 success, 1 failure, 2 usage error (130 when the user interrupted with Ctrl-C twice).
 */
import { errorMessage } from "../contract/errors.js";
import type { Theme } from "../contract/render.js";
import { visibleWidth } from "../render/width.js";
import {
	closest,
	type OptionSpecs,
	type ParsedOptions,
	type PositionalSpec,
	parseArgs,
	UsageError,
	valueLabel,
} from "./args.js";
import { type CliIO, themeFor } from "./node-io.js";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;

/** What a command's `run` receives. */
export interface CommandContext<T extends OptionSpecs> {
	readonly options: ParsedOptions<T>;
	readonly positionals: string[];
	readonly io: CliIO;
	/** Styles for stdout (plain unless stdout should be colored). */
	readonly theme: Theme;
	/** Styles for stderr. */
	readonly errorTheme: Theme;
	/** `toolsmith <command>`, for messages. */
	readonly commandName: string;
	readonly version: string;
	/** The options spelled on the command line, to tell an explicit `--no-x` from a default. */
	readonly given: ReadonlySet<string>;
}

export interface CommandSpec<T extends OptionSpecs = OptionSpecs> {
	readonly name: string;
	/** One line for the command list. */
	readonly summary: string;
	/** Paragraphs shown by `<command> --help` under the usage line. */
	readonly description?: string;
	readonly options: T;
	readonly positionals?: readonly PositionalSpec[];
	readonly examples?: readonly string[];
	/**
	 * Runs the command; resolves to its exit code. May throw `UsageError` (printed with a usage hint,
	 * exit 2) or `CommandError` (its message printed, its exit code used); anything else thrown is
	 * reported as an internal error with exit code 1.
	 */
	run(context: CommandContext<T>): Promise<number> | number;
}

/** A failure the command already explained: the message is printed as is, without a stack. */
export class CommandError extends Error {
	override readonly name = "CommandError";
	readonly exitCode: number;
	constructor(message: string, exitCode = EXIT_FAILURE) {
		super(message);
		this.exitCode = exitCode;
	}
}

/** Identity helper that keeps the option types, so `run` sees typed options. */
export function defineCommand<const T extends OptionSpecs>(spec: CommandSpec<T>): CommandSpec<T> {
	return spec;
}

export interface Program {
	readonly name: string;
	readonly version: string;
	readonly summary: string;
	readonly commands: readonly CommandSpec<OptionSpecs>[];
}

function table(rows: readonly (readonly [string, string])[], indent = "  "): string[] {
	const width = Math.max(0, ...rows.map(([left]) => visibleWidth(left)));
	return rows.map(([left, right]) =>
		right === "" ? `${indent}${left}` : `${indent}${left}${" ".repeat(width - visibleWidth(left) + 2)}${right}`,
	);
}

function optionLabel(name: string, spec: OptionSpecs[string]): string {
	const short = spec.short ? `-${spec.short}, ` : "    ";
	const value = spec.type === "boolean" ? "" : ` ${valueLabel(spec)}`;
	const negation = spec.type === "boolean" && spec.default === true ? `, --no-${name}` : "";
	return `${short}--${name}${negation}${value}`;
}

function optionDescription(spec: OptionSpecs[string]): string {
	const notes: string[] = [];
	if (spec.type === "string" && typeof spec.default === "string") notes.push(`default: ${spec.default}`);
	if (spec.type === "boolean" && spec.default === true) notes.push("on by default");
	if (spec.multiple) notes.push("repeatable");
	return notes.length > 0 ? `${spec.description} (${notes.join("; ")})` : spec.description;
}

function positionalUsage(p: PositionalSpec): string {
	const inner = `${p.name}${p.variadic ? "..." : ""}`;
	return p.required ? `<${inner}>` : `[${inner}]`;
}

/** `toolsmith <command> --help`. */
export function commandHelp(program: Program, command: CommandSpec<OptionSpecs>, theme: Theme): string {
	const head = (text: string) => theme.bold(text);
	const usage = [`${program.name} ${command.name}`, ...(command.positionals ?? []).map(positionalUsage), "[options]"];
	const lines = [`${head("Usage:")} ${usage.join(" ")}`, "", command.summary];
	if (command.description) lines.push("", ...command.description.split("\n"));
	const args = command.positionals ?? [];
	if (args.length > 0) {
		lines.push("", head("Arguments:"), ...table(args.map((p) => [p.name, p.description])));
	}
	const optionRows: [string, string][] = Object.entries(command.options).map(([name, spec]) => [
		optionLabel(name, spec),
		optionDescription(spec),
	]);
	optionRows.push(["-h, --help", "Show this help"]);
	lines.push("", head("Options:"), ...table(optionRows));
	if (command.examples && command.examples.length > 0) {
		lines.push("", head("Examples:"), ...command.examples.map((e) => `  ${e}`));
	}
	return `${lines.join("\n")}\n`;
}

/** `toolsmith --help`. */
export function programHelp(program: Program, theme: Theme): string {
	const head = (text: string) => theme.bold(text);
	const lines = [
		`${program.name} ${program.version} · ${program.summary}`,
		"",
		`${head("Usage:")} ${program.name} <command> [options]`,
		"",
		head("Commands:"),
		...table(program.commands.map((c) => [c.name, c.summary])),
		"",
		head("Options:"),
		...table([
			["-h, --help", "Show this help"],
			["-v, --version", "Show the version"],
		]),
		"",
		`Run '${program.name} <command> --help' for the options of a command.`,
		"Exit codes: 0 success, 1 failure, 2 usage error, 130 interrupted.",
	];
	return `${lines.join("\n")}\n`;
}

function usageFailure(io: CliIO, prefix: string, message: string, hint: string): number {
	const theme = themeFor(io.stderr, io.env);
	io.stderr.write(`${prefix}: ${theme.fg("error", message)}\n${hint}\n`);
	return EXIT_USAGE;
}

function wantsHelp(argv: readonly string[]): boolean {
	for (const arg of argv) {
		if (arg === "--") return false;
		if (arg === "--help" || arg === "-h") return true;
	}
	return false;
}

/** Run `argv` (the arguments after the program name) and resolve to the exit code. Never throws. */
export async function runProgram(program: Program, argv: readonly string[], io: CliIO): Promise<number> {
	const theme = themeFor(io.stdout, io.env);
	const rootHint = `Run '${program.name} --help' for usage.`;
	const first = argv[0];
	if (first === undefined) {
		io.stderr.write(programHelp(program, themeFor(io.stderr, io.env)));
		return EXIT_USAGE;
	}
	if (first === "--help" || first === "-h") {
		io.stdout.write(programHelp(program, theme));
		return EXIT_OK;
	}
	if (first === "--version" || first === "-v") {
		io.stdout.write(`${program.version}\n`);
		return EXIT_OK;
	}
	const names = program.commands.map((c) => c.name);
	if (first === "help") {
		const topic = argv[1];
		if (topic === undefined) {
			io.stdout.write(programHelp(program, theme));
			return EXIT_OK;
		}
		const command = program.commands.find((c) => c.name === topic);
		if (!command) {
			const guess = closest(topic, names);
			return usageFailure(
				io,
				program.name,
				`unknown command '${topic}'${guess ? ` (did you mean '${guess}'?)` : ""}`,
				rootHint,
			);
		}
		io.stdout.write(commandHelp(program, command, theme));
		return EXIT_OK;
	}
	if (first.startsWith("-")) {
		return usageFailure(io, program.name, `unknown option '${first}'`, rootHint);
	}
	const command = program.commands.find((c) => c.name === first);
	if (!command) {
		const guess = closest(first, names);
		return usageFailure(
			io,
			program.name,
			`unknown command '${first}'${guess ? ` (did you mean '${guess}'?)` : ""}`,
			rootHint,
		);
	}
	return runCommand(program, command, argv.slice(1), io);
}

/**
 * Run one command of `program` with its arguments (`--help` among them shows its help) and resolve
 * to the exit code. Never throws. A program of one command (`create-toolsmith`) calls it directly.
 */
export async function runCommand(
	program: Program,
	command: CommandSpec<OptionSpecs>,
	argv: readonly string[],
	io: CliIO,
): Promise<number> {
	const theme = themeFor(io.stdout, io.env);
	const commandName = `${program.name} ${command.name}`;
	if (wantsHelp(argv)) {
		io.stdout.write(commandHelp(program, command, theme));
		return EXIT_OK;
	}
	const commandHint = `Run '${commandName} --help' for usage.`;
	try {
		const parsed = parseArgs(argv, { options: command.options, positionals: command.positionals ?? [] });
		return await command.run({
			options: parsed.options,
			positionals: parsed.positionals,
			given: parsed.given,
			io,
			theme,
			errorTheme: themeFor(io.stderr, io.env),
			commandName,
			version: program.version,
		});
	} catch (error) {
		if (error instanceof UsageError) return usageFailure(io, commandName, error.message, commandHint);
		const errorTheme = themeFor(io.stderr, io.env);
		if (error instanceof CommandError) {
			io.stderr.write(`${commandName}: ${errorTheme.fg("error", error.message)}\n`);
			return error.exitCode;
		}
		let detail: string;
		try {
			detail = error instanceof Error ? (error.stack ?? error.message) : errorMessage(error);
		} catch {
			// a stack or message getter that throws
			detail = errorMessage(error);
		}
		io.stderr.write(`${commandName}: ${errorTheme.fg("error", "internal error")}\n${detail}\n`);
		return EXIT_FAILURE;
	}
}

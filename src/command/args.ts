/**
 * A small argument parser following the usual conventions: `--flag value`, `--flag=value`, `-f value`,
 * clusters of short booleans (`-ab`), `--no-flag` for booleans, and `--` ending the options. Every
 * mistake is a `UsageError` whose message says what was wrong and how to fix it.
 */

export interface OptionSpec {
	/** `boolean` options take no value; `string` options take exactly one. */
	readonly type: "boolean" | "string";
	/** One letter, used as `-x`. */
	readonly short?: string;
	/** The option may be given several times; the values are collected (commas also separate them). */
	readonly multiple?: boolean;
	/** With `multiple`: `false` keeps commas inside a value (for values that may hold them, like headers). */
	readonly commas?: boolean;
	/** The only values accepted. */
	readonly choices?: readonly string[];
	/** Placeholder in help (`--cwd <dir>`); `value` by default. */
	readonly valueName?: string;
	/** Used when the option is absent (strings: a value; booleans: `true` makes `--no-<name>` useful). */
	readonly default?: string | boolean;
	readonly description: string;
}

export interface PositionalSpec {
	readonly name: string;
	readonly description: string;
	/** Takes every remaining positional argument. Only the last positional may be variadic. */
	readonly variadic?: boolean;
	readonly required?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type OptionValue<O extends OptionSpec> = O["type"] extends "boolean"
	? boolean
	: O["multiple"] extends true
		? string[]
		: O["default"] extends string
			? string
			: string | undefined;

/** The parsed options, typed from their specs. */
export type ParsedOptions<T extends OptionSpecs> = { -readonly [K in keyof T]: OptionValue<T[K]> };

export interface ParsedArgs<T extends OptionSpecs> {
	readonly options: ParsedOptions<T>;
	/** Positional arguments in order (including everything after `--`). */
	readonly positionals: string[];
	/** The options spelled on the command line (`--no-x` counts as giving `x`), to tell them from defaults. */
	readonly given: ReadonlySet<keyof T & string>;
}

/** A mistake in how the command was called: the CLI prints it with a usage hint and exits with 2. */
export class UsageError extends Error {
	override readonly name = "UsageError";
}

/** Edit distance where swapping two neighbouring letters counts as one edit, for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
	const rows: number[][] = [];
	for (let i = 0; i <= a.length; i++) {
		const row = [i];
		for (let j = 1; j <= b.length; j++) {
			if (i === 0) {
				row.push(j);
				continue;
			}
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			let best = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
				best = Math.min(best, rows[i - 2]![j - 2]! + 1);
			}
			row.push(best);
		}
		rows.push(row);
	}
	return rows[a.length]![b.length]!;
}

/** The closest candidate to `input`, if one is close enough to be a likely typo. */
export function closest(input: string, candidates: readonly string[]): string | undefined {
	let best: string | undefined;
	let bestDistance = Number.POSITIVE_INFINITY;
	for (const candidate of candidates) {
		const distance = editDistance(input, candidate);
		if (distance < bestDistance) {
			best = candidate;
			bestDistance = distance;
		}
	}
	return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

/** The placeholder of an option's value: `<dir>`, `<node|memory>`, `<value>`. */
export function valueLabel(spec: OptionSpec | undefined): string {
	return `<${spec?.valueName ?? (spec?.choices ? spec.choices.join("|") : "value")}>`;
}

function describeChoices(choices: readonly string[]): string {
	const quoted = choices.map((c) => `'${c}'`);
	return quoted.length <= 2 ? quoted.join(" or ") : `one of ${quoted.join(", ")}`;
}

/** `--name` or `-s` spelling of an option, for messages. */
function display(name: string): string {
	return name.length === 1 ? `-${name}` : `--${name}`;
}

/**
 * Parse `argv` (the arguments after the command name) against the specs. Throws `UsageError` for an
 * unknown option, a missing or unexpected value, a value not among `choices`, a missing required
 * positional, or too many positionals.
 */
export function parseArgs<const T extends OptionSpecs>(
	argv: readonly string[],
	specs: { readonly options: T; readonly positionals?: readonly PositionalSpec[] },
): ParsedArgs<T> {
	const options: Record<string, string | boolean | string[] | undefined> = {};
	const byShort = new Map<string, string>();
	for (const [name, spec] of Object.entries(specs.options)) {
		if (spec.short) byShort.set(spec.short, name);
		options[name] =
			spec.type === "boolean" ? spec.default === true : spec.multiple ? [] : (spec.default as string | undefined);
	}
	const positionals: string[] = [];
	const given = new Set<string>();
	const longNames = Object.keys(specs.options);

	const unknown = (given: string): never => {
		const suggestion = given.startsWith("--") ? closest(given.slice(2), longNames) : undefined;
		throw new UsageError(`unknown option '${given}'${suggestion ? ` (did you mean '--${suggestion}'?)` : ""}`);
	};

	const setValue = (name: string, spec: OptionSpec, value: string) => {
		const values = spec.multiple && spec.commas !== false ? value.split(",").filter((v) => v !== "") : [value];
		for (const v of values) {
			if (spec.choices && !spec.choices.includes(v)) {
				throw new UsageError(`invalid value '${v}' for ${display(name)}: expected ${describeChoices(spec.choices)}`);
			}
		}
		if (spec.multiple) (options[name] as string[]).push(...values);
		else options[name] = value;
		given.add(name);
	};

	// A value may not look like an option: `--cwd --env` is far more likely a forgotten value than a
	// directory called `--env`. `--cwd=--env` still works for the rare real case.
	const takeValue = (name: string, index: number, spelled = display(name)): string => {
		const next = argv[index + 1];
		if (next === undefined || (next.startsWith("-") && next !== "-")) {
			throw new UsageError(`option ${spelled} needs a value: ${spelled} ${valueLabel(specs.options[name])}`);
		}
		return next;
	};

	let i = 0;
	for (; i < argv.length; i++) {
		const arg = argv[i]!;
		if (arg === "--") {
			i++;
			break;
		}
		if (arg.startsWith("--")) {
			const eq = arg.indexOf("=");
			const rawName = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
			const inline = eq === -1 ? undefined : arg.slice(eq + 1);
			let spec = specs.options[rawName];
			if (!spec && rawName.startsWith("no-")) {
				const positive = specs.options[rawName.slice(3)];
				if (positive?.type === "boolean") {
					if (inline !== undefined) throw new UsageError(`option --${rawName} does not take a value`);
					options[rawName.slice(3)] = false;
					given.add(rawName.slice(3));
					continue;
				}
			}
			if (!spec) spec = unknown(eq === -1 ? arg : arg.slice(0, eq));
			if (spec.type === "boolean") {
				if (inline !== undefined) throw new UsageError(`option --${rawName} does not take a value`);
				options[rawName] = true;
				given.add(rawName);
			} else if (inline !== undefined) {
				if (inline === "") throw new UsageError(`option --${rawName} needs a value: --${rawName}=${valueLabel(spec)}`);
				setValue(rawName, spec, inline);
			} else {
				setValue(rawName, spec, takeValue(rawName, i));
				i++;
			}
			continue;
		}
		if (arg.startsWith("-") && arg.length > 1) {
			// `-abc` is a cluster of short options; a string option takes the rest of the cluster
			// (`-efoo`, `-e=foo`) or, at the end of it, the next argument.
			for (let j = 1; j < arg.length; j++) {
				const letter = arg[j]!;
				const name = byShort.get(letter);
				if (name === undefined) unknown(`-${letter}`);
				const spec = specs.options[name!]!;
				if (spec.type === "boolean") {
					options[name!] = true;
					given.add(name!);
					continue;
				}
				const rest = arg.slice(j + 1).replace(/^=/, "");
				if (rest !== "") setValue(name!, spec, rest);
				else {
					setValue(name!, spec, takeValue(name!, i, `-${letter}`));
					i++;
				}
				break;
			}
			continue;
		}
		positionals.push(arg);
	}
	positionals.push(...argv.slice(i));

	const declared = specs.positionals ?? [];
	const required = declared.filter((p) => p.required);
	if (positionals.length < required.length) {
		const missing = required[positionals.length]!;
		throw new UsageError(`missing argument <${missing.name}>`);
	}
	const variadic = declared.some((p) => p.variadic);
	if (!variadic && positionals.length > declared.length) {
		const extra = positionals[declared.length]!;
		throw new UsageError(
			declared.length === 0 ? `unexpected argument '${extra}'` : `too many arguments: unexpected '${extra}'`,
		);
	}
	return { options: options as ParsedOptions<T>, positionals, given: given as ReadonlySet<keyof T & string> };
}

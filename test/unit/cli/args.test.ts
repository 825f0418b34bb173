import { describe, expect, it } from "vitest";
import { closest, parseArgs, UsageError } from "../../../src/command/args.js";

const specs = {
	options: {
		env: { type: "string", choices: ["node", "memory"], default: "node", description: "" },
		cwd: { type: "string", short: "C", valueName: "dir", description: "" },
		watch: { type: "boolean", default: true, description: "" },
		verbose: { type: "boolean", short: "V", description: "" },
		quiet: { type: "boolean", short: "q", description: "" },
		extensions: { type: "string", multiple: true, short: "e", description: "" },
	},
	positionals: [{ name: "paths", variadic: true, description: "" }],
} as const;

const usage = (argv: string[]) => {
	try {
		parseArgs(argv, specs);
	} catch (error) {
		expect(error).toBeInstanceOf(UsageError);
		return (error as Error).message;
	}
	throw new Error("expected a UsageError");
};

describe("parseArgs", () => {
	it("applies defaults", () => {
		expect(parseArgs([], specs)).toEqual({
			options: { env: "node", cwd: undefined, watch: true, verbose: false, quiet: false, extensions: [] },
			positionals: [],
			given: new Set(),
		});
	});

	it("tells the options given on the command line from defaults", () => {
		expect([...parseArgs(["--no-watch", "-V", "--env=memory", "-e", "a", "x.ts"], specs).given].sort()).toEqual([
			"env",
			"extensions",
			"verbose",
			"watch",
		]);
		expect(parseArgs(["--watch"], specs).given.has("watch")).toBe(true);
	});

	it("accepts --flag value, --flag=value, short options and clusters", () => {
		const parsed = parseArgs(["a.ts", "--env", "memory", "--cwd=/w", "-Vq", "b.ts"], specs);
		expect(parsed.options).toMatchObject({ env: "memory", cwd: "/w", verbose: true, quiet: true });
		expect(parsed.positionals).toEqual(["a.ts", "b.ts"]);
		expect(parseArgs(["-C", "dir"], specs).options.cwd).toBe("dir");
		expect(parseArgs(["-Cdir"], specs).options.cwd).toBe("dir");
		expect(parseArgs(["-qC=dir"], specs).options).toMatchObject({ quiet: true, cwd: "dir" });
	});

	it("negates booleans with --no-", () => {
		expect(parseArgs(["--no-watch"], specs).options.watch).toBe(false);
		expect(usage(["--no-watch=1"])).toBe("option --no-watch does not take a value");
		expect(usage(["--no-env"])).toBe("unknown option '--no-env'");
	});

	it("collects repeated and comma-separated values of a multiple option", () => {
		expect(parseArgs(["--extensions", "a,b", "-e", "c", "--extensions=d"], specs).options.extensions).toEqual([
			"a",
			"b",
			"c",
			"d",
		]);
	});

	it("keeps commas inside the values of a multiple option declared with commas: false", () => {
		const headers = {
			options: { header: { type: "string", multiple: true, commas: false, description: "" } },
		} as const;
		expect(parseArgs(["--header", "Accept: a, b", "--header=X: 1"], headers).options.header).toEqual([
			"Accept: a, b",
			"X: 1",
		]);
	});

	it("stops at -- and treats the rest as positionals", () => {
		expect(parseArgs(["--verbose", "--", "--env", "-q"], specs)).toMatchObject({
			options: { verbose: true, env: "node", quiet: false },
			positionals: ["--env", "-q"],
		});
		expect(parseArgs(["-"], specs).positionals).toEqual(["-"]);
	});

	it("reports unknown options with a suggestion when one is close", () => {
		expect(usage(["--envv"])).toBe("unknown option '--envv' (did you mean '--env'?)");
		expect(usage(["--zzz"])).toBe("unknown option '--zzz'");
		expect(usage(["-x"])).toBe("unknown option '-x'");
		expect(usage(["--envv=node"])).toBe("unknown option '--envv' (did you mean '--env'?)");
	});

	it("reports missing, unexpected and invalid values", () => {
		expect(usage(["--env"])).toBe("option --env needs a value: --env <node|memory>");
		expect(usage(["--cwd", "--verbose"])).toBe("option --cwd needs a value: --cwd <dir>");
		expect(usage(["--cwd="])).toBe("option --cwd needs a value: --cwd=<dir>");
		expect(usage(["-C"])).toBe("option -C needs a value: -C <dir>");
		expect(usage(["--verbose=yes"])).toBe("option --verbose does not take a value");
		expect(usage(["--env", "bun"])).toBe("invalid value 'bun' for --env: expected 'node' or 'memory'");
		expect(parseArgs(["--cwd=--odd"], specs).options.cwd).toBe("--odd");
	});

	it("checks required and surplus positionals", () => {
		const one = { options: {}, positionals: [{ name: "file", required: true, description: "" }] } as const;
		expect(parseArgs(["a"], one).positionals).toEqual(["a"]);
		expect(() => parseArgs([], one)).toThrow("missing argument <file>");
		expect(() => parseArgs(["a", "b"], one)).toThrow("too many arguments: unexpected 'b'");
		expect(() => parseArgs(["a"], { options: {} })).toThrow("unexpected argument 'a'");
	});
});

describe("closest", () => {
	it("suggests only near misses", () => {
		expect(closest("dve", ["dev", "test", "check"])).toBe("dev");
		expect(closest("tset", ["dev", "test", "check"])).toBe("test");
		expect(closest("replay", ["replay-session", "schema"])).toBeUndefined();
		expect(closest("zzzz", ["dev"])).toBeUndefined();
	});
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadToolsForCommand } from "../../../src/cli/_load-tools.js";
import { program } from "../../../src/cli/_program.js";
import { runProgram } from "../../../src/command/node-command.js";
import { fakeIO } from "../../unit/cli/_fake-host.js";

const scratch = mkdtempSync(join(tmpdir(), "toolsmith-schema-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

writeFileSync(
	join(scratch, "tools.ts"),
	`import { defineTool, StringEnum, Type } from "toolsmith-sdk";
const ok = { content: [{ type: "text", text: "ok" }], details: {} };
export default function (api) {
	api.registerTool(defineTool({ name: "pick", label: "Pick", description: "Pick one.",
		parameters: Type.Object({ choice: StringEnum(["a", "b"]), note: Type.Optional(Type.String()) }),
		async execute() { return ok; } }));
	api.registerTool(defineTool({ name: "9lives", label: "Nine", description: "A name Google refuses.",
		parameters: Type.Object({}), async execute() { return ok; } }));
}
`,
);

writeFileSync(
	join(scratch, "loadout.ts"),
	`import { defineTool, Type } from "toolsmith-sdk";
const ok = { content: [{ type: "text", text: "ok" }], details: {} };
const tool = (name, extra) => defineTool({ name, label: name, description: "The " + name + " tool.",
	parameters: Type.Object({ path: Type.String() }), async execute() { return ok; }, ...extra });
export default function (api) {
	api.registerTool(tool("runner", { exposure: "model-only", constrainedSampling: { type: "json_schema", strict: "prefer" },
		prepareLoadout: (loadout) => ({ descriptions: { runner: "Runs " + loadout.callable.map((t) => t.name).join(", ") },
			hiddenDeclarations: ["quiet"] }) }));
	api.registerTool(tool("quiet"));
	api.registerTool(tool("helper", { exposure: "codemode" }));
	api.registerTool(tool("secret", { exposure: "hidden" }));
}
`,
);

async function schema(argv: string[]) {
	const io = { ...fakeIO(), cwd: scratch };
	const code = await runProgram(program, ["schema", ...argv], io);
	return { code, stdout: io.out(), stderr: io.err() };
}

describe("toolsmith schema", () => {
	it("prints the built-ins for a provider as JSON and exits 0", async () => {
		const run = await schema(["--provider", "anthropic"]);
		expect(run.code).toBe(0);
		const tools = JSON.parse(run.stdout) as { name: string; input_schema: { type: string } }[];
		expect(tools.map((t) => t.name).sort()).toEqual(["bash", "edit", "read", "write"]);
		expect(tools.every((t) => t.input_schema.type === "object")).toBe(true);
		expect(run.stderr).toBe("anthropic · 4 tools · 0 rewritten · 0 rejected\n");
	});

	it("prints only an extension's tools, leaves out what the provider rejects, reports it and exits 1", async () => {
		const run = await schema(["tools.ts", "--provider=google"]);
		expect(run.code).toBe(1);
		const [entry] = JSON.parse(run.stdout) as { functionDeclarations: { name: string }[] }[];
		expect(entry?.functionDeclarations.map((d) => d.name)).toEqual(["pick"]);
		expect(run.stderr).toMatch(/^warning tools\.ts .*"9lives".*\[W_PROVIDER_NAME\]\n/);
		expect(run.stderr).toMatch(/\ngoogle · 2 tools · 0 rewritten · 1 rejected\n {2}9lives rejected\n {4}✗ name: /);
	});

	it("lists OpenAI strict-mode rewrites", async () => {
		const run = await schema(["tools.ts", "--provider", "openai", "--strict"]);
		const tools = JSON.parse(run.stdout) as { function: { name: string; strict?: boolean } }[];
		expect(tools.map((t) => [t.function.name, t.function.strict])).toEqual([
			["pick", true],
			["9lives", true],
		]);
		expect(run.stderr).toContain("  pick rewritten\n");
		expect(run.stderr).toContain("/properties/note optional-to-nullable:");
		expect(run.stdout).toMatchInlineSnapshot(`
			"[
			  {
			    "type": "function",
			    "function": {
			      "name": "pick",
			      "description": "Pick one.",
			      "parameters": {
			        "type": "object",
			        "required": [
			          "choice",
			          "note"
			        ],
			        "properties": {
			          "choice": {
			            "type": "string",
			            "enum": [
			              "a",
			              "b"
			            ]
			          },
			          "note": {
			            "type": [
			              "string",
			              "null"
			            ]
			          }
			        },
			        "additionalProperties": false
			      },
			      "strict": true
			    }
			  },
			  {
			    "type": "function",
			    "function": {
			      "name": "9lives",
			      "description": "A name Google refuses.",
			      "parameters": {
			        "type": "object",
			        "properties": {},
			        "additionalProperties": false,
			        "required": []
			      },
			      "strict": true
			    }
			  }
			]
			"
		`);
		expect(run.stderr.replaceAll(scratch, "<scratch>")).toMatchInlineSnapshot(`
			"warning tools.ts Tool "9lives" from <scratch>/tools.ts: Google Gemini rejects this name (the name must start with a letter or _; rule: starts with a letter or _, then letters, digits, _ . : -; at most 64 characters). [W_PROVIDER_NAME]
			openai-chat (strict) · 2 tools · 2 rewritten · 0 rejected
			  pick rewritten
			    / closed-object: the root closed with additionalProperties: false (strict mode requires it).
			    /properties/note optional-to-nullable: Optional property "note" at the root made required and nullable; the model sends null to leave it out.
			  9lives rewritten
			    / closed-object: the root closed with additionalProperties: false (strict mode requires it).
			"
		`);
	});

	it("reports a broken extension as a diagnostic and exits 1", async () => {
		writeFileSync(join(scratch, "broken.ts"), "export default 42;\n");
		const run = await schema(["broken.ts"]);
		expect(run.code).toBe(1);
		expect(JSON.parse(run.stdout)).toEqual([]);
		expect(run.stderr).toMatch(/^error broken\.ts .*\[E_NO_FACTORY\]\n/);
	});

	it("prints what requests declare: active tools, prepareLoadout's descriptions, constrained sampling", async () => {
		const run = await schema(["loadout.ts", "--provider", "openai-chat"]);
		expect(run.code).toBe(0);
		const tools = JSON.parse(run.stdout) as { function: { name: string; description: string; strict?: boolean } }[];
		expect(tools.map((t) => t.function)).toEqual([
			expect.objectContaining({
				name: "runner",
				description: "Runs read, bash, edit, write, quiet, helper",
				strict: true,
			}),
		]);
	});

	it("commands that check tools get every reachable tool: active or callable, not hidden", async () => {
		const loaded = await loadToolsForCommand(["loadout.ts"], scratch);
		expect(loaded.tools.map((t) => t.definition.name)).toEqual(["runner", "quiet", "helper"]);
		expect(loaded.declarations.map((d) => d.name)).toEqual(["runner"]);
	});
});

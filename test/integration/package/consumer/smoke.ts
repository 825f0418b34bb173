/**
 * Run from a fresh project that installed the packed tarball (compiled there, then run by Node from
 * the project folder): the three entries import, a harness runs a built-in, a tool of its own and
 * an extension loaded from a TypeScript file, and the Node env reaches the disk. Prints one JSON
 * line for the package test to compare.
 */
import { defineTool, Type } from "toolsmith-sdk";
import { createTestHarness } from "toolsmith-sdk/harness";
import { NodeExecutionEnv } from "toolsmith-sdk/node";

const shout = defineTool({
	name: "shout",
	label: "Shout",
	description: "Say it louder.",
	parameters: Type.Object({ text: Type.String() }),
	async execute(_toolCallId, { text }) {
		return { content: [{ type: "text", text: text.toUpperCase() }], details: { length: text.length } };
	},
});

const extension = process.argv[2];
if (!extension) throw new Error("usage: node smoke.js <extension file>");

const harness = await createTestHarness({
	tools: [shout],
	extensions: [extension],
	files: { "notes.txt": "first\nsecond\n" },
});

const text = (message: { content: readonly { type: string; text?: string }[] }) =>
	message.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");

const read = await harness.call("read", { path: "notes.txt", offset: 2 });
const shouted = await harness.call("shout", { text: "hi" });
const hello = await harness.call("hello", { name: "Ada", excited: true });
const env = new NodeExecutionEnv({ cwd: process.cwd() });

console.log(
	JSON.stringify({
		read: text(read),
		shout: text(shouted),
		hello: text(hello),
		errors: [read, shouted, hello].filter((message) => message.isError).length,
		diagnostics: harness.diagnostics.filter((diagnostic) => diagnostic.severity === "error").length,
		packageJsonExists: await env.exists("package.json"),
		missingExists: await env.exists("no-such-file"),
	}),
);

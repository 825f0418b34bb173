/**
 * A pi 1.x extension that brings an MCP server and a tool renderer (test/fixtures/pi-mcp), loaded
 * through the real extension host with jiti: the server's tools join the registry as
 * `mcp__<server>__<tool>` and run; the resolver draws their calls, also of a tool the server adds
 * later; unregistering the server, and a reload without it, remove its tools; and, where
 * `npm run compat:setup` installed 1.6.0, its own loader registers the same server and its
 * resolvers draw the same call.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExtensionDiagnostic } from "../../../src/extensions/api.js";
import { createExtensionHost, type ExtensionHost } from "../../../src/extensions/node-host.js";
import { loadExtensions } from "../../../src/extensions/node-loader.js";
import { renderToolCall, renderToolResult, toolRenderersFor } from "../../../src/render/renderer.js";
import { plainTheme } from "../../../src/render/theme.js";
import { findRelease, referenceLoad } from "../../compat/_reference.js";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "pi-mcp", "index.ts");
const release = findRelease("@earendil-works", "1.6.0");
const SERVER_TOOLS = ["crash", "echo", "fail", "pid", "pixel", "slow"].map((t) => `mcp__fixture_server__${t}`);

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
	const started = Date.now();
	while (!check()) {
		if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
		await new Promise((done) => setTimeout(done, 20));
	}
}

function mcpToolNames(host: ExtensionHost): string[] {
	return host.registry
		.infos()
		.map((info) => info.name)
		.filter((name) => name.startsWith("mcp__"))
		.sort();
}

async function call(host: ExtensionHost, name: string, args: unknown) {
	const { results } = await host.execute([{ type: "toolCall", id: "c1", name, arguments: args }]);
	return results[0];
}

describe("a pi extension with an MCP server and a tool renderer", () => {
	let cwd: string;
	let host: ExtensionHost;
	const diagnostics: ExtensionDiagnostic[] = [];
	const heard: { channel: string; names: unknown }[] = [];
	/** How toolsmith draws a call of echo with no arguments, for the comparison with 1.6.0. */
	let drawnEcho: string[] = [];

	beforeAll(async () => {
		cwd = realpathSync(mkdtempSync(join(tmpdir(), "toolsmith-pi-mcp-")));
		writeFileSync(join(cwd, "ext.ts"), `export { default } from ${JSON.stringify(fixture)};\n`);
		host = createExtensionHost({ paths: [join(cwd, "ext.ts")], cwd, builtins: false });
		host.on("diagnostic", (d) => diagnostics.push(d));
		for (const channel of ["pi-mcp:servers", "pi-mcp:change"]) {
			host.runtime.events.on(channel, (names) => heard.push({ channel, names }));
		}
		await host.ready;
	}, 30_000);
	afterAll(async () => {
		await host?.close();
		rmSync(cwd, { recursive: true, force: true });
	});

	it("brings the server's tools into the registry, under the server's name, once ready", async () => {
		expect(mcpToolNames(host)).toEqual(["mcp__fixture_server__add_tool", ...SERVER_TOOLS].sort());
		expect(host.runtime.mcpServers()).toEqual([
			expect.objectContaining({ name: "fixture-server", extensionPath: join(cwd, "ext.ts") }),
		]);
		// The tool whose name no provider accepts is left out, and said so.
		expect(diagnostics.filter((d) => d.code === "E_MCP_SERVER").map((d) => d.message)).toEqual([
			expect.stringContaining('"has space"'),
		]);
		expect(heard).toContainEqual({ channel: "pi-mcp:servers", names: ["fixture-server"] });
		const result = await call(host, "mcp__fixture_server__echo", { text: "hi", times: 2 });
		expect(result?.isError).toBe(false);
		expect(result?.content).toEqual([{ type: "text", text: "hihi" }]);
	});

	it("draws MCP calls with the extension's resolver, also of a tool the server adds later", async () => {
		const draw = (name: string, args: unknown) =>
			renderToolCall(toolRenderersFor(host.runtime, name, host.registry.get(name)?.definition), args, plainTheme, 80, {
				name,
			}).lines;
		expect(draw("mcp__fixture_server__echo", { text: "a" })).toEqual(['MCP mcp__fixture_server__echo {"text":"a"}']);
		drawnEcho = draw("mcp__fixture_server__echo", {});
		const renderers = toolRenderersFor(host.runtime, "mcp__fixture_server__echo", undefined);
		const result = { content: [{ type: "text" as const, text: "aa" }], details: {} };
		expect(renderToolResult(renderers, result, { expanded: false, isPartial: false }, plainTheme, 80).lines).toEqual([
			"MCP says: aa",
		]);
		await call(host, "mcp__fixture_server__add_tool", {});
		await until(() => host.registry.get("mcp__fixture_server__late") !== undefined, "the late tool");
		expect(draw("mcp__fixture_server__late", {})).toEqual(["MCP mcp__fixture_server__late {}"]);
		// Tools that are not MCP tools are left to their own renderers (here: none, the fallback).
		expect(draw("other", { a: 1 })).toEqual(['other {"a":1}']);
	});

	it("removes the tools when the server is unregistered, brings them back when registered again", async () => {
		const command = (name: string) =>
			host
				.extensions()[0]
				?.commands.find((c) => c.name === name)
				?.handler("", host.runtime.createContext(join(cwd, "ext.ts")));
		await command("mcp-off");
		expect(mcpToolNames(host)).toEqual([]);
		expect(heard).toContainEqual({ channel: "pi-mcp:change", names: [] });
		await command("mcp-on");
		await until(() => mcpToolNames(host).length === 7, "the server's tools again");
		expect(heard).toContainEqual({ channel: "pi-mcp:change", names: ["fixture-server"] });
	}, 20_000);

	it("keeps the connection across a reload with the same server, and drops it with a version without", async () => {
		const pid = async () => (await call(host, "mcp__fixture_server__pid", {}))?.content;
		const before = await pid();
		await host.reload(join(cwd, "ext.ts"));
		expect(await pid()).toEqual(before);
		writeFileSync(join(cwd, "ext.ts"), "export default () => {};\n");
		const [event] = await host.reload(join(cwd, "ext.ts"));
		expect(event?.ok).toBe(true);
		expect(mcpToolNames(host)).toEqual([]);
		expect(host.runtime.mcpServers()).toEqual([]);
	}, 20_000);

	it("loadExtensions keeps the registration but says it connects nothing", async () => {
		const loaded = await loadExtensions([fixture], { cwd, builtins: false });
		expect(loaded.runtime.mcpServers().map((s) => s.name)).toEqual(["fixture-server"]);
		expect(loaded.registry.infos()).toEqual([]);
		expect(loaded.diagnostics.map((d) => [d.severity, d.code])).toEqual([["warning", "E_MCP_SERVER"]]);
		expect(loaded.diagnostics[0]?.message).toContain("loadExtensions does not connect");
	});

	it.runIf(release !== undefined)(
		"1.6.0's own loader registers the same server, and its resolver draws the same call",
		async () => {
			if (!release) return;
			const reference = await referenceLoad(release, [fixture], cwd, 120_000, {
				TOOLSMITH_REFERENCE_RENDER_PROBES: "mcp__fixture_server__echo,read",
			});
			expect(reference.errors).toEqual([]);
			expect(reference.mcpServers).toEqual([
				{
					name: "fixture-server",
					config: expect.objectContaining({ command: expect.any(String) }),
					extensionPath: fixture,
				},
			]);
			// Drawn before its server connected (the reference's loader connects nothing): the same line.
			expect(reference.renderedCalls).toEqual({ mcp__fixture_server__echo: drawnEcho, read: null });
		},
		180_000,
	);
});

/**
 * How pi's interactive mode draws a tool row, through its own `ToolExecutionComponent` (no
 * terminal needed): run under the Node the release needs, with the pi-coding-agent package folder
 * as the first argument. Reads a list of cases (JSON) on stdin, each
 * `{ shell, call, result?, isError?, width, outputPad, padCall? }`: the tool's renderers draw
 * `call` and `result` as pi-tui `Text` (with `padCall`, the call is indented by the `outputPad`
 * its context gives). Writes each row's lines, colors removed.
 */
const [agentDir] = process.argv.slice(2);
const { ToolExecutionComponent } = await import(`${agentDir}/dist/modes/interactive/components/tool-execution.js`);
const { initTheme } = await import(`${agentDir}/dist/modes/interactive/theme/theme.js`);
const { Text } = await import(`${agentDir}/../pi-tui/dist/index.js`);
initTheme("dark", false);

let input = "";
for await (const chunk of process.stdin) input += chunk;
const cases = JSON.parse(input);

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing escapes is the point
const strip = (line) => line.replace(/\x1b\[[0-9;:]*[A-Za-z]/g, "").replace(/\x1b\][^\x07]*\x07/g, "");
const ui = { requestRender() {} };
const rows = cases.map((c) => {
	const definition = {
		name: "tool",
		renderShell: c.shell,
		renderCall: (_args, _theme, context) =>
			new Text(`${c.padCall ? " ".repeat(context.outputPad) : ""}${c.call}`, 0, 0),
		renderResult: (result) => new Text(result.content[0]?.text ?? "", 0, 0),
	};
	const row = new ToolExecutionComponent(
		"tool",
		"call-1",
		{},
		{ showImages: false, outputPad: c.outputPad },
		definition,
		ui,
		"/",
	);
	if (c.result !== undefined) {
		row.updateResult(
			{ content: [{ type: "text", text: c.result }], details: undefined, isError: c.isError === true },
			false,
		);
	}
	return row.render(c.width).map(strip);
});
process.stdout.write(JSON.stringify(rows));

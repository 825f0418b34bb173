/**
 * `toolsmith inspect` / `toolsmith dev --ui` as a real child process, started as the CLI helpers'
 * `startCli` starts it, once it printed the page's address.
 */
import { type LiveCli, startCli } from "../cli/_run.js";

export interface InspectProcess extends LiveCli {
	readonly url: string;
	readonly port: number;
	readonly token: string;
}

const ADDRESS = /inspector (http:\/\/\S+)/;

/** Start `toolsmith <args>` (without colours) and wait for `inspector http://…` on stdout. */
export async function startInspectCli(
	args: readonly string[],
	options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<InspectProcess> {
	const cli = startCli(args, { ...options, env: { NO_COLOR: "1", ...options.env } });
	await cli.waitFor(ADDRESS, 20_000);
	const url = ADDRESS.exec(cli.stdout())?.[1] ?? "";
	const parsed = new URL(url);
	return Object.assign(cli, {
		url,
		port: Number(parsed.port),
		token: parsed.searchParams.get("token") ?? "",
	});
}

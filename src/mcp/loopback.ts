/** Which host names only ever reach this machine (no `node:` import, so the CLI can load it cheaply). */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Whether `hostname` only ever reaches this machine. */
export function isLoopbackHostname(hostname: string): boolean {
	return LOOPBACK.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Where an SSH env runs, written as users write it for scp and rsync: `host`, `user@host`,
 * `user@host:/path`, `host:relative/path` (relative to the remote home), or
 * `ssh://user@host:2222/path`. Runtime-neutral: no `node:` imports.
 */
import { err, ok, type Result } from "../contract/result.js";

/** An SSH destination and the remote folder to work in. */
export interface SshTarget {
	/** What `ssh` is given: `host`, `user@host`, or an alias from the ssh config. */
	readonly destination: string;
	/** A port given in an `ssh://` URL; otherwise the ssh config decides. */
	readonly port?: number;
	/**
	 * The remote working folder as written: absolute, relative to the remote home, or absent
	 * (the remote home).
	 */
	readonly path?: string;
}

const FORMS = "user@host, user@host:/path, host:relative/path or ssh://user@host:port/path";

/** Parse `text` as an SSH target, or say what is wrong with it and which forms are accepted. */
export function parseSshTarget(text: string): Result<SshTarget, string> {
	if (typeof text !== "string" || text.trim() === "") return err(`An SSH target is needed: ${FORMS}`);
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
	if (/[\u0000-\u001f\u007f]/.test(text))
		return err(`The SSH target ${JSON.stringify(text)} holds a control character`);
	if (text.startsWith("ssh://")) {
		const match = /^ssh:\/\/([^/?#]+?)(?::(\d+))?(\/[^?#]*)?$/.exec(text);
		const port = match?.[2] === undefined ? undefined : Number(match[2]);
		if (!match || match[1] === undefined || (port !== undefined && (port < 1 || port > 65535)))
			return err(`${JSON.stringify(text)} is not an ssh:// URL of the form ssh://user@host:port/path`);
		const destination = decodeURIComponent(match[1]);
		const problem = destinationProblem(destination);
		if (problem) return err(problem);
		const path = match[3] && match[3] !== "/" ? decodeURIComponent(match[3]) : match[3];
		return ok({ destination, ...(port !== undefined ? { port } : {}), ...(path ? { path } : {}) });
	}
	// An IPv6 address is written in brackets: [::1]:/path.
	const bracketed = /^((?:[^@[\]]+@)?\[[0-9A-Fa-f:.%]+\])(?::(.*))?$/.exec(text);
	const split = bracketed ? [bracketed[1] as string, bracketed[2]] : splitAtColon(text);
	const destination = (split[0] ?? "").replace(/\[|\]/g, "");
	const problem = destinationProblem(destination);
	if (problem) return err(problem);
	const path = split[1];
	return ok({ destination, ...(path !== undefined && path !== "" ? { path } : {}) });
}

function splitAtColon(text: string): [string, string | undefined] {
	const colon = text.indexOf(":");
	return colon < 0 ? [text, undefined] : [text.slice(0, colon), text.slice(colon + 1)];
}

function destinationProblem(destination: string): string | undefined {
	if (destination === "" || destination.endsWith("@")) return `The SSH target names no host: use ${FORMS}`;
	// A leading dash would be read by ssh as an option.
	if (destination.startsWith("-")) return `The SSH host ${JSON.stringify(destination)} may not start with "-"`;
	if (/\s/.test(destination)) return `The SSH host ${JSON.stringify(destination)} holds white space`;
	return undefined;
}

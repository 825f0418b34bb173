/**
 * Checking an extension's `engines.toolsmith` range against `API_VERSION` with semver, which is
 * required only when an extension declares a range: most declare none, and semver costs more to
 * import than the check is worth for them (Node only, for `createRequire`).
 */
import { createRequire } from "node:module";
import { API_VERSION, type ExtensionDiagnostic } from "./api.js";

let semverModule: typeof import("semver") | undefined;

function semver(): typeof import("semver") {
	semverModule ??= createRequire(import.meta.url)("semver") as typeof import("semver");
	return semverModule;
}

/**
 * The diagnostic for a declared range, or undefined when the extension may load: no range, or a
 * valid range that `API_VERSION` satisfies. `where` names the declaration (a package.json or the
 * module's `engines` export) for the message.
 */
export function checkEngines(range: unknown, path: string, where: string): ExtensionDiagnostic | undefined {
	if (range === undefined || range === null) return undefined;
	const text = typeof range === "string" ? range : JSON.stringify(range);
	if (typeof range !== "string" || semver().validRange(range) === null) {
		return {
			severity: "error",
			code: "E_INVALID_ENGINES",
			message: `${path} declares engines.toolsmith ${JSON.stringify(text)} in ${where}, which is not a valid semver range (for example "^1"); the extension was not loaded.`,
			path,
		};
	}
	if (!semver().satisfies(API_VERSION, range, { includePrerelease: true })) {
		return {
			severity: "error",
			code: "E_INCOMPATIBLE",
			message: `${path} requires toolsmith ${range}; this is ${API_VERSION}. The extension was not loaded: use a toolsmith whose API version matches, or update the extension.`,
			path,
		};
	}
	return undefined;
}

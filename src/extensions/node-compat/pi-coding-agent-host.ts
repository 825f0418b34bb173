/**
 * pi-coding-agent's view of the machine it runs on, as the compatibility module gives it: the
 * agent's folder, the package and documentation folders, the shell, and pi's settings (read-only).
 * Exported by `pi-coding-agent.ts`.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { callingExtension, reportCompat } from "./state.js";

/**
 * The reference agent's configuration folder (`PI_CODING_AGENT_DIR`, else `~/.pi/agent`), so pi
 * extensions find the files they keep there.
 */
export function getAgentDir(): string {
	const configured = process.env.PI_CODING_AGENT_DIR;
	if (configured) return configured.startsWith("~/") ? join(homedir(), configured.slice(2)) : configured;
	return join(homedir(), ".pi", "agent");
}

/**
 * The folder the reference's documentation paths are under: `$PI_PACKAGE_DIR`, else toolsmith's
 * own package folder (there is no pi package here; its docs are toolsmith's).
 */
export function getPackageDir(): string {
	const configured = process.env.PI_PACKAGE_DIR;
	if (configured) return resolve(configured.startsWith("~/") ? join(homedir(), configured.slice(2)) : configured);
	return packageRoot;
}
export const getReadmePath = (): string => join(getPackageDir(), "README.md");
export const getDocsPath = (): string => join(getPackageDir(), "docs");
export const getExamplesPath = (): string => join(getPackageDir(), "examples");

const packageRoot = (() => {
	const file = fileURLToPath(import.meta.url);
	const at = Math.max(file.lastIndexOf("/src/"), file.lastIndexOf("/dist/"));
	return at > 0 ? file.slice(0, at) : dirname(file);
})();

/** The reference's `ShellConfig`. */
export interface ShellConfig {
	readonly shell: string;
	readonly args: string[];
}

/**
 * The reference's `getShellConfig(shellPath?)`: the given shell (which must exist), else
 * `/bin/bash`, else `bash` on `PATH`, else `sh`; run with `-c`.
 */
export function getShellConfig(shellPath?: string): ShellConfig {
	if (shellPath) {
		if (!existsSync(shellPath)) throw new Error(`Custom shell path not found: ${shellPath}`);
		return { shell: shellPath, args: ["-c"] };
	}
	if (existsSync("/bin/bash")) return { shell: "/bin/bash", args: ["-c"] };
	const onPath = (process.env.PATH ?? "")
		.split(delimiter)
		.map((folder) => join(folder, "bash"))
		.find((candidate) => candidate !== "bash" && existsSync(candidate));
	return { shell: onPath ?? "sh", args: ["-c"] };
}

type Settings = Record<string, unknown>;

function isPlainObject(value: unknown): value is Settings {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `overrides` over `base`, nested objects merged key by key (an `undefined` override keeps the base). */
function mergeSettings(base: Settings, overrides: Settings): Settings {
	const out: Settings = { ...base };
	for (const [key, value] of Object.entries(overrides)) {
		if (value === undefined) continue;
		const before = base[key];
		out[key] = isPlainObject(before) && isPlainObject(value) ? mergeSettings(before, value) : value;
	}
	return out;
}

/** A settings file's object; `{}` when it is missing or not a JSON object. */
function readSettings(path: string): Settings {
	try {
		const value: unknown = JSON.parse(readFileSync(path, "utf8"));
		return isPlainObject(value) ? value : {};
	} catch {
		return {};
	}
}

/**
 * pi's `SettingsManager`, read-only: the global settings (`<agent dir>/settings.json`) and the
 * project's (`<cwd>/.pi/settings.json`), merged project over global, as pi reads them at start.
 * `getSettings()`, `getGlobalSettings()`, `getProjectSettings()` give copies; any other `getX()`
 * gives the merged setting `x` (`getDefaultProvider()` → `defaultProvider`), without pi's defaults.
 * Every other method does nothing (toolsmith never writes pi's settings) and reports a
 * `W_UNSUPPORTED_API` warning once per extension and method.
 */
export class SettingsManager {
	readonly #global: Settings;
	readonly #project: Settings;

	constructor(global: Settings = {}, project: Settings = {}) {
		this.#global = global;
		this.#project = project;
		// biome-ignore lint/correctness/noConstructorReturn: getters pi has by the dozen, answered from the settings
		return new Proxy(this, {
			get(target, key) {
				if (typeof key !== "string" || key in target || key === "then" || key === "toJSON") {
					// Bound: private fields are not reachable through the proxy.
					const value = Reflect.get(target, key, target);
					return typeof value === "function" ? value.bind(target) : value;
				}
				if (/^get[A-Z]/.test(key)) {
					const name = key.charAt(3).toLowerCase() + key.slice(4);
					return () => structuredClone(target.getSettings()[name]);
				}
				return () => {
					const path = callingExtension() ?? "(an extension)";
					reportCompat(`SettingsManager.${key}`, {
						severity: "warning",
						code: "W_UNSUPPORTED_API",
						message: `${path} called SettingsManager.${key}() from pi-coding-agent; toolsmith reads pi's settings but never changes them, so the call does nothing.`,
						path,
					});
					return undefined;
				};
			},
		});
	}

	/** The settings of `agentDir` (pi's agent folder by default) and of the project in `cwd`. */
	static create(cwd: string = process.cwd(), agentDir: string = getAgentDir()): SettingsManager {
		return new SettingsManager(
			readSettings(join(resolve(agentDir), "settings.json")),
			readSettings(join(resolve(cwd), ".pi", "settings.json")),
		);
	}

	/** Settings that no file holds. */
	static inMemory(settings: Settings = {}): SettingsManager {
		return new SettingsManager(structuredClone(settings), {});
	}

	getSettings(): Settings {
		return structuredClone(mergeSettings(this.#global, this.#project));
	}
	getGlobalSettings(): Settings {
		return structuredClone(this.#global);
	}
	getProjectSettings(): Settings {
		return structuredClone(this.#project);
	}
}

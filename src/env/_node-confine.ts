/**
 * How NodeExecutionEnv confines a command under its path policy (Node only): the working folder
 * checked, the OS sandbox found (`_node-sandbox.ts`) and the command wrapped in it with the
 * policy's canonical roots, or the reason it may not run (or runs unconfined, with a warning).
 */
import { promises as fs } from "node:fs";
import type { LimitReached } from "../contract/env.js";
import { err, ok, type Result } from "../contract/result.js";
import { type CommandCgroup, commandCgroup } from "./_node-cgroup.js";
import type { ConfinedCommand } from "./_node-exec.js";
import type { NodePathGuard } from "./_node-path-policy.js";
import { probeSandbox, type SandboxProbe, type SandboxSpec } from "./_node-sandbox.js";
import type { NodeEnvState } from "./_node-state.js";
import { limitReached, resolveLimits, tmpReports } from "./node-limits.js";

/** Under the policy `guard` enforces: the sandboxed program for a command, or why it may not run. */
export async function confineCommand(
	state: NodeEnvState,
	guard: NodePathGuard,
	shell: string,
	command: string,
	cwd: string,
): Promise<Result<ConfinedCommand, string>> {
	const denied = await guard.check(cwd, "read");
	if (denied) return err(`Working folder refused: ${denied.message}`);
	const probe: SandboxProbe =
		state.sandboxMode === "off" ? { missing: 'the env was created with sandbox: "off"' } : await probeSandbox();
	if ("missing" in probe) {
		if (guard.policy.withoutSandbox !== "warn") {
			return err(
				`Refused: the env's path policy confines commands to an OS sandbox, but ${probe.missing}. Or set the policy's withoutSandbox: "warn" to run commands unconfined`,
			);
		}
		return ok({
			file: shell,
			args: ["-c", command],
			warning: `warning: this command ran unconfined: ${probe.missing}`,
		});
	}
	const roots = await guard.canonicalRoots();
	let realCwd = cwd;
	try {
		realCwd = await fs.realpath(cwd);
	} catch {
		// The spawn reports a missing folder.
	}
	const home = (state.baseEnv ?? process.env).HOME;
	const limits = resolveLimits(guard.policy.limits);
	if (!limits.ok) return err(`Refused: ${limits.error}`);
	const spec: SandboxSpec = {
		writeRoots: roots.write,
		readRoots: roots.read,
		network: guard.policy.network === true,
		unixSockets: guard.policy.unixSockets === true,
		confineReads: guard.policy.confineReads === true,
		cwd: realCwd,
		...(home ? { home } : {}),
		limits: limits.value,
	};
	// The command's own control groups where this process can make them: the limits then hold for
	// all of it together, and what it reached can be read back. Else rlimits alone.
	let cgroup: CommandCgroup | undefined;
	if (probe.sandbox.features) {
		try {
			cgroup = await commandCgroup(limits.value);
		} catch {
			cgroup = undefined;
		}
	}
	const held = cgroup?.controllers.map((controller) => (controller === "pids" ? "processes" : "memoryBytes")) ?? [];
	const wrapped = probe.sandbox.wrap(
		shell,
		command,
		cgroup ? { ...spec, cgroupProcs: cgroup.procsFiles, heldByCgroups: held } : spec,
	);
	if (!wrapped.ok) {
		await cgroup?.release();
		return err(
			`Refused: the env's path policy confines commands to an OS sandbox, but ${wrapped.error}. Set the policy's unixSockets: true to run without that part of it`,
		);
	}
	const resolved = limits.value;
	const watched = wrapped.value.sizedFolders ?? [];
	return ok({
		...wrapped.value,
		async settle(reports: string): Promise<LimitReached[]> {
			const reached = tmpReports(reports, resolved, watched);
			if (cgroup) {
				const seen = await cgroup.reached().catch(() => ({ processes: false, memory: false }));
				await cgroup.release();
				if (seen.processes && resolved.processes !== undefined)
					reached.unshift(limitReached("processes", resolved.processes));
				if (seen.memory && resolved.memoryBytes !== undefined)
					reached.unshift(limitReached("memory", resolved.memoryBytes));
			}
			return reached;
		},
	});
}

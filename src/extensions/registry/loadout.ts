/**
 * What a snapshot shows the model, worked out once per snapshot: the active tools' `prepareLoadout`
 * hooks may replace descriptions and hide declarations (the tools stay active and callable).
 */
import { errorMessage } from "../../contract/errors.js";
import { exposureOf } from "../../contract/exposure.js";
import type { ToolLoadout } from "../../contract/tool.js";
import { type Loadout, report, type SnapshotState, sourcePath } from "./state.js";
import { agentToolOf } from "./tools.js";
import type { ToolDeclaration } from "./types.js";

/** The snapshot's loadout, worked out when first asked for; a hook that throws is reported and left out. */
export function prepareLoadout(snap: SnapshotState): Loadout {
	if (snap.loadout) return snap.loadout;
	const { active, byEntryName } = snap;
	const hooks = active.filter((entry) => typeof entry.definition.prepareLoadout === "function");
	const descriptions = new Map<string, string>();
	const hidden = new Set<string>();
	if (hooks.length > 0) {
		const view: ToolLoadout = {
			declared: active.map((entry) => agentToolOf(snap, entry)),
			callable: snap.callable.map((entry) => agentToolOf(snap, entry)),
			registered: snap.entries.map((entry) => agentToolOf(snap, entry)),
			getExposure: (name) => {
				const entry = byEntryName.get(name);
				return entry ? exposureOf(entry.definition) : "direct";
			},
			getNamespace: (name) => byEntryName.get(name)?.definition.namespace,
			getPromptGuidelines: (name) => byEntryName.get(name)?.definition.promptGuidelines ?? [],
		};
		for (const entry of hooks) {
			try {
				const changes = entry.definition.prepareLoadout?.(view);
				for (const [name, description] of Object.entries(changes?.descriptions ?? {})) {
					if (typeof description === "string") descriptions.set(name, description);
				}
				for (const name of changes?.hiddenDeclarations ?? []) hidden.add(name);
			} catch (error) {
				const path = sourcePath(entry.source);
				report(
					snap.registry,
					{
						severity: "error",
						code: "E_HANDLER_FAILED",
						message: `prepareLoadout of tool ${entry.name} (${path}) failed: ${errorMessage(error)}. The tools are declared without its changes.`,
						path,
					},
					[],
				);
			}
		}
	}
	const declared = active.filter((entry) => !hidden.has(entry.name));
	const declarations = declared.map((entry): ToolDeclaration => {
		const { name, description, parameters, constrainedSampling } = entry.definition;
		return {
			name,
			description: descriptions.get(name) ?? description,
			parameters,
			...(constrainedSampling !== undefined ? { constrainedSampling } : {}),
		};
	});
	snap.loadout = { declarations: Object.freeze(declarations), declared };
	return snap.loadout;
}

/**
 * npm run compat: toolsmith against the pi ecosystem as published, with what `npm run compat:setup`
 * installed under test/compat/.cache. Not part of CI: it needs those installs (the registry) and
 * minutes. Each section prints its own lines; the run fails when any section fails.
 *
 *   npm run compat                 every section
 *   npm run compat -- sessions     only the named sections (sessions, executor, corpus)
 */
type Section = { readonly run: () => Promise<boolean> };

const sections: Record<string, () => Promise<Section>> = {
	sessions: () => import("./sessions.js"),
	executor: () => import("./executor.js"),
	corpus: () => import("./corpus.js"),
};

const wanted = process.argv.slice(2);
for (const name of wanted) {
	if (!(name in sections)) {
		console.error(`compat: no section ${JSON.stringify(name)} (sections: ${Object.keys(sections).join(", ")})`);
		process.exit(2);
	}
}
let ok = true;
for (const [name, load] of Object.entries(sections)) {
	if (wanted.length > 0 && !wanted.includes(name)) continue;
	console.log(`\n== ${name}`);
	try {
		if (!(await (await load()).run())) ok = false;
	} catch (error) {
		ok = false;
		console.error(
			`compat: section ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
		);
	}
}
process.exit(ok ? 0 : 1);

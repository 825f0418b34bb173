import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts"],
		// Build what the tests need when it is missing or stale: the package's JavaScript (the CLI
		// tests start dist/cli.js when it is fresh), then the inspector's page (its tests serve it).
		globalSetup: ["test/setup/cli-build.ts", "test/setup/inspector-page.ts"],
		// Each worker says how to load the Node entry when an extension needs what it provides, as
		// the CLI and harness entries do.
		setupFiles: ["test/setup/node-provisions.ts"],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		// Two test files at a time even on a 2-core machine (vitest's default there is one): most of
		// the long files wait on child processes and registry installs.
		maxWorkers: 2,
	},
});

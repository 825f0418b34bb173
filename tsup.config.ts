import { defineConfig } from "tsup";

// One entry per package export; the runtime-neutral entries must never pull in node: modules.
export default defineConfig({
	entry: {
		index: "src/index.ts",
		runtime: "src/runtime.ts",
		render: "src/render/index.ts",
		providers: "src/providers/index.ts",
		node: "src/node.ts",
		harness: "src/harness/index.ts",
		vitest: "src/harness/vitest.ts",
		eval: "src/eval/index.ts",
		// The `toolsmith` bin; src/cli/main.ts starts with the `#!/usr/bin/env node` line, which esbuild keeps.
		cli: "src/cli/main.ts",
	},
	format: ["esm"],
	dts: true,
	clean: true,
	target: "node20",
	platform: "neutral",
	splitting: true,
	sourcemap: true,
	removeNodeProtocol: false,
	external: [/^node:/, "jiti", "chokidar", "semver", "@sinclair/typebox", "vitest"],
});

import { defineConfig } from "tsup";

// One file with everything in it (the generator, toolsmith's argument parser and the prompt library),
// so `npm create toolsmith` downloads one small package with no dependencies.
export default defineConfig({
	entry: { index: "src/index.ts" },
	format: ["esm"],
	target: "node20",
	platform: "node",
	clean: true,
	sourcemap: false,
	noExternal: [/.*/],
	banner: { js: "#!/usr/bin/env node" },
});

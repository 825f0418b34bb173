/**
 * The extension toolsmith loads (named in package.json's `toolsmith.extensions`, where
 * `toolsmith dev .` and `toolsmith mcp .` find it): every tool of `src/tools/`.
 */
import { defineExtension } from "toolsmith-sdk";
import * as tools from "./tools/index.js";

export default defineExtension((api) => {
	for (const tool of Object.values(tools)) api.registerTool(tool);
});

/**
 * The same extension for the pi coding agent (named in package.json's `pi.extensions`). pi gives
 * tools no env: under pi each call's `ctx.env` is a `NodeExecutionEnv` working in pi's folder.
 */
import { toPiExtension } from "toolsmith-sdk/node";
import extension from "./index.js";

export default toPiExtension(extension);

/**
 * Wires the test workers as the entries wire a real process: the Node entry (src/node.ts)
 * provides toolsmith's own entries and the MCP client to the extension loader and host
 * (src/extensions/node-provided.ts), and the CLI and harness entries say how to load it. Tests
 * import the modules behind the entries directly (the CLI's program, the loader, the host), so
 * this says it for them: src/node.ts is imported the first time an extension needs it.
 */
import { loadNodeProvisionsWith } from "../../src/extensions/node-provided.js";

loadNodeProvisionsWith(() => import("../../src/node.js"));

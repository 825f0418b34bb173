/**
 * toolsmith: the runtime-neutral entry. Nothing reachable from here imports a `node:` module, so
 * tools, the executor and the memory env run in workers, browsers and edge runtimes too.
 */
export * from "./contract/index.js";
export * from "./env/index.js";
export * from "./exec/index.js";
export * from "./extensions/index.js";
export * from "./prompt/index.js";
export * from "./providers/index.js";
export * from "./render/index.js";
export * from "./tools/index.js";

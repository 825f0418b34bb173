/** toolsmith/node: the parts that need Node.js (the real disk and processes, the loader, the watcher). */
export { NodeExecutionEnv, type NodeExecutionEnvOptions } from "./env/node.js";

export { {{toolIdent}} } from "./{{toolFile}}.js";

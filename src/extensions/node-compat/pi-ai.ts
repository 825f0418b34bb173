/** What `@mariozechner/pi-ai` (and `@earendil-works/pi-ai`, with `/compat`) resolve to inside extensions. */
export { StringEnum, Type } from "../../contract/schema.js";

// Templates live once, in the repository's top-level templates/; the package ships a copy, with the
// repository's LICENSE. Run by `prepack`.
import { cpSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const repo = dirname(here);
rmSync(join(here, "templates"), { recursive: true, force: true });
cpSync(join(repo, "templates"), join(here, "templates"), { recursive: true });
cpSync(join(repo, "LICENSE"), join(here, "LICENSE"));

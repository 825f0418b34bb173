/** Prints the sandbox observations (`_sandbox-checks.ts`) for the setup given as JSON in argv[2]. */
import { type ConfinementSetup, observeConfinement } from "./_sandbox-checks.js";

const setup = JSON.parse(process.argv[2] ?? "{}") as ConfinementSetup;
process.stdout.write(JSON.stringify(await observeConfinement(setup)));

/** The tarballs of both packages, packed from the current sources (see scripts/pack.ts). */
export { packCreateToolsmith, packToolsmith, repoRoot } from "../../scripts/pack.js";

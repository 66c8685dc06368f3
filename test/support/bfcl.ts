// bfcl-eval for the BFCL suites: the venv's python (npm run pyenv -- bfcl), the oracle script, and
// every item of the five categories. Without the group a suite skips with the hint; under CI=true
// it fails.
import { join } from "node:path";
import { pyenvHint, pythonWith } from "../../scripts/lib/pyenv.mjs";
import { bfclInstall, type OracleProgram } from "../../src/bench/bfcl/oracle.js";
import { loadCategory } from "../../src/bench/bfcl/data.js";
import { BFCL_CATEGORIES, type BfclCategory, type BfclItem } from "../../src/bench/bfcl/types.js";
import { ROOT } from "./vocabs.js";

export const BFCL_HINT = pyenvHint(["bfcl"]);
export const ORACLE_SCRIPT = join(ROOT, "scripts", "bench", "bfcl", "oracle.py");

/** The oracle program, or undefined when bfcl-eval is not installed (a failure under CI=true). */
export function bfclOracle(): OracleProgram | undefined {
  const python = pythonWith(["bfcl"]);
  if (python === undefined && process.env.CI === "true")
    throw new Error(`CI=true and bfcl-eval is not installed: ${BFCL_HINT}; .ci/run runs npm run pyenv before npm test`);
  return python === undefined ? undefined : { python, script: ORACLE_SCRIPT };
}

export async function allItems(oracle: OracleProgram): Promise<Record<BfclCategory, BfclItem[]>> {
  const dir = (await bfclInstall(oracle)).dataDir;
  return Object.fromEntries(BFCL_CATEGORIES.map((c) => [c, loadCategory(dir, c)])) as Record<BfclCategory, BfclItem[]>;
}

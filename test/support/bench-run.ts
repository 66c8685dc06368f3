// Runs a scripts/bench/*.mjs benchmark as `npm run bench:…` does (node on the script, in the repo
// root) and returns what it printed; benches import dist/, which `npm test` builds first.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./vocabs.js";

/** Whether dist/ is built (a bench test skips, saying so, when it is not). */
export const distBuilt = existsSync(join(ROOT, "dist", "index.js"));
if (!distBuilt) console.warn("bench --smallest tests: skipped: dist/ is not built (npm run build:ts)");

export interface BenchRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, for failure messages. */
  all: string;
}

/** `node scripts/bench/<script> ...args`, killed after `timeout` ms. */
export function runBench(script: string, args: string[], timeout: number, env: NodeJS.ProcessEnv = {}): BenchRun {
  const r = spawnSync(process.execPath, [join(ROOT, "scripts", "bench", script), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout,
    env: { ...process.env, TOOLMASK_QUIET: "1", ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, all: `${r.stderr}\n${r.stdout}` };
}

/** bench/results' files and their modification times: a --smallest run without --out leaves them as they were. */
export function resultsSnapshot(): Record<string, number> {
  const dir = join(ROOT, "bench", "results");
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((f) => [f, statSync(join(dir, f)).mtimeMs]));
}

// npm run bench:stalls at its smallest size (every case at 1/20: 200 messages, 3,500 tools, JSON
// nested 175,000 deep …), on the built server: each hostile body gets its status, and the bench
// prints the event loop's longest stall against JSON.parse's time on the same body. The stalls
// are printed, not judged here (a noisy machine moves them); the full-size figures are in
// bench/results/stalls.json and docs/reliability.md.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../support/vocabs.js";
import { timeoutFor } from "../support/timeouts.js";

// 12 requests (a warm-up, 11 cases) of at most 1 token each; four prompts of 200 messages of 1 KB
// (about 50,000 tokens each) are tokenized.
const TIMEOUT = timeoutFor({ decode: 12, requests: 12, prompt: 4 * 50_000 });

it.skipIf(!existsSync(join(ROOT, "dist", "server", "index.js")))(
  "bench:stalls --smallest: every case answered with its status, a stall/parse ratio printed for each",
  () => {
    const r = spawnSync(process.execPath, [join(ROOT, "scripts", "bench", "bench-stalls.mjs"), "--smallest"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: TIMEOUT,
      env: { ...process.env, TOOLMASK_QUIET: "1" },
    });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const rows = r.stdout.split("\n").filter((l) => /\s\d{3}\s+[\d.]+\s+[\d.]+\s+[\d.]+$/.test(l));
    expect(rows.length, r.stdout).toBe(11);
    console.log(r.stdout);
  },
  TIMEOUT,
);

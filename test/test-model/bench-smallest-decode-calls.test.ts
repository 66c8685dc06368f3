// npm run bench:decode-calls at its smallest size (scripts/bench/bench-decode-calls.mjs
// --smallest) on the test model: 2 requests of the real-model suite in each of its two dialects,
// the bench suite's cases at one seed, and BFCL's items at one per category (when bfcl-eval is
// installed: `npm run pyenv -- bfcl`; else the line says it skipped), at most 32 tokens each,
// unmasked, masked and masked with fast-forward in turn. Each line has fast-forward's tokens/s
// ratio to masked; its ratio to unmasked is null where no unmasked answer reached 8 tokens (the
// random-weight model unmasked ends at once). Printed, not judged; the full-size figures are the
// toolCalls field of bench/results/decode.json.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutFor } from "../support/timeouts.js";

// 3 modes × (2 + 4 + 4 + 2 requests, + 4 warm-ups) of at most 32 tokens; 14.3 s at load average 4.
const TIMEOUT = timeoutFor({ decode: 3 * 16 * 32, requests: 3 * 16 });
const num = String.raw`[\d.]+`;

it.skipIf(!distBuilt)(
  "bench:decode-calls --smallest: every workload of the test model, fast-forward's ratio to masked on each",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-decode-calls.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => /^test-model\S*, \S+ /.test(l));
    expect(lines.map((l) => (l.split(" (")[0] ?? "").replace(/:.*/, ""))).toEqual([
      "test-model, real-suite",
      "test-model, bench-suite",
      "test-model, bfcl",
      "test-model-qwen3-coder, real-suite",
    ]);
    for (const l of lines) {
      if (/^test-model, bfcl: skipped: /.test(l)) {
        console.warn(`bench:decode-calls --smallest: ${l}`);
        continue;
      }
      expect(l).toMatch(new RegExp(`; ×(${num}|null) unmasked, ×${num} masked\\); `));
      expect(l).toMatch(/masked vs fast-forward: same calls \d+\/\d+, same tokens \d+\/\d+$/);
    }
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

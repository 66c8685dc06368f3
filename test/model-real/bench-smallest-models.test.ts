// npm run bench:models at its smallest size (scripts/bench/bench-models.mjs --smallest): 2 cases
// of the real-model suite, greedy, masked and unmasked, 24 tokens at most, on the first fetched
// model with a dialect. The bench exits 1 when a masked answer has a problem or a valid unmasked
// answer is refused by its mask; the rest (validity, speed, greedy parity) is printed, not judged.
// No model fetched: the bench says so and this is a skip (a failure under CI=true), as in suite.test.ts.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutFor } from "../support/timeouts.js";

// 2 cases, masked and unmasked, 24 tokens each, SmolLM2-135M (the first model listed);
// 8.7 s at load average 6.
const TIMEOUT = timeoutFor({ decode: 2 * 2 * 24, requests: 2 * 2 + 1, model: "smollm2-135m" });

it.skipIf(!distBuilt)(
  "bench:models --smallest: masked and unmasked summaries of one model, no masked problem, no refusal",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-models.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const skipped = r.stdout.match(/^bench:models --smallest: skipped: (.*)$/m);
    if (skipped) {
      if (process.env.CI === "true") throw new Error(`CI=true and ${skipped[1]}`);
      console.warn(`bench:models --smallest: skipped: ${skipped[1]}`);
      return;
    }
    expect(r.stdout).toMatch(/^\S+ \([\w.-]+\): 2 cases, greedy$/m);
    expect(r.stdout).toMatch(
      /^ {2}masked {4}valid \d\/2 .*finished with problems 0, \d+ tokens, median [\d.]+ tok\/s$/m,
    );
    expect(r.stdout).toMatch(/^ {2}unmasked {2}valid \d\/2 .*, \d+ tokens, median [\d.]+ tok\/s$/m);
    expect(r.stdout).toMatch(/^ {2}over-constraint: \d+ valid unmasked answers .* replayed, 0 refused$/m);
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

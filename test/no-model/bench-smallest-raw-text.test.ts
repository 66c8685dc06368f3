// npm run bench:raw-text at its smallest size (scripts/bench/bench-raw-text.mjs --smallest): two
// string schemas, each the one parameter of a tool compiled on Qwen3's vocabulary in hermes and in
// every XML dialect, once each: a row per schema in each table, an XML dialect's figure with its
// ratio to hermes's. Times are printed, not judged. The full-size figures are
// bench/results/raw-text.json and docs/json-schema.md's raw-text paragraph.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 3.5 s on 2 cores at load average 12 (the vocabulary loaded once, 2 × 5 compiles and a warm-up).
const TIMEOUT = timeoutForMeasured(3_500);
const num = String.raw`[\d.]+`;

it.skipIf(!distBuilt)(
  "bench:raw-text --smallest: two schemas, hermes and each XML dialect as a ratio to it, in both tables",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-raw-text.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const row = new RegExp(`^\\| (.+?) \\| ${num}( \\| ${num} \\(${num}×\\)){4} \\|$`);
    const rows = r.stdout.split("\n").flatMap((l) => row.exec(l)?.[1] ?? []);
    expect(rows, r.all).toEqual([
      "anyOf [maxLength 2, minLength 4]",
      'pattern "a+" (unanchored)',
      "anyOf [maxLength 2, minLength 4]",
      'pattern "a+" (unanchored)',
    ]);
    expect(r.stdout).not.toContain("wrote ");
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

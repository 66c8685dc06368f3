// npm run bench:bounds at its smallest size (scripts/bench/bench-bounds.mjs --smallest): bounds 10
// and 2^31 − 1 of maxLength, maxItems and maximum, compiled in hermes and qwen3-coder on Qwen3's
// vocabulary, and a value of 200 characters or items walked through each; every walk is accepted
// (the bench exits 1 otherwise). Times and sizes are printed, not judged. The full-size figures are
// bench/results/bounds.json and the table in docs/json-schema.md.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 3.6 s on 2 cores at load average 6.
const TIMEOUT = timeoutForMeasured(3_600);
const cell = String.raw`\d+ / \d+ / [\d.]+`;

it.skipIf(!distBuilt)(
  "bench:bounds --smallest: a row per dialect and keyword, every bound compiled and every walk accepted",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-bounds.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const rows = r.stdout
      .split("\n")
      .filter((l) => new RegExp(`^\\| \\S+ \\| \\w+ \\| ${cell} \\| ${cell} \\|$`).test(l));
    expect(
      rows.map((l) => l.split(" | ").slice(0, 2).join(" ")),
      r.all,
    ).toEqual([
      "| hermes maxLength",
      "| hermes maxItems",
      "| hermes maximum",
      "| qwen3-coder maxLength",
      "| qwen3-coder maxItems",
      "| qwen3-coder maximum",
    ]);
    const walks = r.stdout.split("\n").filter((l) => new RegExp(`^\\| \\S+ \\| \\w+ \\| ${cell} \\|$`).test(l));
    expect(walks.length, r.all).toBe(4);
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

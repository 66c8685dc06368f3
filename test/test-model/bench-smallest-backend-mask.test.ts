// npm run bench:backend-mask at its smallest size (scripts/bench/bench-backend-mask.mjs
// --smallest) on the test model: one run of 16 tokens each on the backend sampling path unmasked
// and with the mask as dense, packed and resident input, and on the host path unmasked and masked;
// it prints each form's ratio to the unmasked run. The ratios are printed, not judged (a noisy
// machine moves them); the full-size figures are bench/results/backend-mask.json.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 2.6 s on 2 cores at load average 4 (12 runs of at most 16 tokens).
const TIMEOUT = timeoutForMeasured(2_600);
const num = String.raw`[\d.]+`;

it.skipIf(!distBuilt)(
  "bench:backend-mask --smallest: dense, packed and resident input and the host path, each with its ratio to unmasked",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-backend-mask.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const line = r.stdout.split("\n").find((l) => l.startsWith("backend sampling on "));
    expect(line, r.all).toBeDefined();
    expect(line).toMatch(new RegExp(`, 16 tokens × 1\\): unmasked ${num} ms/token; `));
    for (const form of ["dense", "packed", "resident"])
      expect(line).toMatch(new RegExp(`${form} ${num} ms/token \\(host ${num} µs, ratio ${num}\\)`));
    expect(line).toMatch(new RegExp(`packed/dense ${num}; .*resident/dense ${num}; `));
    expect(line).toMatch(new RegExp(`host path: unmasked ${num} ms/token, masked ${num} ms/token \\(ratio ${num}\\)$`));
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

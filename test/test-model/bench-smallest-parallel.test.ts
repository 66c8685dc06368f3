// npm run bench:parallel at its smallest size (scripts/bench/bench-parallel.mjs --smallest) on the
// test model: one masked generation of 16 tokens alone, then 2 at once on the same model (one
// batch per step); it prints the aggregate tokens/s of each and their ratio, not judged here (a
// noisy machine moves it); the full-size figures are bench/results/parallel.json.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 1.8 s on 2 cores at load average 5 (4 generations of at most 16 tokens).
const TIMEOUT = timeoutForMeasured(1_800);
const num = String.raw`[\d.]+`;

it.skipIf(!distBuilt)(
  "bench:parallel --smallest: 1 alone and 2 at once, with their ratio",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-parallel.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^1 generation: ${num} tok/s; 2 at once on one model: ${num} tok/s aggregate; ratio ${num} \\(threads \\d+, load [\\d. ]+\\)$`,
        "m",
      ),
    );
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

// npm run bench:idle-compile at its smallest size (scripts/bench/bench-idle-compile.mjs --smallest):
// the client tool sets compiled in hermes after an idle pause, beside a busy process, in both arms
// (the default precompute, and precomputeStates: 1). Its figures are printed, not judged here (a
// shared machine moves them); the full-size run is bench/results/idle-compile.json.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 2.3 s on 2 cores at load average 1.
const TIMEOUT = timeoutForMeasured(2_300);
const num = String.raw`[\d.]+`;

it.skipIf(!distBuilt)(
  "bench:idle-compile --smallest: both arms' median and p90, their ratio, nothing written",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-idle-compile.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    expect(r.stdout).toMatch(/^9 tool sets \(hermes\) x 3 rounds, each compile after 20 ms idle/m);
    for (const arm of ["default", "peer"])
      expect(r.stdout).toMatch(
        new RegExp(`^  ${arm}\\s+compile \\+ first mask: median ${num} ms, p90 ${num} ms$`, "m"),
      );
    expect(r.stdout).toMatch(new RegExp(`^  default / peer: median ${num}, p90 ${num}$`, "m"));
    expect(r.stdout).not.toContain("wrote ");
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

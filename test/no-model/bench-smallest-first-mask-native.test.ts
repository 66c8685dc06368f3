// scripts/bench/bench-first-mask-native.mjs at its smallest size (--smallest): the client tool set
// with the fewest tools in hermes, its IR's native compile with the start state's mask, the shape
// cache cleared and kept, 2 runs each. Times are printed, not judged.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 4.1 s on 2 cores at load average 9 (the vocabulary's load most of it).
const TIMEOUT = timeoutForMeasured(4_100);

it.skipIf(!distBuilt)(
  "bench-first-mask-native --smallest: one set in hermes, cold and warm CPU times",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-first-mask-native.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const n = String.raw`\d+\.\d\d`;
    expect(r.stdout, r.all).toMatch(
      new RegExp(`^\\S+ hermes \\(.+\\): cold min ${n} p25 ${n} \\| warm min ${n} p25 ${n} ms CPU$`, "m"),
    );
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

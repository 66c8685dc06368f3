// npm run bench:decode at its smallest size (scripts/bench/bench-decode.mjs --smallest) on the test
// model: one run of 16 tokens each, unmasked, masked on the CPU path and on the backend path, and
// the peer node-llama-cpp unconstrained and under the GBNF our dialect exports; it prints the
// ratios between them. The ratios are printed, not judged (a noisy machine moves them); the
// full-size figures are bench/results/decode.json.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 7.8 s on 2 cores at load average 4 (two models loaded, 8 runs of at most 16 tokens).
const TIMEOUT = timeoutForMeasured(7_800);
const num = String.raw`[\d.]+`;

it.skipIf(!distBuilt)(
  "bench:decode --smallest: masked against unmasked on both paths, and against node-llama-cpp, each as a ratio",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-decode.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^unmasked ${num} ms/token; masked, cpu path ${num} ms/token \\(mask ${num} µs/token, ratio ${num}, fastest runs ${num}, from the mask's cost ${num}\\); backend sampling: unmasked ${num} ms/token, masked ${num} ms/token \\(mask ${num} µs/token, ratio ${num}\\)$`,
        "m",
      ),
    );
    expect(r.stdout).toMatch(
      new RegExp(
        `^node-llama-cpp \\S+: unconstrained ${num} ms/token, our GBNF ${num} ms/token .*GBNF/unconstrained ${num}\\); our masked / node-llama-cpp GBNF tok/s ${num}, our unmasked / node-llama-cpp unconstrained ${num}$`,
        "m",
      ),
    );
    expect(r.stdout).not.toContain("written to");
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

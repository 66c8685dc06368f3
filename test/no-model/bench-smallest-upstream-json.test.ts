// scripts/bench/bench-upstream-json.mjs at its smallest size (--smallest): each of its four answer
// shapes at 1/16 MB read by JSON.parse, by JSON.parse with the scan for keys given twice, and by
// readExactJson, each with its ratio to JSON.parse. Printed, not judged (a noisy machine moves them).
import { expect, it } from "vitest";
import { distBuilt, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 0.6 s on 2 cores at load average 4.
const TIMEOUT = timeoutForMeasured(600);
const num = String.raw`[\d.]+`;

it.skipIf(!distBuilt)(
  "bench-upstream-json --smallest: every answer shape with both readers' ratios to JSON.parse",
  () => {
    const r = runBench("bench-upstream-json.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const row = new RegExp(
      `^(.+) \\(0\\.0\\d MB\\): JSON\\.parse ${num} ms; \\+ duplicateKeys ${num} ms \\(x${num}\\); readExactJson ${num} ms \\(x${num}\\)$`,
    );
    const shapes = r.stdout.split("\n").flatMap((l) => row.exec(l)?.[1] ?? []);
    expect(shapes, r.all).toEqual([
      "openai text",
      "openai call, 1 MB arguments",
      "llama-server /completion",
      "logprobs (small objects)",
    ]);
    console.log(r.stdout);
  },
  TIMEOUT,
);

// npm run bench:prefill at its smallest size (scripts/bench/bench-prefill.mjs --smallest) on the test
// model: the first 256 tokens of Claude Code's prompt decoded from an empty cache by toolmask's
// engine and by llama.cpp's llama-server (built from source on first use), one repetition; it
// prints both sides' prompt tokens per second and the ratios, not judged here (a noisy machine
// moves them); the full-size figures are bench/results/prefill.json.
import { beforeAll, expect, it } from "vitest";
import { buildLlamaServer } from "../../scripts/oracles/llama-server/build.mjs";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 22.5 s on 2 cores at load average 19 (both engines loaded, 2 + 2 prefills).
const TIMEOUT = timeoutForMeasured(22_500);
const num = String.raw`[\d.]+`;

beforeAll(async () => {
  if (distBuilt) await buildLlamaServer({ log: () => {} }); // 200–490 s when not built yet
}, 1_800_000);

it.skipIf(!distBuilt)(
  "bench:prefill --smallest: 256 prompt tokens on both engines, tokens per second and ratios",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-prefill.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^prefill 256 tokens: toolmask ${num} tok/s \\(cpu ${num}\\), llama-server ${num} tok/s \\(cpu ${num}\\); ratio toolmask/llama-server ${num} \\(wall ${num}, cpu ${num}\\)$`,
        "m",
      ),
    );
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

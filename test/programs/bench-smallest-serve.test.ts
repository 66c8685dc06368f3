// npm run bench:serve at its smallest size (scripts/bench/bench-serve.mjs --smallest) on the test
// model: a 4-turn conversation with a ~600-token prefix, sent to toolmask's server and to llama.cpp's
// llama-server (built from source on first use), one repetition; it prints each turn's time to
// first token on both, the prompt tokens each read from its cache and the ratios, not judged here
// (a noisy machine moves them); the full-size figures are bench/results/serve.json. With
// --concurrent 2: two such conversations at once on each server (toolmask loaded with exactPrompts
// true and false), completion tokens per second (bench/results/serve-concurrent.json at full size).
import { beforeAll, expect, it } from "vitest";
import { buildLlamaServer } from "../../scripts/oracles/llama-server/build.mjs";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 8.8 s on 2 cores at load average 20 (both servers started, 4 + 4 requests and one probe).
const TIMEOUT = timeoutForMeasured(8_800);
const num = String.raw`[\d.]+`;

beforeAll(async () => {
  if (distBuilt) await buildLlamaServer({ log: () => {} }); // 200–490 s when not built yet
}, 1_800_000);

it.skipIf(!distBuilt)(
  "bench:serve --smallest: 4 turns on both servers, each turn's time to first token, cached tokens and ratios (wall and CPU time)",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-serve.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const turns = [
      ...r.stdout.matchAll(
        new RegExp(
          `^turn (\\d): toolmask ${num} ms \\((\\d+) of (\\d+) prompt tokens cached\\), llama-server ${num} ms \\((\\d+) of (\\d+)\\); ratio to llama-server ${num} \\(CPU time ${num}\\), to turn 1 ${num}$`,
          "gm",
        ),
      ),
    ];
    expect(turns.map((m) => m[1])).toEqual(["1", "2", "3", "4"]);
    // From turn 2 on, both servers read the earlier turns from their caches.
    for (const m of turns.slice(1)) {
      expect(Number(m[2]), m[0]).toBeGreaterThan(500);
      expect(Number(m[5]), m[0]).toBeGreaterThan(500);
    }
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

// 68 s on 2 cores at load average 18 for --concurrent 1,2 (each server started twice); one count here.
const CONCURRENT_TIMEOUT = timeoutForMeasured(40_000);

it.skipIf(!distBuilt)(
  "bench:serve --smallest --concurrent 2: two conversations at once on both servers, tokens per second and the ratio",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-serve.mjs", ["--smallest", "--concurrent", "2"], CONCURRENT_TIMEOUT);
    expect(r.status, r.all).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^2 conversations: toolmask ${num} tok/s \\(masked\\), llama-server ${num} tok/s \\(its grammar\\); ratio ${num}; toolmask with exactPrompts false ${num} tok/s, ratio ${num}$`,
        "m",
      ),
    );
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  CONCURRENT_TIMEOUT,
);

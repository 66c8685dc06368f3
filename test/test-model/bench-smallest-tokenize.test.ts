// npm run bench:tokenize at its smallest size (scripts/bench/bench-tokenize.mjs --smallest), on
// the test model's Qwen3 vocabulary: each prompt shape at 1,000 and 2,000 units, tokenized by
// toolmask and by llama.cpp's llama_tokenize (the bench fails if their tokens differ), with the
// time ratio per doubling; then the longest text the length bound admits at a 4,096-token
// context. Figures are printed, not judged (a noisy machine moves them); the full-size ones are
// bench/results/tokenize.json.
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 3.9 s on 2 cores at load average 4.
const TIMEOUT = timeoutForMeasured(3_900);
const num = String.raw`[\d.]+`;

it.skipIf(!distBuilt)(
  "bench:tokenize --smallest: every shape at two sizes, ours and llama.cpp timed, the doubling's ratio for each",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-tokenize.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const rows = r.stdout.split("\n").filter((l) => /^\w+\s+\d+ B\s+\d+ tokens/.test(l));
    expect(rows.map((l) => l.split(/\s+/)[0])).toEqual(["flood", "flood", "chat", "chat", "plain", "plain"]);
    // The second row of each shape: both engines timed, each with its ratio to the first row.
    for (const l of rows.filter((_, i) => i % 2 === 1))
      expect(l).toMatch(new RegExp(`ours\\s+${num} ms \\(x${num}\\)\\s+llama\\.cpp\\s+${num} ms \\(x${num}\\)$`));
    expect(r.stdout.match(/^worst admitted at context 4096 .*: (spaces|letters), /gm)?.length, r.all).toBe(2);
    expect(r.stdout).not.toContain("wrote ");
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

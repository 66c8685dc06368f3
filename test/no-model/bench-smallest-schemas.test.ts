// npm run bench:schemas at its smallest size (scripts/bench/bench-schemas.mjs --smallest): one
// hostile-schema case of each expected outcome (compiles, each limit, the native compile's
// refusal), each in its own child process that compiles it on Qwen3's vocabulary. The bench exits
// 1 when an outcome is not the expected one; time and peak RSS are printed, not judged. The
// full-size figures are bench/results/schemas.json; every case's outcome apart from the native
// refusals is checked by hostile-schemas.test.ts.
import { beforeAll, expect, it } from "vitest";
import { HOSTILE_CASES } from "../../scripts/lib/hostile-schemas.mjs";
import { type BenchRun, distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 12.9 s on 2 cores at load average 4 (11 children, each loading the vocabulary).
const TIMEOUT = timeoutForMeasured(12_900);

const expected = (c: (typeof HOSTILE_CASES)[number]) => {
  const e = c.expect as { compiles?: true; limit?: string; error?: string };
  return "compiles" in e ? "compiles" : `refused: ${e.limit ?? e.error ?? "native"}`;
};
const outcomes = [...new Set(HOSTILE_CASES.map(expected))];

let r: BenchRun, rows: string[][], before: Record<string, number>;
beforeAll(() => {
  if (!distBuilt) return;
  before = resultsSnapshot();
  r = runBench("bench-schemas.mjs", ["--smallest"], TIMEOUT);
  // | case | dialect | outcome | time | peak RSS | states | tables |
  rows = r.stdout
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| case "))
    .map((l) => l.split(" | ").map((x) => x.replace(/^\| | \|$/g, "")));
}, TIMEOUT);

it.skipIf(!distBuilt)("bench:schemas --smallest: one case of each outcome, each printed with its time and RSS", () => {
  expect(rows.length, r.all).toBe(outcomes.length);
  const byName = new Map(HOSTILE_CASES.map((c) => [c.name, c]));
  expect(new Set(rows.map((x) => expected(byName.get(x[0] ?? "")!)))).toEqual(new Set(outcomes));
  for (const x of rows) {
    expect(x[3], x.join(" | ")).toMatch(/^\d+$/);
    expect(x[4], x.join(" | ")).toMatch(/^\d+$/);
  }
  expect(resultsSnapshot()).toEqual(before);
  console.log(r.stdout);
});

it.skipIf(!distBuilt)("bench:schemas --smallest: every outcome as expected, and the bench exits 0", () => {
  // The two "parallel calls" cases of 100,000 were refused by the native compile (2026-12-01), then
  // compiled and met the state limit part-way through a walk (2026-12-05); bounds past 64 are
  // now counted, so they compile in bounded states and are expected to.
  const unexpected = rows.filter((x) => x[2]?.endsWith(" (unexpected)")).map((x) => x[0]);
  expect(unexpected, r.all).toEqual([]);
  expect(r.status, r.all).toBe(0);
});

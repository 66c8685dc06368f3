// npm run bench:parse at its smallest size (scripts/bench/bench-parse.mjs --smallest): every
// dialect's sample parsed whole and in 16- and 1-byte chunks, its grammars compiled for 3 and 50
// tools cold and warm; and `--stress --smallest`: every stress kind at 4 KiB in its own process.
// bench:parse prints throughput and compile times (it has no peer); they are printed, not judged
// here. The full-size figures are bench/results/parse.json and parse-stress.json.
import { expect, it } from "vitest";
import { STRESS_KINDS } from "../../scripts/lib/parse-stress.mjs";
import { dialects } from "../../src/dialects/index.js";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 8.1 s (the dialects) and 2.5 s (--stress) on 2 cores at load average 4.
const TIMEOUT = timeoutForMeasured(8_100 + 2_500);
const num = String.raw`[\d.]+`;

it.skipIf(!distBuilt)(
  "bench:parse --smallest: a row of figures per dialect; --stress --smallest: a row per stress kind, none failed",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-parse.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const row = new RegExp(
      `^(\\S+)\\s+\\d+\\s+${num}\\s+${num}\\s+${num}\\s+${num} / ${num}, ${num} / ${num}\\s+\\(${num} / ${num}, ${num} / ${num}\\)$`,
    );
    const rows = r.stdout.split("\n").flatMap((l) => row.exec(l)?.[1] ?? []);
    expect(rows, r.all).toEqual([...dialects]);

    const s = runBench("bench-parse.mjs", ["--stress", "--smallest"], TIMEOUT);
    expect(s.status, s.all).toBe(0);
    // kind, dialect, size, chunk, then ms, heap MB, RSS MB (a failed run prints its reason instead).
    const stress = s.stdout.split("\n").filter((l) => /^\w+\s+\S+\s+4096\s+16\s/.test(l));
    expect(
      stress.map((l) => l.split(/\s+/)[0]),
      s.all,
    ).toEqual(STRESS_KINDS);
    for (const l of stress) expect(l, s.all).toMatch(new RegExp(`\\s16\\s+${num}\\s+${num}\\s+${num}\\s*$`));

    expect(r.stdout + s.stdout).not.toContain("wrote ");
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout + s.stdout);
  },
  TIMEOUT,
);

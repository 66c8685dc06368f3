// npm run bench:bfcl at its smallest size (scripts/bench/bench-bfcl.mjs --smallest): one item of
// each BFCL category on the first fetched model with a dialect, masked and unmasked, 24 tokens at
// most, scored by bfcl-eval's checker; the table and the over-constraint line printed, nothing
// written. Without bfcl-eval (`npm run pyenv -- bfcl`) or a fetched model the bench says so and
// this is a skip (a failure under CI=true), as in bfcl-sample.test.ts.
import { expect, it } from "vitest";
import { BFCL_CATEGORIES } from "../../src/bench/bfcl/types.js";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutFor, timeoutForMeasured } from "../support/timeouts.js";

// 5 items, masked and unmasked, 24 tokens each, SmolLM2-135M, and bfcl-eval's checker per
// category (about 3 s each here); 28 s at load average 6.6.
const TIMEOUT =
  timeoutFor({ decode: 5 * 2 * 24, requests: 5 * 2, model: "smollm2-135m" }) + timeoutForMeasured(5 * 3_000);

it.skipIf(!distBuilt)(
  "bench:bfcl --smallest: a row per category with masked and unmasked validity, 0 over-constraint refusals",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-bfcl.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const skipped = r.stdout.match(/^bench:bfcl --smallest: skipped: (.*)$/m);
    if (skipped) {
      if (process.env.CI === "true") throw new Error(`CI=true and ${skipped[1]}`);
      console.warn(`bench:bfcl --smallest: skipped: ${skipped[1]}`);
      return;
    }
    const pct = String.raw`\d+/1 \(\d+%\)`;
    const rows = r.stdout
      .split("\n")
      .filter((l) => /^\| \S+ \([\w.-]+\) \| /.test(l) && !l.startsWith("| model (dialect) |"))
      .map((l) => l.split(" | "));
    expect(rows.map((x) => x[1])).toEqual([...BFCL_CATEGORIES]);
    for (const x of rows) {
      expect(x[2]).toBe("1");
      for (const c of x.slice(3, 7)) expect(c, x.join(" | ")).toMatch(new RegExp(`^${pct}$`));
    }
    expect(r.stdout).toMatch(
      /^over-constraint: \d+ unmasked answers valid with calls replayed through the mask, 0 refused$/m,
    );
    expect(r.stdout).not.toContain("wrote ");
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

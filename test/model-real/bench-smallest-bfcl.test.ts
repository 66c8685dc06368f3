// npm run bench:bfcl at its smallest size (scripts/bench/bench-bfcl.mjs --smallest): one item of
// each BFCL category on the first fetched model with a dialect, in the three modes (toolmask
// unmasked and masked, llama.cpp's llama-server on the same GGUF), under tool_choice auto and
// required, 64 tokens at most, scored by bfcl-eval's checker; the two tables and over-constraint
// lines printed, nothing written. Without bfcl-eval (`npm run pyenv -- bfcl`) or a fetched model the
// bench says so and this is a skip (a failure under CI=true), as in bfcl-sample.test.ts.
import { beforeAll, expect, it } from "vitest";
import { buildLlamaServer } from "../../scripts/oracles/llama-server/build.mjs";
import { BFCL_CATEGORIES } from "../../src/bench/bfcl/types.js";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { LLAMA_SERVER_BUILD_MS, LLAMA_SERVER_START_MS } from "../support/llama-server-process.js";
import { timeoutFor, timeoutForMeasured } from "../support/timeouts.js";

const CHOICES = ["auto", "required"] as const;
const MODES = 3;
// 5 items × 3 modes × 2 tool choices, 64 tokens each, on SmolLM2-135M; bfcl-eval's checker once per
// category × mode × choice (30 groups, about 1 s each here at load average 11); llama-server started
// once per tool choice. The whole run took 160 s at load average 11.6.
const TIMEOUT =
  timeoutFor({ decode: 5 * MODES * 2 * 64, requests: 5 * MODES * 2, model: "smollm2-135m" }) +
  timeoutForMeasured(30 * 1_000) +
  2 * LLAMA_SERVER_START_MS;

// The bench builds llama-server when it is missing; built here first, the run's timeout is the run's.
beforeAll(() => buildLlamaServer({ log: (l: string) => console.error(l) }), LLAMA_SERVER_BUILD_MS);

it.skipIf(!distBuilt)(
  "bench:bfcl --smallest: under auto and required, a row per category with unmasked, masked and llama-server validity and AST, 0 over-constraint refusals",
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
    const tables = r.stdout.split(/^tool_choice /m).slice(1);
    expect(tables.map((t) => t.split(":")[0])).toEqual([...CHOICES]);
    const pct = String.raw`\d+/1 \(\d+%\)`;
    for (const table of tables) {
      const rows = table
        .split("\n")
        .filter((l) => /^\| \S+ \([\w.-]+\) \| /.test(l) && !l.startsWith("| model (dialect) |"))
        .map((l) => l.split(" | "));
      expect(rows.map((x) => x[1])).toEqual([...BFCL_CATEGORIES]);
      for (const x of rows) {
        expect(x[2]).toBe("1");
        // valid and AST-correct, each in the three modes: every mode ran every item
        for (const c of x.slice(3, 3 + 2 * MODES)) expect(c, x.join(" | ")).toMatch(new RegExp(`^${pct}$`));
      }
      expect(table).toMatch(
        /^over-constraint: \d+ unmasked answers valid with calls replayed through the mask, 0 refused$/m,
      );
    }
    expect(r.stdout).not.toContain("wrote ");
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);

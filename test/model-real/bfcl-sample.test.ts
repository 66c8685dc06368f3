// The BFCL bench (npm run bench:bfcl) on a fixed sample — the first item of each of the five
// categories — on every real model with a dialect, masked and unmasked, scored by bfcl-eval's own
// checker. Masked, every answer must be format-valid or a cut reported as one; the AST verdicts must agree with the calls
// (an irrelevance answer is right exactly when it holds no call); every unmasked answer keeps its
// token ids (for the over-constraint replay). A missing model or bfcl-eval is a skip with how to
// get it, a failure under CI=true. The full run is npm run bench:bfcl (docs/bfcl.md).
import { describe, expect, it } from "vitest";
import { defaultThreads } from "../../src/index.js";
import { runBfclBench } from "../../src/bench/bfcl/bench.js";
import { bfclChartSvg } from "../../src/bench/bfcl/chart.js";
import { markdownTable, overconstraintLine } from "../../src/bench/bfcl/summary.js";
import { BFCL_CATEGORIES } from "../../src/bench/bfcl/types.js";
import { BFCL_HINT, bfclOracle } from "../support/bfcl.js";
import { listModels } from "../support/models-script.js";

const oracle = bfclOracle();
const inCi = process.env.CI === "true";
const models = await listModels();
const present = models.filter((m) => m.present);
const missing = models.filter((m) => !m.present);
if (!oracle) console.warn(`bfcl sample: skipped: ${BFCL_HINT}`);
if (missing.length > 0 && !inCi)
  console.warn(`bfcl sample: skipped ${missing.map((m) => m.name).join(", ")}: not fetched; run \`npm run models\``);

describe.skipIf(!oracle)("BFCL, one item per category, on every real model", () => {
  it("every listed model is fetched (CI) and at least one is there", () => {
    if (inCi) expect(missing.map((m) => m.name)).toEqual([]);
    expect(present.length).toBeGreaterThan(0);
  });

  it(
    "masked answers are all format-valid; AST verdicts agree with the calls; unmasked answers keep their token ids, and those valid with calls are replayed through the mask with 0 refusals",
    async () => {
      const report = await runBfclBench({
        oracle: oracle!,
        models: present,
        categories: BFCL_CATEGORIES,
        sample: 1,
        maxTokens: 128,
        concurrency: 2,
        threads: defaultThreads(),
        command: "test/model-real/bfcl-sample.test.ts",
      });
      const ran = report.models.filter((m) => !m.skipped);
      for (const m of report.models.filter((x) => x.skipped))
        console.warn(`bfcl sample: ${m.name} not run: ${m.skipped}`);
      expect(ran.length).toBeGreaterThan(0);
      expect(report.rows).toHaveLength(ran.length * BFCL_CATEGORIES.length * 2);
      for (const row of report.rows) expect(row.items, `${row.model} ${row.category} ${row.mode}`).toBe(1);
      for (const a of report.answers) {
        const where = `${a.model} ${a.id} ${a.mode}: ${JSON.stringify(a.text.slice(0, 300))}`;
        // masked: format-valid, or cut by the token limit and reported so (no mask makes a model stop
        // inside an argument it keeps extending; SmolLM2 lists numbers in an array to the limit)
        if (a.mode === "masked")
          expect(
            a.valid || (a.finishReason === "length" && a.reason === "cut inside a call"),
            `${where} (${a.reason}, ${a.finishReason})`,
          ).toBe(true);
        if (a.category === "irrelevance") expect(a.astCorrect, where).toBe(a.calls.length === 0);
        else if (a.calls.length === 0) expect(a.astCorrect, where).toBe(false);
        if (a.astCorrect && a.category !== "irrelevance") expect(a.valid, where).toBe(true);
        if (a.calls.length > 0) expect(a.contentCalls, where).toEqual([]);
        if (a.calls.length > 0) expect(a.astCorrectFromContent, where).toBe(a.astCorrect);
        if (a.mode === "unmasked") expect(a.tokens, where).toHaveLength(a.completionTokens);
        else expect(a.tokens).toBeUndefined();
        // No over-constraint: every unmasked answer valid with calls is replayed, and the mask takes all of it.
        const replayed = a.mode === "unmasked" && a.valid && a.calls.length > 0;
        expect(a.replay !== undefined, where).toBe(replayed);
        if (a.replay)
          expect(a.replay, where).toEqual({ tokens: a.completionTokens, accepted: a.completionTokens, refused: null });
      }
      expect(overconstraintLine(report)).toMatch(/ 0 refused$/);
      const table = markdownTable(report);
      for (const m of ran) expect(table).toContain(m.name);
      expect(bfclChartSvg(report)).toMatch(/^<svg [\s\S]*<\/svg>$/);
      console.log(`bfcl sample:\n${table}`);
    },
    30 * 60_000,
  );
});

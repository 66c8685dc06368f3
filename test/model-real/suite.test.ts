// The real-model suite's fixed sample in npm test: on every model `npm run models -- --list`
// reports (one load per model), 8 cases of scripts/lib/real-cases.mjs — every tool choice (auto,
// required, named, none) with parallel calls on and off, 1 to 10 tools — decoded greedily,
// masked and unmasked, 40 tokens at most, no logit bias. Masked: every finished answer holds only
// complete, declared, schema-valid calls (ajv, against the request's own schemas) and every cut
// is reported as one (finish_reason "length"; a cut inside a call is in `incomplete`). Every valid
// unmasked answer's tokens are accepted by the matcher of its request's grammar (no over-
// constraint). The unmasked figures are printed, not asserted. `npm run bench:models` runs all 56
// cases with longer answers. A model not fetched is a skip with how to fetch it (a failure under
// CI=true); a model whose template no dialect covers is a skip that says so.
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endedByModel, replayThroughMask } from "../../src/bench/overconstraint.js";
import { triggerOf } from "../../src/dialects/spec.js";
import { generate, getDialect, loadModel, type LlamaModel } from "../../src/index.js";
import { escapeRegex } from "../../src/parser/escape-regex.js";
import { sampleCases } from "../../scripts/lib/real-cases.mjs";
import { formatSummary, runSuite, type SuiteResult } from "../../scripts/lib/real-suite.mjs";
import { listModels } from "../support/models-script.js";

const CASES = sampleCases(8);
const MAX_TOKENS = 40;
const lib = { generate, getDialect, triggerOf, replayThroughMask, endedByModel, escapeRegex };

const models = await listModels();
const inCi = process.env.CI === "true";
const HOW = "fetch them with `npm run models`";
const missing = models.filter((m) => !m.present);
if (missing.length > 0 && !inCi)
  console.warn(
    `real-model suite: skipped ${missing.map((m) => m.name).join(", ")}: not in ${dirname(missing[0]!.path)}; ${HOW}`,
  );

describe("real-model suite (sample)", () => {
  it("the sample covers every tool choice with parallel calls on and off", () => {
    expect(new Set(CASES.map((c) => `${c.choice}/${c.parallel}`)).size).toBe(8);
  });

  for (const m of models) {
    if (!m.present && !inCi) {
      it.skip(`${m.name}: not fetched (${HOW})`, () => {});
      continue;
    }
    if (m.present && m.dialect === null) {
      it.skip(`${m.name}: the manifest gives its chat template no tool-call dialect`, () => {});
      continue;
    }
    describe(`${m.name} (${m.dialect})`, () => {
      let model: LlamaModel | undefined;
      let result: SuiteResult;
      beforeAll(async () => {
        if (!m.present) return;
        // One case at a time, its masked and unmasked answers side by side: 2 sequences of 4096
        // tokens (room for a 10-tool prompt in any dialect's rendering; KV for 8192 tokens).
        model = await loadModel({ path: m.path, gpu: false, parallel: 2, contextSize: 4096 });
        const t0 = performance.now();
        result = await runSuite(lib, model, CASES, { maxTokens: MAX_TOKENS, dialect: m.dialect!, concurrency: 2 });
        console.log(
          `${formatSummary(m.name, result)}\n  ${((performance.now() - t0) / 1000).toFixed(0)} s for ${CASES.length} cases × 2 modes, ${MAX_TOKENS} tokens at most`,
        );
      }, 30 * 60_000);
      afterAll(() => model?.dispose());

      it("masked: every finished answer holds only complete, declared, schema-valid calls; every cut is reported as a cut", () => {
        if (!m.present) throw new Error(`CI=true and ${m.path} is missing: ${HOW}; .ci/run runs it before npm test`);
        expect(result.records).toHaveLength(CASES.length);
        expect(result.maskProblems).toEqual([]);
        for (const r of result.records.filter((x) => x.masked.cut)) expect(r.masked.finishReason).toBe("length");
      });

      it("no over-constraint: the matcher accepts every token of every valid unmasked answer", () => {
        if (!m.present) throw new Error(`CI=true and ${m.path} is missing: ${HOW}`);
        expect(result.refusals).toEqual([]);
        for (const r of result.records.filter((x) => x.unmasked.valid))
          expect(r.unmasked.replay.accepted).toBe(r.unmasked.replay.tokens);
      });
    });
  }
});

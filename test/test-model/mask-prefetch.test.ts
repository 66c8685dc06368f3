// The mask of a state reached for the first time is built on a background thread while the model
// runs its next forward pass (native/core/mask_prefetch). It must change nothing but when the work
// happens: the same tokens with it and without it (TOOLMASK_MASK_PREFETCH=0), on grammars compiled
// anew (every state cold), also with several sequences sharing one cold grammar at once.
import { afterEach, beforeAll, expect, it } from "vitest";
import { generate, type GenerateOptions } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { grammarCache } from "../../src/grammar/cache.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false, parallel: 4 });
});
afterEach(() => {
  delete process.env.TOOLMASK_MASK_PREFETCH;
});

const tools = [
  {
    type: "function",
    function: {
      name: "configure",
      parameters: {
        type: "object",
        properties: {
          name: { type: "string", maxLength: 24 },
          size: { type: "integer" },
          mode: { enum: ["fast", "safe"] },
        },
        required: ["name", "mode"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "search",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    },
  },
];
const cases: Array<Partial<GenerateOptions>> = [
  { dialect: "hermes", logitBias: { 198: -100, 271: -100, 151657: 8 } },
  { dialect: "qwen3-coder", logitBias: { 151657: 100, 151645: 110 } },
];
const request = (o: Partial<GenerateOptions>, seed: number): GenerateOptions => ({
  messages: [{ role: "user", content: "Configure it" }],
  tools,
  seed,
  maxTokens: 60,
  temperature: 1,
  toolChoice: "required",
  maxValueLength: 20,
  ...o,
});

/** Decodes with a grammar compiled anew (the compiled-grammar cache emptied): every mask cold. */
async function cold(o: GenerateOptions, prefetch: boolean) {
  grammarCache.clear();
  if (prefetch) delete process.env.TOOLMASK_MASK_PREFETCH;
  else process.env.TOOLMASK_MASK_PREFETCH = "0";
  return generate(model, o);
}

it("gives the same tokens with the prefetch thread as without, every state cold", async () => {
  for (const o of cases)
    for (const seed of [1, 2, 3]) {
      const without = await cold(request(o, seed), false);
      const withPrefetch = await cold(request(o, seed), true);
      expect(withPrefetch.tokens).toEqual(without.tokens);
      expect(withPrefetch.finishReason).toBe(without.finishReason);
    }
});

it("keeps sequences that share one cold grammar apart", async () => {
  const solo = [];
  for (const seed of [1, 2, 3, 4]) solo.push((await cold(request(cases[1]!, seed), false)).tokens);
  grammarCache.clear();
  const together = await Promise.all([1, 2, 3, 4].map((seed) => generate(model, request(cases[1]!, seed))));
  expect(together.map((r) => r.tokens)).toEqual(solo);
});

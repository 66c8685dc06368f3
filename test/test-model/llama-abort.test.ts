// An abort stops decoding within one token: the engine counts the tokens sampled after abort() was
// called, on its own thread (JS sees tokens later, in batches, so it cannot tell). Measured for
// aborts at different points, alone and while another generation shares the batch.
import { beforeAll, expect, it } from "vitest";
import { generate, prepareGeneration, runGeneration, type GenerateOptions } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
let freeText: GenerateOptions;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false });
  const bias: Record<number, number> = { 198: -100, 271: -100 };
  for (const id of model.vocabulary.endOfGenerationIds) bias[id] = -100; // nothing ends on its own
  const tools = [
    {
      type: "function",
      function: {
        name: "get_weather",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    },
  ];
  freeText = { messages: [{ role: "user", content: "hi" }], tools, maxTokens: 400, temperature: 1, logitBias: bias };
});

async function abortAfter(seen: number, seed: number) {
  let count = 0;
  let kept = -1;
  const native = await runGeneration(
    model,
    await prepareGeneration(model, { ...freeText, seed }),
    undefined,
    (ids, stop) => {
      if (count + ids.length >= seen && kept < 0) {
        kept = seen; // mid-batch, as a stop string ends the output
        stop(seen - count);
      }
      count += ids.length;
    },
  );
  // The output ends where stop() said, whatever the decoder made before it saw the abort.
  expect(native.tokens.length).toBe(kept);
  expect(native.finishReason).toBe("stop");
  return native;
}

it("samples at most one token after abort()", async () => {
  for (const [seen, seed] of [
    [1, 1],
    [5, 2],
    [20, 3],
    [60, 4],
  ] as const) {
    const native = await abortAfter(seen, seed);
    expect(native.tokensAfterAbort).toBeGreaterThanOrEqual(0);
    expect(native.tokensAfterAbort).toBeLessThanOrEqual(1);
    expect(native.tokens.length).toBeLessThan(400);
  }
});

it("samples at most one token after abort() while another generation shares each step", async () => {
  const other = generate(model, { ...freeText, seed: 9, maxTokens: 150 });
  const native = await abortAfter(10, 5);
  expect(native.tokensAfterAbort).toBeGreaterThanOrEqual(0);
  expect(native.tokensAfterAbort).toBeLessThanOrEqual(1);
  expect((await other).usage.completion_tokens).toBe(150);
});

it("reports -1 when nothing was aborted", async () => {
  const native = await runGeneration(
    model,
    await prepareGeneration(model, { ...freeText, seed: 1, maxTokens: 5 }),
    undefined,
    () => {},
  );
  expect(native.tokensAfterAbort).toBe(-1);
  expect(native.finishReason).toBe("length");
});

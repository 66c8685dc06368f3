// Cheap refusals come before a grammar is compiled: a prompt longer than the context is refused
// with ContextLengthError, and the request's grammar is never compiled nor cached.
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  ContextLengthError,
  generate,
  GrammarLimitError,
  grammarCache,
  loadModel,
  type LlamaModel,
} from "../../src/index.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false, contextSize: 256, parallel: 1 });
});
afterAll(() => model?.dispose());

it("refuses a prompt over the context before compiling the request's grammar", async () => {
  grammarCache.clear();
  const tools = [
    {
      type: "function",
      function: {
        name: "f",
        parameters: { type: "object", properties: { s: { type: "string", maxLength: 4321 } }, required: ["s"] },
      },
    },
  ];
  const err = await generate(model, {
    messages: [{ role: "user", content: "word ".repeat(400) }],
    tools,
    dialect: "qwen3-coder",
    toolChoice: "required",
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ContextLengthError);
  expect((err as ContextLengthError).contextSize).toBe(256);
  expect((err as ContextLengthError).promptTokens).toBeGreaterThan(256);
  expect(grammarCache.size).toBe(0);
  // The same tools with a short prompt compile and run.
  const r = await generate(model, {
    messages: [{ role: "user", content: "hi" }],
    tools,
    dialect: "qwen3-coder",
    toolChoice: "auto",
    logitBias: { 151645: -100 },
    maxTokens: 3,
  });
  expect(r.finishReason).toBe("length");
  expect(grammarCache.size).toBe(1);
});

it("a model disposed while a generation is being prepared still runs that generation", async () => {
  const m = await loadModel({ path: testModelPath(), gpu: false, parallel: 1 });
  const running = generate(m, { messages: [{ role: "user", content: "hi" }], maxTokens: 4 });
  m.dispose();
  expect((await running).usage.completion_tokens).toBe(4);
  await expect(generate(m, { messages: [{ role: "user", content: "hi" }], maxTokens: 4 })).rejects.toThrow(/disposed/);
});

it("refuses a maxTokens that does not fit an int32, naming the range", async () => {
  for (const maxTokens of [2 ** 31, 2 ** 53, 0, 1.5])
    await expect(generate(model, { messages: [{ role: "user", content: "hi" }], maxTokens })).rejects.toThrow(
      /maxTokens must be an integer from 1 to 2147483647/,
    );
  // The native check stands behind it for callers that go around generate().
  const { loadNative } = await import("../../src/native.js");
  expect(() => loadNative().llamaGenerate(model.native, { prompt: "hi", maxTokens: 2 ** 31 }, () => {})).toThrow(
    /1 to 2147483647/,
  );
});

it("decodes the prompt tokenized on the worker thread, not the text again", async () => {
  const { loadNative } = await import("../../src/native.js");
  const tokens = await model.native.tokenizePrompt("<|im_start|>user\nhello there<|im_end|>\n<|im_start|>assistant\n");
  const viaText = await loadNative().llamaGenerate(
    model.native,
    { prompt: "<|im_start|>user\nhello there<|im_end|>\n<|im_start|>assistant\n", maxTokens: 3, seed: 4 },
    () => {},
  ).done;
  const viaTokens = await loadNative().llamaGenerate(
    model.native,
    { prompt: "unused", promptTokens: tokens, maxTokens: 3, seed: 4 },
    () => {},
  ).done;
  expect(viaTokens.promptTokens).toBe(tokens.length);
  expect(viaTokens.tokens).toEqual(viaText.tokens);
  const bad = loadNative().llamaGenerate(
    model.native,
    { prompt: "x", promptTokens: Int32Array.of(1, 10_000_000), maxTokens: 1 },
    () => {},
  ).done;
  await expect(bad).rejects.toThrow(/outside the vocabulary/);
});

it("refuses tools past a schema limit, masked or not (the parser could not read their calls)", async () => {
  const tools = [
    {
      type: "function",
      function: {
        name: "pick",
        parameters: {
          type: "object",
          properties: { a: { type: "string" }, ["n".repeat(200)]: { type: "integer" } },
          required: ["a"],
        },
      },
    },
  ];
  for (const mask of [true, false]) {
    const err = await generate(model, {
      messages: [{ role: "user", content: "hi" }],
      tools,
      dialect: "qwen3-coder",
      mask,
      maxTokens: 3,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GrammarLimitError);
    expect((err as GrammarLimitError).limit).toBe("nameLength");
  }
});

// Stop strings and a tool choice that asks for a call ("required", a named tool): a stop string is
// looked for only once the answer's first call has ended, so the text before it (whitespace, the
// call's own syntax) cannot end the answer without the call the request requires. After that call
// a stop string ends the answer as anywhere else; under "auto" it ends it wherever it appears (the
// answer then holds no call, which auto allows). Whole (generate) and streamed (generateStream)
// alike, on the random-weight test model (logitBias stands in for its wish to call and to stop).
import { beforeAll, describe, expect, it } from "vitest";
import { generate, type GenerateOptions, type GenerateResult } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { generateStream } from "../../src/engine/stream.js";
import { testModelPath } from "../support/test-model.js";
import { fn } from "../support/tools.js";

const TOOL_CALL = 151657;
const IM_END = 151645;
const tools = [fn("get_weather", { city: { type: "string", enum: ["Paris", "Rome", "Oslo"] } })];
const messages = [{ role: "user" as const, content: "What is the weather in Paris?" }];

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1, contextSize: 2048 });
});

/** The answer whole and streamed: they must agree, so one summary of both is asserted. */
async function both(o: Partial<GenerateOptions>) {
  const options = { messages, tools, maxTokens: 200, temperature: 0, ...o } as GenerateOptions;
  const whole = await generate(model, options);
  let streamed: GenerateResult | undefined;
  for await (const chunk of generateStream(model, options)) if (chunk.result) streamed = chunk.result;
  const summary = (r: GenerateResult | undefined) => ({
    finish: r?.finishReason,
    calls: (r?.message.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`),
    incomplete: r?.incomplete.length,
    stopSequence: r?.stopSequence,
  });
  expect(summary(streamed)).toEqual(summary(whole));
  return summary(whole);
}

describe("stop strings under a tool choice that requires a call", () => {
  it.each([["<tool_call>"], ["<tool"], ["\n"], ["{"], ['"city"']])(
    "required, stop %j: the call is made whole; the stop string before or inside it does not end the answer",
    async (stop) => {
      const r = await both({ toolChoice: "required", stop: [stop], logitBias: { [TOOL_CALL]: 100, [IM_END]: 110 } });
      expect(r).toMatchObject({ finish: "tool_calls", incomplete: 0 });
      expect(r.calls).toHaveLength(1);
      expect(r.calls[0]).toMatch(/^get_weather \{"city": "(Paris|Rome|Oslo)"\}$/);
    },
    120_000,
  );

  it("a named tool, stop \\n: the call is made whole", async () => {
    const r = await both({
      toolChoice: { type: "function", function: { name: "get_weather" } },
      stop: ["\n"],
      logitBias: { [IM_END]: 110 },
    });
    expect(r).toMatchObject({ finish: "tool_calls", incomplete: 0 });
    expect(r.calls).toHaveLength(1);
  }, 120_000);

  it("after the first call a stop string ends the answer: the second call's opener stops it, the first call kept", async () => {
    const r = await both({
      toolChoice: "required",
      parallelToolCalls: true,
      stop: ["<tool_call>"],
      logitBias: { [TOOL_CALL]: 100 },
    });
    expect(r).toMatchObject({ finish: "tool_calls", incomplete: 0, stopSequence: "<tool_call>" });
    expect(r.calls).toHaveLength(1);
  }, 120_000);

  it("auto, stop <tool_call>: the answer ends at the stop string, with no call (auto asks for none)", async () => {
    const r = await both({ toolChoice: "auto", stop: ["<tool_call>"], logitBias: { [TOOL_CALL]: 100 } });
    expect(r).toMatchObject({ finish: "stop", calls: [], incomplete: 0, stopSequence: "<tool_call>" });
  }, 120_000);

  it.each([[","], ["{"], ['"']])(
    "a response format, stop %j: the JSON is made whole and parsed (the stop string inside it does not cut it)",
    async (stop) => {
      const schema = {
        type: "object",
        properties: { city: { enum: ["Paris", "Rome"] }, n: { type: "integer", minimum: 1, maximum: 9 } },
        required: ["city", "n"],
        additionalProperties: false,
      };
      const options = {
        messages,
        responseFormat: { type: "json_schema" as const, schema },
        stop: [stop],
        maxTokens: 200,
        temperature: 0,
      };
      const whole = await generate(model, options);
      let streamed: GenerateResult | undefined;
      for await (const chunk of generateStream(model, options)) if (chunk.result) streamed = chunk.result;
      for (const r of [whole, streamed!]) {
        expect(r.finishReason).toBe("stop");
        expect(r.structured).toEqual({ status: "valid" });
        expect(r.parsed).toMatchObject({ city: expect.stringMatching(/^(Paris|Rome)$/) });
        expect(r.stopSequence).toBeUndefined();
      }
    },
    120_000,
  );
});

// The mask on llama.cpp's backend sampling path (graph ops, here on the CPU backend) picks exactly
// the tokens the CPU sampler picks, for the same seed and options.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generate, type GenerateOptions } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { testModelPath } from "../support/test-model.js";

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { enum: ["Paris", "Rome"] } }, required: ["city"] },
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

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
});

const cases: Array<[string, Partial<GenerateOptions>]> = [
  [
    "XML call, default sampling chain",
    { dialect: "qwen3-coder", toolChoice: "required", logitBias: { 151657: 100, 151645: 110 } },
  ],
  [
    "JSON, hot and unfiltered",
    { dialect: "hermes", temperature: 2, topK: 0, topP: 1, minP: 0, logitBias: { 198: -100, 271: -100, 151657: 8 } },
  ],
  ["JSON, greedy", { dialect: "hermes", temperature: 0, logitBias: { 198: -100, 271: -100, 151657: 8 } }],
  [
    "XML, top-k/top-p/min-p",
    {
      dialect: "qwen3-coder",
      temperature: 1.2,
      topK: 20,
      topP: 0.9,
      minP: 0.02,
      logitBias: { 198: -100, 271: -100, 151657: 6 },
    },
  ],
];

// Both ways the mask can travel into the graph (native/llama/mask_backend.cpp); the native side
// reads the choice when a generation builds its sampler.
describe.each(["packed", "dense"])("mask path: backend (%s input) == cpu", (representation) => {
  beforeEach(() => {
    process.env.TOOLMASK_BACKEND_MASK = representation;
  });
  afterEach(() => {
    delete process.env.TOOLMASK_BACKEND_MASK;
  });

  for (const [name, o] of cases) {
    it(name, async () => {
      for (const seed of [1, 2, 3]) {
        const base = { messages: [{ role: "user", content: "Weather?" }], tools, seed, maxTokens: 40, ...o };
        const cpu = await generate(model, { ...base, maskPath: "cpu" });
        const backend = await generate(model, { ...base, maskPath: "backend" });
        expect(cpu.maskPath).toBe("cpu");
        expect(backend.maskPath).toBe("backend");
        expect(backend.tokens).toEqual(cpu.tokens);
      }
    });
  }

  it("keeps a masked call whole on the backend path", async () => {
    const r = await generate(model, {
      messages: [{ role: "user", content: "Weather?" }],
      tools,
      dialect: "qwen3-coder",
      seed: 9,
      toolChoice: { type: "function", function: { name: "get_weather" } },
      maxTokens: 60,
      logitBias: { 151657: 100, 151645: 110 },
      maskPath: "backend",
    });
    expect(r.finishReason).toBe("tool_calls");
    expect(r.incomplete).toEqual([]);
    expect(r.message.tool_calls!.map((c) => c.function.name)).toEqual(["get_weather"]);
    expect(["Paris", "Rome"]).toContain(JSON.parse(r.message.tool_calls![0]!.function.arguments).city);
  });
});

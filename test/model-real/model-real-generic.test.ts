// SmolLM2-135M-Instruct (fetched by `npm run models`) with tools: its template shows no tool calls,
// so loadModel() says so in a notice and assumes the generic dialect; greedy decoding, no logit
// bias. Masked, toolChoice "required" and a named tool give one complete, declared, schema-valid
// call; under "auto" the answer is a call or text, never a call reported complete that is not.
// The unmasked answers to the same requests are printed, not asserted. A missing model is a skip
// with how to fetch it, a failure under CI=true.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, loadModel, type LlamaModel } from "../../src/index.js";
import { listModels } from "../support/models-script.js";

const HOW = "fetch it with `npm run models`";
const inCi = process.env.CI === "true";
const smol = (await listModels()).find((m) => m.name === "smollm2-135m-instruct");
const present = !!smol?.present;
if (!present && !inCi) console.warn(`SmolLM2 generic-dialect test: skipped, the model is not in .cache/models; ${HOW}`);

const TOOLS = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "The weather forecast for a city.",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", maxLength: 40 },
          unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        },
        required: ["city"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "send_email",
      description: "Sends an email.",
      parameters: {
        type: "object",
        properties: { to: { type: "string", maxLength: 40 }, body: { type: "string", maxLength: 80 } },
        required: ["to", "body"],
      },
    },
  },
];
const MESSAGES = [{ role: "user", content: "What is the weather in Paris?" }];

describe.skipIf(!present && !inCi)("SmolLM2-135M-Instruct through the generic dialect", () => {
  let model: LlamaModel;
  const notices: string[] = [];
  beforeAll(async () => {
    if (!present) throw new Error(`CI=true and the SmolLM2 model is missing: ${HOW}`);
    model = await loadModel({
      path: smol!.path,
      gpu: false,
      parallel: 1,
      contextSize: 2048,
      onNotice: (n) => notices.push(n),
    });
  }, 120_000);
  afterAll(() => model?.dispose());

  it("loads with the generic dialect and a notice that says so", () => {
    expect(model.dialect).toBe("generic");
    expect(notices).toHaveLength(1);
    expect(model.dialectNotice).toBe(notices[0]);
    expect(notices[0]).toMatch(/shows no tool-call format; using the generic dialect/);
  });

  for (const [label, toolChoice] of [
    ["required", "required"],
    ["named send_email", { type: "function", function: { name: "send_email" } }],
  ] as const) {
    it(`masked, toolChoice ${label}: one complete, declared, schema-valid call`, async () => {
      // Room for both values at their caps (40 and 80 characters, SmolLM2 fills the body with
      // "2023, 2023, …" under a named choice) and the 32 whitespace characters the grammar allows
      // before the end, which SmolLM2 writes one newline token at a time: past 160 tokens greedy.
      const r = await generate(model, { messages: MESSAGES, tools: TOOLS, toolChoice, maxTokens: 256, temperature: 0 });
      const unmasked = await generate(model, {
        messages: MESSAGES,
        tools: TOOLS,
        toolChoice,
        maxTokens: 256,
        temperature: 0,
        mask: false,
      });
      console.log(
        `SmolLM2 ${label}: masked ${JSON.stringify(r.text)} → ${r.finishReason}; unmasked ${JSON.stringify(unmasked.text.slice(0, 200))} → ${unmasked.finishReason}, ${unmasked.message.tool_calls?.length ?? 0} calls`,
      );
      expect(r.incomplete).toEqual([]);
      expect(r.finishReason).toBe("tool_calls");
      expect(r.message.tool_calls).toHaveLength(1);
      const call = r.message.tool_calls![0]!;
      if (typeof toolChoice === "object") expect(call.function.name).toBe("send_email");
      const tool = TOOLS.find((t) => t.function.name === call.function.name)!;
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      for (const k of tool.function.parameters.required) expect(typeof args[k], k).toBe("string");
      for (const k of Object.keys(args)) expect(Object.keys(tool.function.parameters.properties)).toContain(k);
      if (args.unit !== undefined) expect(["celsius", "fahrenheit"]).toContain(args.unit);
    }, 240_000);
  }

  it("masked, toolChoice auto: the answer is calls or text, and every call it reports is complete", async () => {
    const r = await generate(model, {
      messages: MESSAGES,
      tools: TOOLS,
      toolChoice: "auto",
      maxTokens: 160,
      temperature: 0,
    });
    console.log(`SmolLM2 auto: masked ${JSON.stringify(r.text.slice(0, 200))} → ${r.finishReason}`);
    if (r.finishReason === "length") expect(r.incomplete.every((c) => c.kind === "cut")).toBe(true);
    else expect(r.incomplete).toEqual([]);
    for (const c of r.message.tool_calls ?? []) expect(["get_weather", "send_email"]).toContain(c.function.name);
  }, 240_000);
});

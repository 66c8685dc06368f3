// generate() with "format": the mask holds a random-weight model's string arguments to the format
// (every call that ends complete has values ajv-formats accepts), a format the grammar does not
// enforce comes back as one notice in the result (whole and streamed), and strictFormats refuses it.
import { ajvWithFormats } from "../support/ajv-formats.js";
import { beforeAll, expect, it } from "vitest";
import { generate } from "../../src/engine/generate.js";
import { generateStream } from "../../src/engine/stream.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { UnsupportedSchemaError } from "../../src/index.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false });
});

const parameters = {
  type: "object",
  properties: { day: { type: "string", format: "date" }, addr: { type: "string", format: "ipv4" } },
  required: ["day", "addr"],
};
const tools = [{ type: "function", function: { name: "book", parameters } }];
const custom = [
  {
    type: "function",
    function: {
      name: "book",
      parameters: { type: "object", properties: { day: { type: "string", format: "x-day" } } },
    },
  },
];
const messages = [{ role: "user" as const, content: "Book it" }];

it("qwen3-coder: every complete call's values have their formats", async () => {
  const dialect = "qwen3-coder";
  const ajv = ajvWithFormats();
  const valid = ajv.compile(parameters);
  let calls = 0;
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const r = await generate(model, { messages, tools, dialect, seed, maxTokens: 80, toolChoice: "required" });
    expect(r.notices).toBeUndefined();
    for (const c of r.message.tool_calls ?? []) {
      calls++;
      const args = JSON.parse(c.function.arguments);
      expect({ args, valid: valid(args) }).toEqual({ args, valid: true });
    }
  }
  expect(calls).toBeGreaterThan(0);
});

it("a format the grammar does not enforce: one notice, whole and streamed; strictFormats refuses", async () => {
  const options = { messages, tools: custom, dialect: "qwen3-coder", maxTokens: 8 };
  const r = await generate(model, options);
  expect(r.notices).toHaveLength(1);
  expect(r.notices![0]).toContain('tools[0].function.parameters.properties.day.format ("x-day")');
  let last: string[] | undefined;
  for await (const chunk of generateStream(model, options)) if (chunk.result) last = chunk.result.notices;
  expect(last).toEqual(r.notices);
  await expect(generate(model, { ...options, strictFormats: true })).rejects.toBeInstanceOf(UnsupportedSchemaError);
});

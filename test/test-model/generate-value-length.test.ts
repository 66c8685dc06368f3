// generate({ maxValueLength }): the bound reaches the grammar and the parser, so a random-weight
// model that never closes a value on its own gets its string arguments closed at the bound.
import { beforeAll, expect, it } from "vitest";
import { generate } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false });
});

const tools = [
  {
    type: "function",
    function: {
      name: "note",
      parameters: {
        type: "object",
        properties: { title: { type: "string" }, body: { type: "string" } },
        required: ["title", "body"],
      },
    },
  },
];

it("closes every string argument at maxValueLength", async () => {
  let finished = 0;
  for (const seed of [1, 2, 3, 4]) {
    const r = await generate(model, {
      messages: [{ role: "user", content: "Take a note" }],
      tools,
      dialect: "qwen3-coder",
      seed,
      maxTokens: 120,
      toolChoice: "required",
      maxValueLength: 6,
      logitBias: { 151657: 100, 151645: 110 },
    });
    if (r.finishReason !== "tool_calls") continue;
    finished++;
    for (const c of r.message.tool_calls!) {
      const args = JSON.parse(c.function.arguments) as Record<string, string>;
      // Characters are code points, as the grammar counts them ("𝖉" is one, two UTF-16 units).
      for (const v of Object.values(args)) expect([...v].length).toBeLessThanOrEqual(6);
    }
  }
  expect(finished).toBeGreaterThan(0);
});

it("refuses a maxValueLength that is not a non-negative integer", async () => {
  await expect(
    generate(model, { messages: [{ role: "user", content: "x" }], tools, dialect: "qwen3-coder", maxValueLength: -1 }),
  ).rejects.toThrow(/maxValueLength/);
});

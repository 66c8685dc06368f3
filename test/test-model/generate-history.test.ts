// A conversation sent back as OpenAI returns it: an assistant turn with tool calls carries
// `content: null` (or no content at all). Chat templates that test or concatenate the content throw
// on null (Qwen3's does, in Python too), so generate() must hand them the empty text the API means.
import { beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import type { ChatMessage } from "../../src/templates/render.js";
import { testModelPath } from "../support/test-model.js";

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];
const call = { id: "call_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } };

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
});

describe("generate() with tool-call history", () => {
  for (const [name, assistant] of [
    ["content null", { role: "assistant", content: null, tool_calls: [call] }],
    ["content absent", { role: "assistant", tool_calls: [call] }],
    ["content empty", { role: "assistant", content: "", tool_calls: [call] }],
  ] as Array<[string, ChatMessage]>) {
    it(`renders and decodes an assistant turn with ${name}`, async () => {
      const messages: ChatMessage[] = [
        { role: "user", content: "Weather in Paris?" },
        assistant,
        { role: "tool", tool_call_id: "call_0", content: "sunny" },
      ];
      const r = await generate(model, { messages, tools, dialect: "qwen3-coder", maxTokens: 4, seed: 1 });
      expect(r.usage.prompt_tokens).toBeGreaterThan(0);
      expect(messages[1]).toEqual(assistant); // the caller's history is not changed
    });
  }

  it("renders the same prompt for null, absent and empty content", async () => {
    const { prepareGeneration } = await import("../../src/engine/generate.js");
    const prompts = await Promise.all(
      [null, undefined, ""].map(
        async (content) =>
          (
            await prepareGeneration(model, {
              messages: [
                { role: "user", content: "x" },
                { role: "assistant", ...(content === undefined ? {} : { content }), tool_calls: [call] },
                { role: "tool", tool_call_id: "call_0", content: "sunny" },
              ],
              tools,
              dialect: "qwen3-coder",
            })
          ).request.prompt,
      ),
    );
    expect(new Set(prompts).size).toBe(1);
    expect(prompts[0]).toContain(
      `<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>`,
    );
  });
});

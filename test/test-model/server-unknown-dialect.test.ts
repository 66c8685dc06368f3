// A model whose chat template does not show how it writes tool calls: loading it says so in a
// notice and assumes the generic dialect, so the server answers requests with tools through it
// (the answer a JSON object, the tools described in the system message) as well as plain chat.
// Its template refuses a conversation that opens with a tool result, but the generic dialect hands
// tool results to it as user messages.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadModel, writeTestModel, type LlamaModel } from "../../src/index.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { timeoutFor } from "../support/timeouts.js";

const PLAIN_TEMPLATE =
  "{% if messages[0].role == 'tool' %}{{ raise_exception('a conversation cannot open with a tool result') }}{% endif %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
const dir = mkdtempSync(path.join(os.tmpdir(), "toolmask-plain-"));
let model: LlamaModel;
let server: ToolmaskServer;
let client: OpenAI;
const notices: string[] = [];
beforeAll(async () => {
  const file = path.join(dir, "plain.gguf");
  writeTestModel({ path: file, seed: 1, chatTemplate: PLAIN_TEMPLATE });
  model = await loadModel({ path: file, gpu: false, onNotice: (n) => notices.push(n) });
  server = await startServer({ model, port: 0 });
  // Its requests decode at most 24 tokens.
  client = new OpenAI({
    baseURL: `${server.url}/v1`,
    apiKey: "none",
    maxRetries: 0,
    timeout: timeoutFor({ decode: 24 }),
  });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

it("serves tools through the generic dialect, with a notice, and serves plain chat", async () => {
  expect(model.dialect).toBe("generic");
  expect(notices).toHaveLength(1);
  expect(notices[0]).toMatch(/shows no tool-call format; using the generic dialect/);
  const tools = [
    { type: "function" as const, function: { name: "f", parameters: { type: "object", properties: {} } } },
  ];
  const r = await client.chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    tools,
    tool_choice: "required",
    max_tokens: 24,
  });
  // Random weights: a complete call {"tool_calls": [{"name": "f", "arguments": {}}]} or one cut by max_tokens.
  expect(["tool_calls", "length"]).toContain(r.choices[0]!.finish_reason);
  const call = r.choices[0]!.message.tool_calls?.[0];
  if (r.choices[0]!.finish_reason === "tool_calls")
    expect(call?.type === "function" ? call.function.name : call?.type).toBe("f");
  const ok = await client.chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    max_tokens: 4,
  });
  expect(ok.choices[0]!.finish_reason).toBe("length");
});

it("hands the template a tool result as a user message, as llama.cpp's polyfill does, so its refusal of the tool role does not apply", async () => {
  const r = await client.chat.completions.create({
    model: "m",
    messages: [{ role: "tool", tool_call_id: "c", content: "r" }],
    max_tokens: 4,
  });
  expect(r.choices[0]!.finish_reason).toBe("length");
});

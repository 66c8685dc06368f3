// A model whose chat template does not show how it writes tool calls: the server still answers
// requests without tools, and a request with tools gets a 400 that says to start the server with
// --dialect (it is the request the model cannot serve, not a server fault). Its template also
// refuses a conversation that opens with a tool result: that is the client's to fix too (400).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadModel, writeTestModel, type LlamaModel } from "../src/index.js";
import { startServer, type ToolmaskServer } from "../src/server/index.js";

const PLAIN_TEMPLATE = "{% if messages[0].role == 'tool' %}{{ raise_exception('a conversation cannot open with a tool result') }}{% endif %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
const dir = mkdtempSync(path.join(os.tmpdir(), "toolmask-plain-"));
let model: LlamaModel;
let server: ToolmaskServer;
let client: OpenAI;
beforeAll(async () => {
  const file = path.join(dir, "plain.gguf");
  writeTestModel({ path: file, seed: 1, chatTemplate: PLAIN_TEMPLATE });
  model = await loadModel({ path: file, gpu: false });
  server = await startServer({ model, port: 0 });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "none", maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

it("refuses tools with a 400 that names --dialect, and serves plain chat", async () => {
  expect(model.dialect).toBeUndefined();
  const tools = [{ type: "function" as const, function: { name: "f", parameters: { type: "object", properties: {} } } }];
  const err = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], tools, max_tokens: 4 }).catch((e) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  expect(err.status).toBe(400);
  expect(err.message).toMatch(/--dialect/);
  expect(err.code).toBe("unknown_dialect");
  const ok = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 4 });
  expect(ok.choices[0]!.finish_reason).toBe("length");
});

it("answers a template's refusal with a 400 template_error", async () => {
  const err = await client.chat.completions.create({ model: "m", messages: [{ role: "tool", tool_call_id: "c", content: "r" }], max_tokens: 4 }).catch((e) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  expect(err.code).toBe("template_error");
  expect(err.message).toMatch(/cannot open with a tool result/);
});

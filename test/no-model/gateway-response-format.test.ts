// A gateway refuses a JSON response format before any upstream is asked (its upstream's answer is
// not held to the schema there): a 400 invalid_response_format through the real openai client on
// chat completions (param response_format) and Responses (param text.format); {"type": "text"} is
// no format, and goes on to the upstream (here none is up: 502).
import { createServer } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { NO_TOKENS, timeoutFor } from "../support/timeouts.js";

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

let gateway: ToolmaskServer;
let api: OpenAI;
beforeAll(async () => {
  const urls = [`http://127.0.0.1:${await closedPort()}`];
  gateway = await startServer({ port: 0, upstreams: { urls, engine: "openai", healthInterval: 100 } });
  api = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "x", maxRetries: 0, timeout: timeoutFor(NO_TOKENS) });
});
afterAll(async () => {
  await gateway?.close();
});

const messages = [{ role: "user" as const, content: "hi" }];
const failed = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as { status: number; code: string; param: string; message: string },
  );

it("a JSON response format: 400 invalid_response_format on chat completions and Responses; text goes on", async () => {
  const chat = await failed(
    api.chat.completions.create({ model: "m", messages, response_format: { type: "json_object" } }),
  );
  expect([chat?.status, chat?.code, chat?.param]).toEqual([400, "invalid_response_format", "response_format"]);
  expect(chat?.message).toContain("a JSON response format is not served through the gateway");
  const schema = { type: "object", properties: { a: { type: "string" } } };
  const responses = await failed(
    api.responses.create({ model: "m", input: "hi", text: { format: { type: "json_schema", name: "x", schema } } }),
  );
  expect([responses?.status, responses?.code, responses?.param]).toEqual([
    400,
    "invalid_response_format",
    "text.format",
  ]);
  const text = await failed(api.chat.completions.create({ model: "m", messages, response_format: { type: "text" } }));
  expect([text?.status, text?.code]).toEqual([502, "upstream_error"]);
});

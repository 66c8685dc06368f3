// Structured outputs through the gateway over llama.cpp's own llama-server (built from the llama.cpp
// node-llama-cpp bundles, scripts/oracles/llama-server/build.mjs) serving the random-weight test
// model: the response format's schema goes to llama-server lowered into our GBNF (its `grammar`
// field, echoed back: "confirmed"), and the answer is verified here before it reaches the client.
// The real clients: openai's chat.completions.parse with zodResponseFormat (whole and streamed),
// responses.parse with zodTextFormat, the AI SDK's generateObject — each object ajv-valid.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateObject } from "ai";
import { zodResponseFormat, zodTextFormat } from "openai/helpers/zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { ajvWithFormats } from "../support/ajv-formats.js";
import { LLAMA_SERVER_START_MS, startLlamaServer, type LlamaServerProcess } from "../support/llama-server-process.js";
import { client } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import { timedFetch, timeoutFor, type Work } from "../support/timeouts.js";

/** A short answer whatever the model writes: keys forced, values few, whitespace bounded. */
const CHOICE = {
  type: "object",
  properties: { ok: { type: "boolean" }, n: { enum: [1, 2, 3] }, tag: { type: "string", pattern: "^[a-c]{1,3}$" } },
  required: ["ok", "n", "tag"],
  additionalProperties: false,
};
const Choice = z.object({
  ok: z.boolean(),
  n: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  tag: z.string().regex(/^[a-c]{1,3}$/),
});
const valid = ajvWithFormats("2020").compile(CHOICE);
const messages = [{ role: "user" as const, content: "Pick one." }];

/** The most one request decodes. */
const REQUEST: Work = { decode: 300 };
/** The most a test makes: 7 requests, with the llama-server started for them. */
const TIMEOUT = timeoutFor({ decode: REQUEST.decode * 7, requests: 7 }) + LLAMA_SERVER_START_MS;

let upstream: LlamaServerProcess;
let gateway: ToolmaskServer;
beforeAll(async () => {
  upstream = await startLlamaServer(testModelPath(), ["--jinja"]);
  gateway = await startServer({
    port: 0,
    upstreams: { urls: [upstream.url], engine: "llama-server", tokenizer: testModelPath(), healthInterval: 200 },
  });
}, TIMEOUT);
afterAll(async () => {
  await gateway?.close();
  await upstream?.kill();
});

const fits = (v: unknown) => ({ v, valid: valid(v) });

describe("structured outputs through a gateway over llama-server", { timeout: TIMEOUT }, () => {
  it("chat.completions.parse (zodResponseFormat), whole and streamed: the object fits, the grammar confirmed", async () => {
    const api = client(gateway.url, REQUEST);
    for (const seed of [1, 2, 3]) {
      const ask = { model: "m", messages, response_format: zodResponseFormat(Choice, "choice"), max_tokens: 300, seed };
      const r = await api.chat.completions.parse(ask);
      const m = r.choices[0]!;
      expect(m.finish_reason, JSON.stringify(r)).toBe("stop");
      expect(fits(m.message.parsed)).toEqual({ v: m.message.parsed, valid: true });
      expect((r as unknown as { toolmask: { grammar: string } }).toolmask.grammar).toBe("confirmed");
      const s = await api.chat.completions.stream(ask).finalChatCompletion();
      expect(fits(s.choices[0]!.message.parsed)).toEqual({ v: s.choices[0]!.message.parsed, valid: true });
    }
  });

  it("responses.parse (zodTextFormat) and the AI SDK's generateObject", async () => {
    const api = client(gateway.url, REQUEST);
    const r = await api.responses.parse({
      model: "m",
      input: "Pick one.",
      text: { format: zodTextFormat(Choice, "choice") },
      max_output_tokens: 300,
    });
    expect(r.status).toBe("completed");
    expect(fits(r.output_parsed)).toEqual({ v: r.output_parsed, valid: true });
    const provider = createOpenAICompatible({
      name: "toolmask",
      baseURL: `${gateway.url}/v1`,
      supportsStructuredOutputs: true,
      fetch: timedFetch(REQUEST),
    });
    const o = await generateObject({
      model: provider("m"),
      schema: Choice,
      prompt: "Pick one.",
      maxOutputTokens: 300,
      maxRetries: 0,
    });
    expect(fits(o.object)).toEqual({ v: o.object, valid: true });
  });
});

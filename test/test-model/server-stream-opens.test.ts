// A stream opens before its prefill: the API's opening event (chat's role chunk, Messages'
// message_start, Responses' response.created) goes out once the request is prepared, and while the
// prompt is read a keepalive follows every keepaliveMs (Messages: `ping` events, as Anthropic's API
// sends; chat completions and Responses: SSE comment lines). The real openai and @anthropic-ai/sdk
// clients time out a request whose response has not begun; here their timeout is 250 ms and the
// prompt takes longer than that to prefill (6,000 tokens: 0.6 s at the test model's fastest
// measured 0.10 ms/token, test/support/timeouts.ts), and each stream still completes. Every request
// sends the same prompt, so the server runs with the prompt cache off: each one prefills it whole.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutFor, type Work } from "../support/timeouts.js";

const CLIENT_TIMEOUT_MS = 250;
const PROMPT = `Summarize: ${"word ".repeat(6_000)}`;
/**
 * One request: a 6,000-token prompt, 16 tokens decoded at most. A long prompt reads slower per token
 * than the short ones timeouts.ts rates: 12,000 tokens took 10.7 s at load average 9 (0.89 ms/token),
 * so the prompt counts 8 times.
 */
const REQUEST: Work = { prompt: 8 * 6_100, decode: 16, model: "test-model" };

let model: LlamaModel;
let server: ToolmaskServer;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1, contextSize: 8_192 });
  server = await startServer({ model, port: 0, keepaliveMs: 100, cachePrompt: false });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

/** The raw events of one streamed request, each with the milliseconds since it was sent. */
async function rawEvents(path: string, body: object): Promise<Array<{ at: number; text: string }>> {
  const t0 = performance.now();
  const r = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutFor(REQUEST)),
  });
  expect(r.status).toBe(200);
  const events: Array<{ at: number; text: string }> = [];
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const bytes of r.body!) {
    buffered += decoder.decode(bytes, { stream: true });
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      events.push({ at: performance.now() - t0, text: buffered.slice(0, end) });
      buffered = buffered.slice(end + 2);
    }
  }
  return events;
}

const ROUTES = [
  {
    api: "chat completions",
    path: "/v1/chat/completions",
    body: { model: "m", messages: [{ role: "user", content: PROMPT }], max_tokens: 2, stream: true },
    opening: (t: string) => /"role":"assistant"/.test(t),
    keepalive: (t: string) => t.startsWith(": "),
    output: (t: string) => /"content":"[^"]/.test(t) || /"finish_reason":"/.test(t),
  },
  {
    api: "Messages",
    path: "/v1/messages",
    body: { model: "m", messages: [{ role: "user", content: PROMPT }], max_tokens: 2, stream: true },
    opening: (t: string) => t.startsWith("event: message_start"),
    keepalive: (t: string) => t.startsWith("event: ping"),
    output: (t: string) => /^event: (content_block_start|message_delta)/.test(t),
  },
  {
    api: "Responses",
    path: "/v1/responses",
    body: { model: "m", input: PROMPT, max_output_tokens: 16, stream: true },
    opening: (t: string) => t.startsWith("event: response.created"),
    // response.in_progress follows response.created at once, as OpenAI's stream sends it.
    keepalive: (t: string) => t.startsWith(": ") || t.startsWith("event: response.in_progress"),
    output: (t: string) => /^event: response\.(output_item\.added|completed|incomplete)/.test(t),
  },
];

describe("streams open before prefill", { timeout: 4 * timeoutFor(REQUEST) }, () => {
  for (const route of ROUTES)
    it(`${route.api}: the opening event, then keepalives while the prompt is read, then the output`, async () => {
      const events = await rawEvents(route.path, route.body);
      const opening = events.findIndex((e) => route.opening(e.text));
      const output = events.findIndex((e) => route.output(e.text));
      expect(opening, events.map((e) => e.text.slice(0, 60)).join("\n")).toBe(0);
      expect(output).toBeGreaterThan(opening);
      // The prefill ran well past the client timeout, and the stream kept talking meanwhile.
      expect(events[output]!.at - events[opening]!.at).toBeGreaterThan(CLIENT_TIMEOUT_MS);
      const between = events.slice(opening + 1, output);
      expect(between.length).toBeGreaterThan(0);
      expect(between.every((e) => route.keepalive(e.text))).toBe(true);
    });

  it("the real clients, with a timeout shorter than the prefill, get their streams", async () => {
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x", maxRetries: 0, timeout: CLIENT_TIMEOUT_MS });
    const chat = await openai.chat.completions
      .stream({ model: "m", messages: [{ role: "user", content: PROMPT }], max_tokens: 2 })
      .finalChatCompletion();
    expect(chat.choices[0]!.finish_reason).toBe("length");
    const types: string[] = [];
    for await (const e of await openai.responses.create({
      model: "m",
      input: PROMPT,
      max_output_tokens: 16,
      stream: true,
    }))
      types.push(e.type);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toMatch(/^response\.(completed|incomplete)$/);
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: "x", maxRetries: 0, timeout: CLIENT_TIMEOUT_MS });
    const message = await anthropic.messages
      .stream({ model: "m", messages: [{ role: "user", content: PROMPT }], max_tokens: 2 })
      .finalMessage();
    expect(message.stop_reason).toBe("max_tokens");
  });
});

// A streamed request that waits in the queue (every generation slot busy) opens its stream and
// keeps it talking: once it has waited keepaliveMs, the API's opening event goes out (chat's role
// chunk, Messages' message_start, Responses' response.created) and a keepalive follows every
// keepaliveMs (Messages: `ping`; the others: an SSE comment) until its slot comes and its answer
// streams. Claude Code gives up on a stream that sends nothing for 300 s; a request queued behind
// long ones must not look dead. Here the server has one slot; a first request reads a 6,000-token
// prompt, and three streamed requests queued behind it each get their opening event before the
// first request ends, then keepalives, then their own answer. A real client whose timeout is
// shorter than the first request (the @anthropic-ai/sdk, 250 ms) gets its stream. A queued stream
// that opened before it was prepared ends with the route's error event when its prompt cannot fit
// the context, or when the server closes while it waits.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutFor, type Work } from "../support/timeouts.js";

const KEEPALIVE_MS = 100;
const CLIENT_TIMEOUT_MS = 250;
const LONG_PROMPT = `Summarize: ${"word ".repeat(6_000)}`;
/**
 * The first request: a 6,000-token prompt read at least 0.6 s (0.10 ms/token, the test model's
 * fastest), 16 tokens decoded; a long prompt reads slower per token than timeouts.ts rates (0.89
 * ms/token at load average 9, server-stream-opens.test.ts), so it counts 8 times. Then the queued
 * requests, short prompts, 2–16 tokens each.
 */
const WORK: Work = { prompt: 8 * 6_100 + 4_000, decode: 16 + 4 * 16, requests: 5, model: "test-model" };

let model: LlamaModel;
let server: ToolmaskServer;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1, contextSize: 8_192, parallel: 1 });
  server = await startServer({ model, port: 0, parallel: 1, keepaliveMs: KEEPALIVE_MS, cachePrompt: false });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const post = (path: string, body: object) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutFor(WORK)),
  });

/** The raw events of a streamed response, each with the time (performance.now()) it arrived. */
async function rawEvents(r: Response): Promise<Array<{ at: number; text: string }>> {
  expect(r.status).toBe(200);
  const events: Array<{ at: number; text: string }> = [];
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const bytes of r.body!) {
    buffered += decoder.decode(bytes, { stream: true });
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      events.push({ at: performance.now(), text: buffered.slice(0, end) });
      buffered = buffered.slice(end + 2);
    }
  }
  return events;
}

const ROUTES = [
  {
    api: "chat completions",
    path: "/v1/chat/completions",
    body: { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 2, stream: true },
    opening: (t: string) => /"role":"assistant"/.test(t),
    keepalive: (t: string) => t.startsWith(": "),
    output: (t: string) => /"content":"[^"]/.test(t) || /"finish_reason":"/.test(t),
  },
  {
    api: "Messages",
    path: "/v1/messages",
    body: { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 2, stream: true },
    opening: (t: string) => t.startsWith("event: message_start"),
    keepalive: (t: string) => t.startsWith("event: ping"),
    output: (t: string) => /^event: (content_block_start|message_delta)/.test(t),
  },
  {
    api: "Responses",
    path: "/v1/responses",
    body: { model: "m", input: "hi", max_output_tokens: 16, stream: true },
    opening: (t: string) => t.startsWith("event: response.created"),
    keepalive: (t: string) => t.startsWith(": ") || t.startsWith("event: response.in_progress"),
    output: (t: string) => /^event: response\.(output_item\.added|completed|incomplete)/.test(t),
  },
];

/** Resolves once /health says `busy` slots are busy and `queued` requests wait. */
async function slotsAre(busy: number, queued: number): Promise<void> {
  for (;;) {
    const { slots } = (await (await fetch(`${server.url}/health`)).json()) as {
      slots: { busy: number; queued: number };
    };
    if (slots.busy === busy && slots.queued === queued) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("streams queued behind a busy slot open and keep talking", { timeout: 2 * timeoutFor(WORK) }, () => {
  it("each route's opening event arrives before the request ahead of it ends, then keepalives, then its answer", async () => {
    const first = post("/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: LONG_PROMPT }],
      max_tokens: 16,
    }).then(async (r) => {
      expect(r.status).toBe(200);
      await r.json();
      return performance.now();
    });
    await slotsAre(1, 0);
    const streams = ROUTES.map((route) => post(route.path, route.body).then(rawEvents));
    const [firstEnded, ...results] = await Promise.all([first, ...streams]);
    results.forEach((events, i) => {
      const route = ROUTES[i]!;
      const shown = events.map((e) => e.text.slice(0, 60)).join("\n");
      const output = events.findIndex((e) => route.output(e.text));
      expect(route.opening(events[0]?.text ?? ""), `${route.api}:\n${shown}`).toBe(true);
      expect(events[0]!.at, `${route.api}: its stream opened only after the request ahead ended`).toBeLessThan(
        firstEnded,
      );
      expect(output, `${route.api}:\n${shown}`).toBeGreaterThan(0);
      const between = events.slice(1, output);
      expect(between.length, `${route.api}:\n${shown}`).toBeGreaterThan(0);
      expect(
        between.every((e) => route.keepalive(e.text)),
        `${route.api}:\n${shown}`,
      ).toBe(true);
    });
  });

  it("the @anthropic-ai/sdk client, with a timeout shorter than the request ahead, gets its stream", async () => {
    const first = post("/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: LONG_PROMPT }],
      max_tokens: 16,
    }).then((r) => r.json());
    await slotsAre(1, 0);
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: "x", maxRetries: 0, timeout: CLIENT_TIMEOUT_MS });
    const message = await anthropic.messages
      .stream({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 2 })
      .finalMessage();
    expect(message.stop_reason).toBe("max_tokens");
    await first;
  });

  it("a queued stream whose prompt cannot fit the context, found once its slot comes: the route's error event ends it", async () => {
    const first = post("/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: LONG_PROMPT }],
      max_tokens: 16,
    }).then((r) => r.json());
    await slotsAre(1, 0);
    const tooLong = `Summarize: ${"word ".repeat(9_000)}`;
    const bodies = [
      { messages: [{ role: "user", content: tooLong }], max_tokens: 2 },
      { messages: [{ role: "user", content: tooLong }], max_tokens: 2 },
      { input: tooLong, max_output_tokens: 16 },
    ];
    const results = await Promise.all(
      ROUTES.map((route, i) => post(route.path, { model: "m", ...bodies[i], stream: true }).then(rawEvents)),
    );
    await first;
    const last = results.map((events) => events.at(-1)?.text ?? "");
    expect(results.map((events, i) => ROUTES[i]!.opening(events[0]?.text ?? ""))).toEqual([true, true, true]);
    expect(last[0]).toMatch(
      /^data: \{"error":\{"message":"the prompt has at least \d+ tokens but the context holds 8192/,
    );
    expect(last[1]).toMatch(/^event: error\ndata: \{"type":"error","error":\{"type":"invalid_request_error"/);
    expect(last[2]).toMatch(/^event: error\ndata: \{"type":"error".*"code":"context_length_exceeded"/s);
  });

  it("the server closing while a stream waits for its slot: the stream's error event says so (503 server_closing)", async () => {
    const closing = await startServer({ model, port: 0, parallel: 1, keepaliveMs: KEEPALIVE_MS, cachePrompt: false });
    const first = fetch(`${closing.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: LONG_PROMPT }], max_tokens: 16 }),
    }).then((r) => r.status);
    for (;;) {
      const { slots } = (await (await fetch(`${closing.url}/health`)).json()) as { slots: { busy: number } };
      if (slots.busy === 1) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    // The response (its headers) comes only once the queued stream has opened.
    const queued = await fetch(`${closing.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 2, stream: true }),
      signal: AbortSignal.timeout(timeoutFor(WORK)),
    });
    const events = rawEvents(queued);
    await closing.close();
    const texts = (await events).map((e) => e.text);
    expect(texts[0]).toMatch(/^event: message_start/);
    // Anthropic's shape for a 503: overloaded_error.
    expect(texts.at(-1)).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"the server is shutting down"}}',
    );
    expect(await first).toBe(503);
  });
});

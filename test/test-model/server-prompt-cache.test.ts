// The prompt cache as the server's clients see it, through the real openai and @anthropic-ai/sdk
// clients on the random-weight test model: a request's repeat finds all of its prompt in the cache
// but the last 64 tokens (decoded again: native/llama/prompt_cache.hpp says why), and each API says
// so in its own usage field, whole and streamed — chat completions
// `usage.prompt_tokens_details.cached_tokens`, Responses `usage.input_tokens_details.cached_tokens`,
// Messages `usage.cache_read_input_tokens` (with `input_tokens` the rest, as Anthropic and
// llama-server count them). `startServer({ cachePrompt: false })` and `toolmask serve
// --no-cache-prompt` turn it off; the option is checked like the others.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import type Anthropic from "@anthropic-ai/sdk";
import type { ResponseStreamEvent, Response } from "openai/resources/responses/responses";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { serveCommand } from "../../src/server/cli.js";
import { anthropicClient, assemble, client, messagePromptTokens } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import type { Work } from "../support/timeouts.js";

/** Requests here decode at most 8 tokens. */
const REQUEST: Work = { decode: 8 };
const models: LlamaModel[] = [];
const servers: ToolmaskServer[] = [];
async function serve(cachePrompt?: boolean): Promise<{ chat: OpenAI; messages: Anthropic; url: string }> {
  // One slot: a request's repeat runs where it ran.
  const model = await loadModel({ path: testModelPath(), threads: 1, parallel: 1 });
  models.push(model);
  const server = await startServer({ model, port: 0, ...(cachePrompt === undefined ? {} : { cachePrompt }) });
  servers.push(server);
  return { chat: client(server.url, REQUEST), messages: anthropicClient(server.url, REQUEST), url: server.url };
}
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const m of models) m.dispose();
});

/** `toolmask serve --model <test model> --port 0 --parallel 1 --threads 1 <flag>` in process, listening. */
async function serveCli(flag: string) {
  const stop = new AbortController();
  const lines: string[] = [];
  const code = serveCommand(["--model", testModelPath(), "--port", "0", "--parallel", "1", "--threads", "1", flag], {
    out: { write: (s: string) => lines.push(s) },
    err: { write: () => {} },
    signal: stop.signal,
  });
  let url = "";
  for (let i = 0; i < 600 && !url; i++) {
    url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(lines.join(""))?.[1] ?? "";
    if (!url) await new Promise((res) => setTimeout(res, 50));
  }
  return { stop, code, url, out: lines.join("") };
}

let on: Awaited<ReturnType<typeof serve>>;
let off: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  on = await serve();
  off = await serve(false);
});

/** A system prompt of ~150 tokens: a repeat's cache covers all but the last 64. */
const SYSTEM = `You answer briefly. ${"Keep to the point. ".repeat(30)}`;
const chatParams = (text: string): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming => ({
  model: "m",
  max_tokens: 8,
  temperature: 0,
  messages: [
    { role: "system", content: SYSTEM },
    { role: "user", content: text },
  ],
});

async function streamedChatUsage(api: OpenAI, params: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming) {
  const s = api.chat.completions.stream({ ...params, stream: true, stream_options: { include_usage: true } });
  const assembled = await assemble(s);
  expect(assembled.problems).toEqual([]);
  return { chunk: assembled.usage as OpenAI.CompletionUsage, final: (await s.finalChatCompletion()).usage! };
}

const responseParams = (input: string) => ({
  model: "m",
  instructions: SYSTEM,
  input,
  max_output_tokens: 8,
  temperature: 0,
});

async function streamedResponse(api: OpenAI, input: string): Promise<Response> {
  const events: ResponseStreamEvent[] = [];
  for await (const e of api.responses.stream({ ...responseParams(input), stream: true })) events.push(e);
  // The answer runs to max_output_tokens: its usage is in response.incomplete, the last event.
  return (events.at(-1) as { response: Response }).response;
}

describe("usage reports the prompt tokens read from the cache", () => {
  it("chat completions: prompt_tokens_details.cached_tokens, whole and streamed", async () => {
    const params = chatParams("chat: hello there");
    const first = await on.chat.chat.completions.create(params);
    const again = await on.chat.chat.completions.create(params);
    const all = first.usage!.prompt_tokens;
    expect(again.usage).toMatchObject({ prompt_tokens: all, prompt_tokens_details: { cached_tokens: all - 64 } });
    const { chunk, final } = await streamedChatUsage(on.chat, params);
    expect(chunk).toMatchObject({ prompt_tokens: all, prompt_tokens_details: { cached_tokens: all - 64 } });
    expect(final.prompt_tokens_details?.cached_tokens).toBe(all - 64);
    // Turn 2 of the conversation reads turn 1 from the cache, up to where the template rewrites its
    // end (Qwen3's closed thought), or up to 64 tokens from the end.
    const turn2 = await on.chat.chat.completions.create({
      ...params,
      messages: [
        ...params.messages,
        { role: "assistant", content: first.choices[0]!.message.content ?? "" },
        { role: "user", content: "and then?" },
      ],
    });
    const both = turn2.usage!.prompt_tokens;
    expect(turn2.usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThanOrEqual(Math.min(all - 10, both - 64));
    expect(turn2.usage!.prompt_tokens_details!.cached_tokens).toBeLessThanOrEqual(turn2.usage!.prompt_tokens - 64);
  });

  it("Responses: input_tokens_details.cached_tokens, whole and streamed", async () => {
    const input = "responses: hello there";
    const first = await on.chat.responses.create(responseParams(input));
    const all = first.usage!.input_tokens;
    const again = await on.chat.responses.create(responseParams(input));
    expect(again.usage).toMatchObject({ input_tokens: all, input_tokens_details: { cached_tokens: all - 64 } });
    const streamed = await streamedResponse(on.chat, input);
    expect(streamed.usage).toMatchObject({ input_tokens: all, input_tokens_details: { cached_tokens: all - 64 } });
  });

  it("Messages: cache_read_input_tokens and input_tokens the rest, whole and streamed; count_tokens counts them all", async () => {
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: "m",
      max_tokens: 8,
      system: SYSTEM,
      messages: [{ role: "user", content: "messages: hello there" }],
    };
    const { max_tokens: _m, ...countable } = params;
    const { input_tokens: all } = await on.messages.messages.countTokens(countable);
    const first = await on.messages.messages.create(params);
    expect(messagePromptTokens(first.usage)).toBe(all);
    const again = await on.messages.messages.create(params);
    expect(again.usage).toMatchObject({ input_tokens: 64, cache_read_input_tokens: all - 64 });
    const s = on.messages.messages.stream(params);
    const events: Anthropic.RawMessageStreamEvent[] = [];
    for await (const e of s) events.push(structuredClone(e));
    const delta = events.find((e) => e.type === "message_delta")!;
    expect(delta.usage).toMatchObject({ input_tokens: 64, cache_read_input_tokens: all - 64 });
    expect((await s.finalMessage()).usage).toMatchObject({ input_tokens: 64, cache_read_input_tokens: all - 64 });
  });
});

describe("turning the cache off", () => {
  it("startServer({ cachePrompt: false }): a repeat reads nothing from the cache, on every API", async () => {
    const params = chatParams("off: hello there");
    await off.chat.chat.completions.create(params);
    const again = await off.chat.chat.completions.create(params);
    expect(again.usage!.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    expect((await streamedChatUsage(off.chat, params)).chunk.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    const input = "off: responses";
    await off.chat.responses.create(responseParams(input));
    const r = await off.chat.responses.create(responseParams(input));
    expect(r.usage!.input_tokens_details).toEqual({ cached_tokens: 0 });
    const m = {
      model: "m",
      max_tokens: 8,
      system: SYSTEM,
      messages: [{ role: "user" as const, content: "off: messages" }],
    };
    await off.messages.messages.create(m);
    const { usage } = await off.messages.messages.create(m);
    expect(usage.cache_read_input_tokens).toBe(0);
    expect(usage.input_tokens).toBe(
      (await off.messages.messages.countTokens({ model: "m", system: SYSTEM, messages: m.messages })).input_tokens,
    );
  });

  it("chat completions take llama-server's cache_prompt: false for one request; anything but a boolean is a 400", async () => {
    const params = chatParams("per request: hello there");
    await on.chat.chat.completions.create(params);
    const opted = await on.chat.chat.completions.create({ ...params, cache_prompt: false } as never);
    expect((opted as OpenAI.ChatCompletion).usage!.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    // It left nothing: the next request decodes its whole prompt too, and leaves it.
    expect((await on.chat.chat.completions.create(params)).usage!.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    const all = (await on.chat.chat.completions.create(params)).usage!;
    expect(all.prompt_tokens_details).toEqual({ cached_tokens: all.prompt_tokens - 64 });
    const bad = await on.chat.chat.completions
      .create({ ...params, cache_prompt: "no" } as never)
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({
      status: 400,
      param: "cache_prompt",
      message: expect.stringMatching(/cache_prompt must be true or false, got string/),
    });
  });

  it("toolmask serve --no-cache-prompt says so when it starts and reads nothing from the cache", async () => {
    const { stop, code, url, out } = await serveCli("--no-cache-prompt");
    expect(out).toMatch(/1 slots, queue 64, prompt cache off/);
    const api = client(url, REQUEST);
    const params = chatParams("cli: hello there");
    await api.chat.completions.create(params);
    expect((await api.chat.completions.create(params)).usage!.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    stop.abort();
    expect(await code).toBe(0);
  });

  it("serve --no-exact-prompts: the listening line says so, and a repeat reuses all but its last token", async () => {
    const { stop, code, url, out } = await serveCli("--no-exact-prompts");
    expect(out).toMatch(/1 slots, queue 64, exact prompts off/);
    const api = client(url, REQUEST);
    const params = chatParams("cli: hello there, again");
    const first = await api.chat.completions.create(params);
    const again = await api.chat.completions.create(params);
    // The exact engine decodes a repeat's last 64 rows again; this one only the last token.
    expect(again.usage!.prompt_tokens_details).toEqual({ cached_tokens: first.usage!.prompt_tokens - 1 });
    stop.abort();
    expect(await code).toBe(0);
  });

  it("startServer checks cachePrompt like its other options", async () => {
    const model = models[0]!;
    await expect(startServer({ model, port: 0, cachePrompt: "no" as never })).rejects.toThrow(
      new TypeError('cachePrompt must be true or false, got "no"'),
    );
    await expect(
      startServer({ upstreams: { urls: ["http://127.0.0.1:1"], engine: "openai" }, port: 0, cachePrompt: false }),
    ).rejects.toThrow(
      /cachePrompt goes with model or modelPath: a gateway's upstreams cache prompts by their own settings/,
    );
  });
});

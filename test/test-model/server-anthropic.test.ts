// POST /v1/messages, Anthropic's Messages API, through the real @anthropic-ai/sdk client against the
// server on the random-weight test model: answers with tools for each tool_choice, streamed (raw
// event order, and the SDK's stream helper) and not, tool_use inputs valid against input_schema, a
// conversation with tool_use and tool_result rendered as the same prompt the chat-completions route
// renders, a call cut by max_tokens (max_tokens, no tool_use, none ever streamed), stop sequences,
// the x-api-key check, an error after the stream began, and thinking (the template's switch here;
// thinking blocks through a gateway whose scripted upstream reasons, since the Messages API has no
// logit bias to make the random model open a thought).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { generate } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { parseMessagesRequest } from "../../src/server/anthropic/request.js";
import { openThought } from "../../src/server/anthropic/thought-signature.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { messagesBothWays } from "../support/both-ways.js";
import { reasoningGateway, type ReasoningGateway } from "../support/reasoning-upstream.js";
import { messagesProtocolProblems } from "../support/stream-protocol.js";
import { testModelPath } from "../support/test-model.js";
import {
  callProblems,
  client as openaiClient,
  toolSet,
  type CallLike,
  type FunctionTool,
  readUntilStopped,
  anthropicClient,
  messagePromptTokens,
} from "../support/server-fixtures.js";
import { fetchWithin, NO_TOKENS, TEST_MODEL_CONTEXT, timeoutFor, type Work } from "../support/timeouts.js";

type Message = Anthropic.Message;
/** The SDK's params plus the sampling fields its types no longer list (the API still reads them; so does this server). */
type Params = MessageCreateParamsNonStreaming & { temperature?: number; top_p?: number; top_k?: number };

let model: LlamaModel;
let server: ToolmaskServer;
let api: Anthropic;
/** Requests here decode at most 64 tokens, but for the one that runs until the server closes. */
const REQUEST: Work = { decode: 64 };
const sdk = (url: string, apiKey = "unused", work: Work = REQUEST) => anthropicClient(url, work, apiKey);
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder" });
  api = sdk(server.url);
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const openaiTools = toolSet(3);
/** The same tools as Anthropic declares them. */
const anthropicTools = (set: FunctionTool[]) =>
  set.map((t) => ({ name: t.function.name, input_schema: t.function.parameters as Anthropic.Tool.InputSchema }));
const tools = anthropicTools(openaiTools);

/** The random model writes `>::` after a call until max_tokens; a stop sequence ends it there. */
const ask = (extra: Partial<Params> = {}): Params => ({
  model: "anything",
  max_tokens: 64,
  messages: [{ role: "user", content: "call a tool" }],
  tools,
  tool_choice: { type: "any" },
  stop_sequences: [">::"],
  ...extra,
});

const toolUses = (m: Message) => m.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
const textOf = (m: Message) =>
  m.content
    .filter((b): b is Anthropic.TextBlock => b.type === "text")
    .map((b) => b.text)
    .join("");
/** tool_use blocks as OpenAI calls, for the fixtures' ajv check against the tools' schemas. */
const asCalls = (m: Message): CallLike[] =>
  toolUses(m).map((b) => ({
    id: b.id,
    type: "function",
    function: { name: b.name, arguments: JSON.stringify(b.input) },
  }));

async function rawEvents(params: MessageCreateParamsNonStreaming, c = api): Promise<RawMessageStreamEvent[]> {
  const events: RawMessageStreamEvent[] = [];
  for await (const e of await c.messages.create({ ...params, stream: true })) events.push(e);
  return events;
}

describe("messages through the @anthropic-ai/sdk client", () => {
  const choices: Array<[string, Partial<Params>]> = [
    ["any", {}],
    ["any, one call", { tool_choice: { type: "any", disable_parallel_tool_use: true } }],
    ["any, run to max_tokens", { stop_sequences: [] }],
    ["tool", { tool_choice: { type: "tool", name: "pick_3" }, temperature: 1, top_k: 5 }],
    ["none", { tool_choice: { type: "none" }, max_tokens: 24 }],
    ["auto", { tool_choice: { type: "auto" }, max_tokens: 24 }],
  ];
  it.each(choices)(
    "tool_choice %s: whole, streamed and the stream helper agree; inputs fit input_schema",
    async (label, extra) => {
      const params = ask(extra);
      const whole = await messagesBothWays(api, params);
      expect(whole).toMatchObject({ type: "message", role: "assistant", model: "qwen3-tiny-seed1" });
      expect(whole.id).toMatch(/^msg_[0-9a-f]{32}$/);
      const named = label === "tool" ? "pick_3" : undefined;
      expect(callProblems(asCalls(whole), openaiTools, named)).toBe("");
      const uses = toolUses(whole);
      if (label.startsWith("any") || label === "tool") expect(uses.length).toBeGreaterThan(0);
      if (label === "any, one call" || label === "tool") expect(uses.length).toBe(1);
      if (label === "none") expect(uses).toEqual([]);
      if (label === "any" || label === "tool") {
        expect(whole.stop_reason).toBe("tool_use");
        expect(whole.stop_sequence).toBe(">::");
      }
      if (label === "any, run to max_tokens") {
        // A complete call, then text to the limit: the call stays, the reason is the limit.
        expect(whole.stop_reason).toBe("max_tokens");
        expect(whole.usage.output_tokens).toBe(64);
      }
      if (label === "tool") expect(uses[0]!.input).toEqual({ n: expect.any(Number) });
      expect(messagePromptTokens(whole.usage)).toBeGreaterThan(100);

      const events = await rawEvents(params);
      expect(messagesProtocolProblems(events)).toEqual([]);
      // The message_delta settles what message_start could not know yet (this third run of the
      // request finds its prompt in the cache: the prompt's tokens in all are compared).
      const delta = events.at(-2) as Anthropic.RawMessageDeltaEvent;
      const { usage } = whole;
      expect(messagePromptTokens(delta.usage)).toBe(messagePromptTokens(usage));
      if (whole.stop_sequence === null) expect(delta.usage.output_tokens).toBe(usage.output_tokens);
      expect(delta.delta.stop_reason).toBe(whole.stop_reason);
    },
  );

  it("tool_use ids and inputs go back as an agent sends them: the same prompt as chat completions renders", async () => {
    const first = await messagesBothWays(
      api,
      ask({ tool_choice: { type: "tool", name: "pick_3" }, temperature: 1, top_k: 5 }),
    );
    const use = toolUses(first)[0]!;
    const system = "You pick numbers.";
    const turn: MessageCreateParamsNonStreaming = {
      ...ask({ tool_choice: { type: "auto" }, max_tokens: 2 }),
      system: [{ type: "text", text: system }],
      messages: [
        { role: "user", content: "call a tool" },
        { role: "assistant", content: [{ type: "thinking", thinking: "pick one", signature: "" }, ...first.content] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: use.id, content: [{ type: "text", text: "picked" }], is_error: true },
            { type: "text", text: "thanks" },
          ],
        },
      ],
    };
    const answer = await messagesBothWays(api, turn);
    expect(messagePromptTokens(answer.usage)).toBeGreaterThan(messagePromptTokens(first.usage) + 20);
    const same = await openaiClient(server.url, REQUEST).chat.completions.create({
      model: "m",
      max_tokens: 2,
      tools: openaiTools,
      tool_choice: "auto",
      stop: [">::"],
      messages: [
        { role: "system", content: system },
        { role: "user", content: "call a tool" },
        {
          role: "assistant",
          content: textOf(first) || null,
          reasoning_content: "pick one",
          tool_calls: [
            { id: use.id, type: "function", function: { name: use.name, arguments: JSON.stringify(use.input) } },
          ],
        } as never,
        { role: "tool", tool_call_id: use.id, content: "Error: picked" },
        { role: "user", content: "thanks" },
      ],
    });
    expect(messagePromptTokens(answer.usage)).toBe(same.usage!.prompt_tokens);
  });

  it("a call cut by max_tokens: stop_reason max_tokens, no tool_use block, none ever streamed", async () => {
    // Where the cut falls: the request as the route parses it, run on generate() itself.
    const bounds = { vocabSize: model.vocabulary.size, contextSize: model.contextSize };
    let cut: number | undefined;
    for (let max = 33; max <= 40 && cut === undefined; max++) {
      const { options } = parseMessagesRequest(ask({ max_tokens: max }), bounds);
      const r = await generate(model, { ...options, dialect: "qwen3-coder" });
      if (r.incomplete.some((c) => c.kind === "cut") && r.finishReason === "length") cut = max;
    }
    expect(cut, "no max_tokens in 33..40 cuts the call").toBeDefined();
    const params = ask({ max_tokens: cut! });
    const whole = await messagesBothWays(api, params);
    expect(whole.stop_reason).toBe("max_tokens");
    expect(toolUses(whole)).toEqual([]);
    expect(whole.usage.output_tokens).toBe(cut);
    const events = await rawEvents(params);
    expect(messagesProtocolProblems(events)).toEqual([]);
    expect(events.some((e) => e.type === "content_block_start" && e.content_block.type === "tool_use")).toBe(false);
  });

  it("a stop sequence without calls: stop_reason stop_sequence and the sequence named, streamed or not", async () => {
    // Without a call the random model writes only "\n\n" tokens (whitespace, no text block).
    const params = { model: "m", max_tokens: 16, messages: [{ role: "user" as const, content: "hello" }] };
    const free = await messagesBothWays(api, params);
    expect(free.stop_reason).toBe("max_tokens");
    expect(free.stop_sequence).toBeNull();
    const stopped = { ...params, stop_sequences: ["\u0000never", "\n\n\n"] };
    const cut = await messagesBothWays(api, stopped);
    expect(cut.stop_reason).toBe("stop_sequence");
    expect(cut.stop_sequence).toBe("\n\n\n");
    expect(cut.usage.output_tokens).toBeLessThan(6);
  });

  it("thinking switches the template's thought on, as chat_template_kwargs.enable_thinking does", async () => {
    const params = ask({ tool_choice: { type: "auto" }, max_tokens: 2 });
    const on = await messagesBothWays(api, { ...params, thinking: { type: "enabled", budget_tokens: 1024 } });
    const off = await messagesBothWays(api, { ...params, thinking: { type: "disabled" } });
    const unset = await messagesBothWays(api, params);
    // Qwen3's template closes an empty thought in the prompt when thinking is off.
    expect(messagePromptTokens(off.usage)).toBeGreaterThan(messagePromptTokens(on.usage));
    expect(messagePromptTokens(unset.usage)).toBe(messagePromptTokens(off.usage));
    const openai = await openaiClient(server.url, REQUEST).chat.completions.create({
      model: "m",
      max_tokens: 2,
      messages: [{ role: "user", content: "call a tool" }],
      tools: openaiTools,
      chat_template_kwargs: { enable_thinking: true },
    } as never);
    expect(messagePromptTokens(on.usage)).toBe((openai as { usage: { prompt_tokens: number } }).usage.prompt_tokens);
    // Adaptive thinking (what current clients send) is thinking on.
    const adaptive = await messagesBothWays(api, { ...params, thinking: { type: "adaptive" } });
    expect(messagePromptTokens(adaptive.usage)).toBe(messagePromptTokens(on.usage));
  });

  it("count_tokens: the input_tokens the same request is answered with; refusals as for messages", async () => {
    const params = ask({ tool_choice: { type: "auto" }, max_tokens: 2, system: "You pick numbers." });
    for (const thinking of [undefined, { type: "enabled" as const, budget_tokens: 1024 }]) {
      const p = { ...params, ...(thinking ? { thinking } : {}) };
      const answered = await messagesBothWays(api, p);
      const { max_tokens: _m, stop_sequences: _s, temperature: _t, ...countable } = p;
      expect(await api.messages.countTokens(countable)).toEqual({ input_tokens: messagePromptTokens(answered.usage) });
    }
    const err = await api.messages.countTokens({ model: "m", messages: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringMatching(/^messages must be a non-empty array/) },
    });
  });

  it("the hints Claude Code sends (cache_control, metadata, service_tier, output_config.effort) are read and ignored", async () => {
    const params = ask({ tool_choice: { type: "auto" }, max_tokens: 2 });
    const plain = await messagesBothWays(api, params);
    const hinted = await messagesBothWays(api, {
      ...params,
      system: [{ type: "text", text: "", cache_control: { type: "ephemeral" } }],
      tools: tools.map((t) => ({ ...t, cache_control: { type: "ephemeral" as const } })),
      messages: [
        { role: "user", content: [{ type: "text", text: "call a tool", cache_control: { type: "ephemeral" } }] },
      ],
      metadata: { user_id: "u1" },
      service_tier: "auto",
      output_config: { effort: "low" },
      cache_control: { type: "ephemeral" },
    } as Params);
    expect(messagePromptTokens(hinted.usage)).toBe(messagePromptTokens(plain.usage));
    expect(hinted.usage.output_tokens).toBe(plain.usage.output_tokens);
    expect(hinted.stop_reason).toBe(plain.stop_reason);
  });
});

describe("what Claude Code 2.1.328 sends on its first request", () => {
  const first = (extra: Partial<Params> = {}) =>
    ({
      ...ask({ tool_choice: { type: "auto" }, max_tokens: 2 }),
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "system", content: [{ type: "text", text: "# Environment\nPrimary working directory: /tmp/w7" }] },
      ],
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      thinking: { type: "adaptive", display: "omitted" },
      output_config: { effort: "medium" },
      ...extra,
    }) as unknown as Params;
  const beta = {
    query: { beta: "true" },
    headers: { "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27" },
  };

  it("is answered, whole and streamed, with the system message after the user's in the prompt", async () => {
    const whole = await api.messages.create(first(), beta);
    expect(whole.type).toBe("message");
    const events: RawMessageStreamEvent[] = [];
    for await (const e of await api.messages.create({ ...first(), stream: true }, beta)) events.push(e);
    expect(messagesProtocolProblems(events)).toEqual([]);
    const { max_tokens: _m, ...countable } = first() as Params & { max_tokens: number };
    const withSystem = await api.messages.countTokens(countable as never, beta);
    const without = await api.messages.countTokens(
      { ...countable, messages: countable.messages.slice(0, 1) } as never,
      beta,
    );
    expect(withSystem.input_tokens).toBeGreaterThan(without.input_tokens + 5);
    // input_tokens are the prompt tokens decoded; an earlier request may have left part of the
    // prompt in the cache (cache_read_input_tokens): together they are the prompt count_tokens counts.
    expect(whole.usage.input_tokens + (whole.usage.cache_read_input_tokens ?? 0)).toBe(withSystem.input_tokens);
  });

  it("HEAD / (its connectivity check) is answered 200, with or without an API key", async () => {
    const keyed = await startServer({ model, port: 0, apiKey: "s3cret" });
    try {
      for (const url of [server.url, keyed.url]) {
        const head = await fetchWithin(NO_TOKENS, `${url}/`, { method: "HEAD" });
        expect(head.status).toBe(200);
        const get = await fetchWithin(NO_TOKENS, `${url}/`);
        expect(await get.json()).toMatchObject({ object: "toolmask.server", status: "ok" });
      }
    } finally {
      await keyed.close();
    }
  });

  it("context_management's clear_thinking leaves out the thought of all but the last kept turns", () => {
    const turn = (thought: string) => [
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: thought, signature: "" },
          { type: "text", text: "ok" },
        ],
      },
      { role: "user", content: "go on" },
    ];
    const body = (keep: unknown) => ({
      model: "m",
      max_tokens: 2,
      messages: [{ role: "user", content: "hi" }, ...turn("t1"), ...turn("t2"), ...turn("t3")],
      context_management: { edits: [{ type: "clear_thinking_20251015", ...(keep === undefined ? {} : { keep }) }] },
    });
    const thoughts = (keep: unknown) =>
      parseMessagesRequest(body(keep), { contextSize: 4096, vocabSize: 151936 })
        .options.messages.filter((m) => m.role === "assistant")
        .map((m) => m.reasoning_content ?? null);
    expect(thoughts("all")).toEqual(["t1", "t2", "t3"]);
    expect(thoughts(undefined)).toEqual([null, null, "t3"]); // Anthropic's default keeps one turn
    expect(thoughts({ type: "thinking_turns", value: 2 })).toEqual([null, "t2", "t3"]);
    expect(thoughts({ type: "thinking_turns", value: 0 })).toEqual([null, null, null]);
  });
});

describe("keys and errors", () => {
  it("with an API key: x-api-key is checked, 401 in Anthropic's shape (AuthenticationError), the right key served", async () => {
    const s = await startServer({ model, port: 0, apiKey: "s3cret", dialect: "qwen3-coder" });
    try {
      const wrong = await sdk(s.url, "nope")
        .messages.create(ask({ max_tokens: 2, tool_choice: { type: "auto" } }))
        .catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((wrong as InstanceType<typeof Anthropic.AuthenticationError>).error).toEqual({
        type: "error",
        error: { type: "authentication_error", message: "Incorrect API key provided." },
      });
      const bare = await fetchWithin(NO_TOKENS, `${s.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify(ask()),
      });
      expect(bare.status).toBe(401);
      expect(await bare.json()).toEqual({
        type: "error",
        error: { type: "authentication_error", message: expect.stringMatching(/x-api-key/) },
      });
      const ok = await sdk(s.url, "s3cret").messages.create(ask({ max_tokens: 2, tool_choice: { type: "auto" } }));
      expect(ok.stop_reason).toBe("max_tokens");
      // Authorization: Bearer is accepted too (the SDK's authToken).
      const bearer = new Anthropic({
        baseURL: s.url,
        apiKey: null,
        authToken: "s3cret",
        maxRetries: 0,
        timeout: timeoutFor(REQUEST),
      });
      expect((await bearer.messages.create(ask({ max_tokens: 2, tool_choice: { type: "auto" } }))).type).toBe(
        "message",
      );
    } finally {
      await s.close();
    }
  });

  it("an error after the stream began is an error event, which the SDK raises with Anthropic's body", async () => {
    const s = await startServer({ model, port: 0, parallel: 1, dialect: "qwen3-coder" });
    try {
      // A call, then text without end (the random model's ">::" after a call).
      const st = await sdk(s.url, "unused", { decode: TEST_MODEL_CONTEXT }).messages.create({
        ...ask({ max_tokens: 100_000, stop_sequences: [] }),
        stream: true,
      });
      const { n, err } = await readUntilStopped(
        st,
        (e) => e.type === "content_block_delta",
        () => s.close(),
      );
      expect(n).toBeGreaterThan(2);
      expect(err).toBeInstanceOf(Anthropic.APIError);
      expect((err as InstanceType<typeof Anthropic.APIError>).error).toEqual({
        type: "error",
        error: { type: "overloaded_error", message: "the server is shutting down" },
      });
    } finally {
      await s.close();
    }
  });
});

describe("thinking blocks, through a gateway whose upstream reasons", () => {
  let gateway: ReasoningGateway;
  beforeAll(async () => {
    gateway = await reasoningGateway();
  });
  afterAll(() => gateway?.close());

  it("thinking first, then text, then only the call that fits its tool; streamed the same", async () => {
    const params = ask({ thinking: { type: "enabled", budget_tokens: 1024 }, stop_sequences: [] });
    const whole = await messagesBothWays(sdk(gateway.url), params);
    expect(whole.content).toEqual([
      { type: "thinking", thinking: "I should pick.", signature: "" },
      { type: "text", text: "Picking." },
      { type: "tool_use", id: expect.stringMatching(/^toolu_[0-9a-f]{24}$/), name: "pick_3", input: { n: 2003 } },
    ]);
    expect(whole.stop_reason).toBe("tool_use");
    expect(whole.usage).toEqual({ input_tokens: 11, output_tokens: 22 });
    const events = await rawEvents(params, sdk(gateway.url));
    expect(messagesProtocolProblems(events)).toEqual([]);
    const deltas = events.flatMap((e) => (e.type === "content_block_delta" ? [e.delta.type] : []));
    expect(deltas).toEqual(["thinking_delta", "thinking_delta", "text_delta", "input_json_delta"]);
    // A gateway does not tokenize: count_tokens is a 404 that says where it is served.
    const count = await sdk(gateway.url)
      .messages.countTokens({ model: "m", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(count).toBeInstanceOf(Anthropic.NotFoundError);
    const final = await sdk(gateway.url).messages.stream(params).finalMessage();
    expect(final.content).toEqual(
      whole.content.map((b) => (b.type === "tool_use" ? { ...b, id: expect.any(String) } : b)),
    );
  });

  // "updates" is what Claude Code 2.1.328 sends with its default model (thinking-display-updates
  // beta): the reasoning hidden, the text between calls returned, as "omitted" does here.
  it.each(["omitted", "updates"])(
    'display "%s": the thought is in the signature, streamed as one signature_delta, and read back on the next turn',
    async (display) => {
      const params = ask({ thinking: { type: "adaptive", display } as never, stop_sequences: [] });
      const whole = await messagesBothWays(sdk(gateway.url), params);
      const block = whole.content[0] as { type: string; thinking: string; signature: string };
      expect(block).toEqual({
        type: "thinking",
        thinking: "",
        signature: expect.stringMatching(/^toolmask\.thought\.v1\./),
      });
      expect(openThought(block.signature)).toBe("I should pick.");
      const events = await rawEvents(params, sdk(gateway.url));
      expect(messagesProtocolProblems(events)).toEqual([]);
      const deltas = events.flatMap((e) => (e.type === "content_block_delta" ? [e.delta.type] : []));
      expect(deltas).toEqual(["signature_delta", "text_delta", "input_json_delta"]);
      const final = await sdk(gateway.url).messages.stream(params).finalMessage();
      expect(final.content[0]).toEqual(block);
      // The block as the client sends it back holds the thought for the template.
      const next = parseMessagesRequest(
        {
          ...params,
          messages: [
            ...params.messages,
            { role: "assistant", content: whole.content },
            { role: "user", content: "go on" },
          ],
        },
        { contextSize: 4096, vocabSize: 151936 },
      );
      expect(next.options.messages[1]).toMatchObject({ role: "assistant", reasoning_content: "I should pick." });
    },
  );
});

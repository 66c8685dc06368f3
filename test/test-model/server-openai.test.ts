// The real server on a loopback port with the random-weight test model, talked to through the real
// `openai` npm client: answers with tools, each request both ways (create() and the client's
// stream(): the same answer, a call cut by a stop string or max_tokens in neither), the streaming
// protocol, models and health, the API key, the bounded queue, and disconnecting clients.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { shortestCallTokens } from "../support/generation-checks.js";
import { chatBothWays } from "../support/both-ways.js";
import { WANTS_TO_CALL, callProblems, client, toolSet } from "../support/server-fixtures.js";
import { fetchWithin, NO_TOKENS, TEST_MODEL_CONTEXT } from "../support/timeouts.js";
import { notStoppedOnAbort, watchEngineGenerations } from "../support/engine-generations.js";
import { until } from "../support/until.js";

let model: LlamaModel;
let server: ToolmaskServer;
let api: OpenAI;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder" });
  // Shared by every test here; its longest request may run to the end of the context.
  api = client(server.url, { decode: TEST_MODEL_CONTEXT });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const health = async (s: ToolmaskServer = server) =>
  (await (await fetchWithin(NO_TOKENS, `${s.url}/health`)).json()) as {
    status: string;
    slots: { busy: number; queued: number; total: number };
  };

const tools = toolSet(3);
const ask = (seed: number, extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> = {}) => ({
  model: "anything",
  messages: [{ role: "user" as const, content: `call a tool (${seed})` }],
  tools,
  tool_choice: "required" as const,
  max_tokens: 64,
  seed,
  temperature: 0.8,
  logit_bias: WANTS_TO_CALL,
  ...extra,
});

let calling: number | undefined;
/** A seed whose answer ends in complete calls (most do; the tests below need one that does). */
async function seedThatCalls(): Promise<number> {
  for (let seed = 5; calling === undefined && seed < 25; seed++)
    if ((await api.chat.completions.create(ask(seed))).choices[0]!.finish_reason === "tool_calls") calling = seed;
  if (calling === undefined) throw new Error("no seed in 5..24 ended in complete calls");
  return calling;
}

describe("chat completions through the openai client", () => {
  it("streamed answers are the non-streamed ones for the same seed, call for call", async () => {
    let withCalls = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const named = seed % 2 === 0 ? { tool_choice: { type: "function" as const, function: { name: "ping_3" } } } : {};
      const whole = await chatBothWays(api, ask(seed, named));
      expect(whole).toMatchObject({ object: "chat.completion", model: "qwen3-tiny-seed1" });
      expect(whole.usage!.total_tokens).toBe(whole.usage!.prompt_tokens + whole.usage!.completion_tokens);
      const choice = whole.choices[0]!;
      expect(callProblems(choice.message.tool_calls, tools, named.tool_choice ? "ping_3" : undefined)).toBe("");
      if (choice.finish_reason === "tool_calls") {
        withCalls++;
        expect(choice.message.tool_calls?.length).toBeGreaterThan(0);
      } else expect(choice.finish_reason).toBe("length");
    }
    expect(withCalls).toBeGreaterThanOrEqual(4);
  });

  it("a stop string inside the call a named tool_choice requires does not cut it: streamed and whole, the call, finish tool_calls", async () => {
    // The named tool's call writes `<parameter=n>`: a stop string is looked for once the call has ended.
    const named = { tool_choice: { type: "function" as const, function: { name: "pick_3" } }, stop: ["<parameter="] };
    const whole = await chatBothWays(api, ask(3, named));
    expect(whole.choices[0]!.finish_reason).toBe("tool_calls");
    expect(whole.choices[0]!.message.tool_calls?.map((c) => c.type === "function" && c.function.name)).toEqual([
      "pick_3",
    ]);
  });

  it("takes the conversation back as an agent sends it: the assistant's calls (content null), then the tool results", async () => {
    const first = await chatBothWays(api, ask(await seedThatCalls()));
    const said = first.choices[0]!.message;
    const calls = said.tool_calls!.filter((c) => c.type === "function");
    const turn = await chatBothWays(
      api,
      ask(1, {
        messages: [
          { role: "user", content: "call a tool" },
          { role: "assistant", content: null, tool_calls: calls },
          ...calls.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: `result of ${c.function.name}` })),
        ],
        max_tokens: 4,
        tool_choice: "auto",
      }),
    );
    expect(turn.usage!.prompt_tokens).toBeGreaterThan(first.usage!.prompt_tokens);
  });

  it("a max_tokens cut inside a call finishes length, never tool_calls, streamed or not", async () => {
    // Below the shortest call a required call cannot be made: 400 before decoding.
    const shortest = shortestCallTokens(model, "qwen3-coder", tools);
    const refused = await api.chat.completions.create(ask(7, { max_tokens: shortest - 1 })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("max_tokens_too_small");
    for (const max_tokens of [shortest, shortest + 4]) {
      const whole = await chatBothWays(api, ask(7, { max_tokens }));
      expect(whole.choices[0]!.finish_reason).toBe("length");
      expect(whole.choices[0]!.message.tool_calls).toBeUndefined();
      expect(whole.usage!.completion_tokens).toBe(max_tokens);
    }
  });

  it("streams server-sent events: role first, finish_reason, the usage chunk, then data: [DONE]", async () => {
    const res = await fetchWithin({ decode: 64 }, `${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...ask(await seedThatCalls()), stream: true, stream_options: { include_usage: true } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = (await res.text()).split("\n\n").filter(Boolean);
    expect(events.every((e) => e.startsWith("data: "))).toBe(true);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice(6)) as OpenAI.Chat.ChatCompletionChunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    const usage = chunks.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage!.completion_tokens).toBeGreaterThan(0);
    const last = chunks.at(-2)!;
    expect(last.choices[0]!.finish_reason).toBe("tool_calls");
    expect(last.choices[0]!.delta).toEqual({});
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const starts = chunks
      .flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
      .filter((d) => d.function?.name !== undefined);
    // Each call's name once, under consecutive indexes.
    expect(starts.map((d) => d.index)).toEqual(starts.map((_, i) => i));
    expect(starts.length).toBeGreaterThan(0);
    expect(starts.every((d) => ["pick_3", "ping_3"].includes(d.function!.name!) && d.id && d.type === "function")).toBe(
      true,
    );
  });

  it("answers without tools as content, and cuts at a stop string", async () => {
    const base = {
      model: "m",
      messages: [{ role: "user" as const, content: "hello" }],
      seed: 2,
      temperature: 2,
      top_p: 1,
      logit_bias: { 198: -100, 271: -100 },
    };
    const free = await chatBothWays(api, { ...base, max_tokens: 8 });
    const text = free.choices[0]!.message.content!;
    expect(free.choices[0]!.finish_reason).toBe("length");
    expect(text.length).toBeGreaterThan(0);
    const stop = text.slice(-3);
    const cut = await chatBothWays(api, { ...base, max_tokens: 200, stop: [stop] });
    expect(cut.choices[0]!.finish_reason).toBe("stop");
    expect(cut.choices[0]!.message.content).toBe(text.slice(0, text.indexOf(stop)));
  });

  it("without max_tokens the answer may run to the end of the context (not generate()'s 512)", async () => {
    const short = await loadModel({ path: testModelPath(), threads: 1, contextSize: 640 });
    const s = await startServer({ model: short, port: 0 });
    try {
      const r = await client(s.url, { decode: 640 }).chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        logit_bias: { 1688: 100 },
      });
      expect(r.choices[0]!.finish_reason).toBe("length");
      expect(r.usage!.prompt_tokens + r.usage!.completion_tokens).toBeGreaterThanOrEqual(639);
      expect(r.usage!.completion_tokens).toBeGreaterThan(512);
    } finally {
      await s.close();
      short.dispose();
    }
  });

  it("lists the model, says it is healthy, and binds 127.0.0.1 by default", async () => {
    const models = await api.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["qwen3-tiny-seed1"]);
    expect((await api.models.retrieve("qwen3-tiny-seed1")).id).toBe("qwen3-tiny-seed1");
    await expect(api.models.retrieve("gpt-5")).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // One slot per sequence the model decodes together.
    expect(server.parallel).toBe(model.parallel);
    expect(await health()).toMatchObject({ status: "ok", slots: { busy: 0, queued: 0, total: server.parallel } });
  });
});

describe("access, slots and disconnects", () => {
  it("with an API key, a missing or wrong bearer token gets 401 and the right one is served", async () => {
    const s = await startServer({ model, port: 0, apiKey: "s3cret", dialect: "qwen3-coder" });
    try {
      const wrong = await client(s.url, NO_TOKENS, "nope")
        .models.list()
        .catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((wrong as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe("invalid_api_key");
      const bare = await fetchWithin(NO_TOKENS, `${s.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(ask(1)),
      });
      expect(bare.status).toBe(401);
      expect(await bare.json()).toMatchObject({
        error: { type: "invalid_request_error", code: "invalid_api_key", param: null },
      });
      const ok = await client(s.url, { decode: 2 }, "s3cret").chat.completions.create(
        ask(1, { max_tokens: 2, tool_choice: "auto" }),
      );
      expect(["stop", "length"]).toContain(ok.choices[0]!.finish_reason);
      expect((await fetchWithin(NO_TOKENS, `${s.url}/health`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it("N slots and a bounded queue: one request too many gets 429, and the slots serve again after", async () => {
    const s = await startServer({ model, port: 0, parallel: 1, maxQueue: 1 });
    const c = client(s.url, { decode: TEST_MODEL_CONTEXT });
    const long = {
      model: "m",
      messages: [{ role: "user" as const, content: "go on" }],
      max_tokens: 100_000,
      stream: true as const,
    };
    const ctls = [new AbortController(), new AbortController()];
    const engine = watchEngineGenerations();
    try {
      const running = ctls.map((ctl) =>
        c.chat.completions
          .create(long, { signal: ctl.signal })
          .then(async (st) => {
            for await (const _ of st);
          })
          .catch(() => {}),
      );
      await until(async () => {
        const h = await health(s);
        return h.slots.busy === 1 && h.slots.queued === 1;
      });
      const refused = await c.chat.completions
        .create({ ...long, stream: false, max_tokens: 2 })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
      expect((refused as InstanceType<typeof OpenAI.RateLimitError>).code).toBe("rate_limit_exceeded");
      for (const ctl of ctls) ctl.abort();
      await Promise.all(running);
      await until(async () => (await health(s)).slots.busy === 0);
      // The one that ran stopped in the engine when its client left (the queued one never started).
      expect(engine.all.map(notStoppedOnAbort)).toEqual([undefined]);
      const after = await c.chat.completions.create({ ...long, stream: false, max_tokens: 2 });
      expect(after.choices[0]!.finish_reason).toBe("length");
      expect(engine.all[1]!.runningAtStart).toBe(0);
    } finally {
      engine.restore();
      await s.close();
    }
  });

  it("a client that disconnects from a non-streamed request stops its generation", async () => {
    const ctl = new AbortController();
    const engine = watchEngineGenerations();
    try {
      const q = api.chat.completions
        .create(
          { model: "m", messages: [{ role: "user", content: "go on" }], max_tokens: 100_000 },
          { signal: ctl.signal },
        )
        .catch((e: unknown) => e);
      // In the engine, decoding (it would run to the end of the context).
      await until(() => engine.all.length === 1);
      ctl.abort();
      expect(await q).toBeInstanceOf(OpenAI.APIUserAbortError);
      await until(async () => (await health()).slots.busy === 0);
      // The engine stopped it within a token of the abort; it did not run on to the context's end.
      expect(notStoppedOnAbort(engine.all[0]!)).toBeUndefined();
    } finally {
      engine.restore();
    }
  });

  it("close() ends running streams: it returns once their generations have stopped in the engine", async () => {
    const s = await startServer({ model, port: 0, parallel: 1 });
    const engine = watchEngineGenerations();
    try {
      // A visible token wins every step, so text streams at once.
      const st = await client(s.url, { decode: TEST_MODEL_CONTEXT }).chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "go on" }],
        max_tokens: 100_000,
        stream: true,
        logit_bias: { 1688: 100 },
      });
      const reading = (async () => {
        let n = 0;
        try {
          for await (const _ of st) n++;
        } catch (e) {
          return { n, e };
        }
        return { n, e: undefined };
      })();
      await until(async () => (await health(s)).slots.busy === 1);
      await s.close();
      // close() did not wait for the stream to run to the end of the context: the engine stopped it
      // on the abort, and holds no generation once close() returned.
      expect(engine.running()).toBe(0);
      expect(engine.all.map(notStoppedOnAbort)).toEqual([undefined]);
      const { n, e } = await reading;
      expect(n).toBeGreaterThan(0);
      // The stream ends with an error event in OpenAI's shape, which the client raises.
      expect(e).toBeInstanceOf(OpenAI.APIError);
      expect(String((e as Error).message)).toMatch(/shutting down/);
    } finally {
      engine.restore();
    }
  });
});

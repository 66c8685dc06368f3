// POST /v1/responses, OpenAI's Responses API, through the real openai client (responses.create and
// responses.stream) against the server on the random-weight test model: function calls for each
// tool_choice, whole and streamed (the raw event protocol, and the client's stream helper), their
// arguments valid against the tools' parameters; a conversation with reasoning, function_call and
// function_call_output items rendered as the same prompt the chat-completions route renders; a call
// cut by max_output_tokens (status incomplete, no function_call item, none ever streamed); reasoning
// effort as the template's thinking switch; previous_response_id refused; an error after the stream
// began. The random model never ends an answer by itself (and this API has no stop strings or logit
// bias), so a completed Response with reasoning, text and calls comes through a gateway whose
// scripted upstream answers that way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseFunctionToolCall,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { reasoningGateway, type ReasoningGateway } from "../support/reasoning-upstream.js";
import { responsesBothWays } from "../support/both-ways.js";
import { callProblems, client, toolSet, type CallLike, readUntilStopped } from "../support/server-fixtures.js";
import { responsesProtocolProblems } from "../support/stream-protocol.js";
import { testModelPath } from "../support/test-model.js";
import { TEST_MODEL_CONTEXT, type Work } from "../support/timeouts.js";

let model: LlamaModel;
let server: ToolmaskServer;
let api: OpenAI;
/** Requests here decode at most 48 tokens (ask's max_output_tokens), but for the one that runs until the server closes. */
const REQUEST: Work = { decode: 48 };
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder" });
  api = client(server.url, REQUEST);
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const chatTools = toolSet(3);
/** The same tools as the Responses API declares them. */
const tools = chatTools.map((t) => ({
  type: "function" as const,
  name: t.function.name,
  parameters: t.function.parameters,
  strict: true,
}));

const ask = (extra: Partial<ResponseCreateParamsNonStreaming> = {}): ResponseCreateParamsNonStreaming => ({
  model: "anything",
  input: "call a tool",
  tools,
  tool_choice: "required",
  max_output_tokens: 48,
  ...extra,
});

const calls = (r: Response) => r.output.filter((o): o is ResponseFunctionToolCall => o.type === "function_call");
const asCalls = (r: Response): CallLike[] =>
  calls(r).map((c) => ({ id: c.call_id, type: "function", function: { name: c.name, arguments: c.arguments } }));
const textOf = (r: Response) =>
  r.output
    .flatMap((o) => (o.type === "message" ? o.content : []))
    .map((p) => (p.type === "output_text" ? p.text : ""))
    .join("");
async function rawEvents(params: ResponseCreateParamsNonStreaming, c = api): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const e of await c.responses.create({ ...params, stream: true })) events.push(e);
  return events;
}

describe("responses through the openai client", () => {
  const choices: Array<[string, Partial<ResponseCreateParamsNonStreaming>]> = [
    ["required", {}],
    ["required, one call", { parallel_tool_calls: false }],
    ["function", { tool_choice: { type: "function", name: "pick_3" }, temperature: 1, top_p: 0.9 }],
    ["none", { tool_choice: "none", max_output_tokens: 16 }],
    ["auto", { tool_choice: "auto", max_output_tokens: 16 }],
  ];
  it.each(choices)(
    "tool_choice %s: whole, streamed and the stream helper agree; arguments fit the parameters",
    async (label, extra) => {
      const params = ask(extra);
      const whole = await responsesBothWays(api, params);
      expect(whole).toMatchObject({ object: "response", model: "qwen3-tiny-seed1", store: false });
      expect(whole.id).toMatch(/^resp_[0-9a-f]{32}$/);
      expect(whole.tool_choice).toEqual(params.tool_choice);
      const named = label === "function" ? "pick_3" : undefined;
      expect(callProblems(asCalls(whole), chatTools, named)).toBe("");
      if (label.startsWith("required") || label === "function") expect(calls(whole).length).toBeGreaterThan(0);
      if (label === "required, one call" || label === "function") expect(calls(whole).length).toBe(1);
      if (label === "none") expect(calls(whole)).toEqual([]);
      if (label === "function") expect(JSON.parse(calls(whole)[0]!.arguments)).toEqual({ n: expect.any(Number) });
      if (label === "required, one call") {
        // Parallel calls off: the answer ends at its one call, before the limit.
        expect(whole.status).toBe("completed");
        expect(whole.incomplete_details).toBeNull();
        expect(whole.usage?.output_tokens).toBeLessThan(params.max_output_tokens!);
      } else {
        // The random model writes on after its calls until the limit: kept calls, an incomplete answer.
        expect(whole.status).toBe("incomplete");
        expect(whole.incomplete_details).toEqual({ reason: "max_output_tokens" });
        expect(whole.usage?.output_tokens).toBe(params.max_output_tokens);
      }
      expect(whole.usage?.input_tokens).toBeGreaterThan(100);
    },
  );

  it("reasoning, function_call and function_call_output items go back as an agent sends them: the chat route's prompt", async () => {
    const first = await responsesBothWays(api, ask({ tool_choice: { type: "function", name: "pick_3" } }));
    const call = calls(first)[0]!;
    const instructions = "You pick numbers.";
    const turn = await responsesBothWays(api, {
      ...ask({ tool_choice: "auto", max_output_tokens: 2 }),
      instructions,
      input: [
        { role: "user", content: "call a tool" },
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "pick one" }] },
        ...first.output.filter((o) => o.type !== "reasoning"),
        { type: "function_call_output", call_id: call.call_id, output: "picked" },
        { role: "user", content: [{ type: "input_text", text: "thanks" }] },
      ],
    } as ResponseCreateParamsNonStreaming);
    expect(turn.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens + 20);
    const same = await api.chat.completions.create({
      model: "m",
      max_tokens: 2,
      tools: chatTools,
      tool_choice: "auto",
      messages: [
        { role: "system", content: instructions },
        { role: "user", content: "call a tool" },
        {
          role: "assistant",
          content: textOf(first) || null,
          reasoning_content: "pick one",
          tool_calls: [
            { id: call.call_id, type: "function", function: { name: call.name, arguments: call.arguments } },
          ],
        } as never,
        { role: "tool", tool_call_id: call.call_id, content: "picked" },
        { role: "user", content: "thanks" },
      ],
    });
    expect(turn.usage!.input_tokens).toBe(same.usage!.prompt_tokens);
  });

  it("a call cut by max_output_tokens: incomplete, no function_call item, none ever streamed", async () => {
    // Below the shortest call tool_choice "required" allows is a 400 (max_tokens_too_small); from
    // there up, the first limit that leaves no call cuts one.
    let cut: number | undefined;
    for (let max = 4; max <= 40 && cut === undefined; max++) {
      const r = await api.responses.create(ask({ max_output_tokens: max })).catch((e: unknown) => e);
      if (r instanceof OpenAI.BadRequestError) {
        expect(r.error).toMatchObject({ param: "max_output_tokens", code: "max_tokens_too_small" });
        continue;
      }
      if (calls(r as Response).length === 0) cut = max;
    }
    expect(cut, "no max_output_tokens from 4 to 40 cuts the first call").toBeDefined();
    const params = ask({ max_output_tokens: cut! });
    const whole = await responsesBothWays(api, params);
    expect(whole.status).toBe("incomplete");
    expect(whole.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(calls(whole)).toEqual([]);
    const events = await rawEvents(params);
    expect(responsesProtocolProblems(events)).toEqual([]);
    expect(events.some((e) => e.type === "response.output_item.added" && e.item.type === "function_call")).toBe(false);
    expect(events.at(-1)?.type).toBe("response.incomplete");
  });

  it("reasoning.effort switches the template's thought on, as chat_template_kwargs.enable_thinking does", async () => {
    const params = ask({ tool_choice: "auto", max_output_tokens: 2 });
    const on = await responsesBothWays(api, { ...params, reasoning: { effort: "low" } });
    const off = await responsesBothWays(api, { ...params, reasoning: { effort: "none" } });
    const unset = await responsesBothWays(api, params);
    expect(off.usage!.input_tokens).toBeGreaterThan(on.usage!.input_tokens);
    expect(unset.usage!.input_tokens).toBe(off.usage!.input_tokens);
    expect(on.reasoning).toEqual({ effort: "low", summary: null });
  });

  it("previous_response_id is refused with what to send instead", async () => {
    const err = await responsesBothWays(api, ask({ previous_response_id: "resp_1" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      param: "previous_response_id",
      code: "unsupported_parameter",
      message: expect.stringMatching(/keeps no responses: send the whole conversation in input/),
    });
  });

  it("an error after the stream began is an error event, which the client raises as an APIError", async () => {
    const s = await startServer({ model, port: 0, parallel: 1, dialect: "qwen3-coder" });
    try {
      const st = await client(s.url, { decode: TEST_MODEL_CONTEXT }).responses.create({
        ...ask({ max_output_tokens: 100_000 }),
        stream: true,
      });
      const { n, err } = await readUntilStopped(
        st,
        (e) => e.type === "response.output_text.delta",
        () => s.close(),
      );
      expect(n).toBeGreaterThan(2);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).message).toMatch(/the server is shutting down/);
    } finally {
      await s.close();
    }
    // The same, read raw: every event numbered from 0 without a gap, the error last.
    const raw = await startServer({ model, port: 0, parallel: 1, dialect: "qwen3-coder" });
    try {
      const res = await fetch(`${raw.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...ask({ max_output_tokens: 100_000 }), stream: true }),
      });
      let text = "";
      let closing: Promise<void> | undefined;
      for await (const piece of res.body!.pipeThrough(new TextDecoderStream())) {
        text += piece;
        if (!closing && text.includes("response.output_text.delta")) closing = raw.close();
      }
      await closing;
      const events = text
        .split("\n\n")
        .filter(Boolean)
        .map((e) => JSON.parse(e.slice(e.indexOf("data: ") + 6)) as { type: string; sequence_number: number });
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      expect(events.at(-1)).toMatchObject({ type: "error", message: "the server is shutting down" });
    } finally {
      await raw.close();
    }
  });

  it("a streamed request refused before its first event gets the whole answer's HTTP error, not an event", async () => {
    // 5,000 levels of metadata: past the body's nesting limit (the Response that echoes metadata could
    // not be serialized either). "stream" comes last, so both bodies place the metadata alike.
    const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const send = (stream: boolean) =>
      fetch(`${server.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"model": "m", "input": "hi", "max_output_tokens": 4, "metadata": {"k": ${deep}}, "stream": ${stream}}`,
      });
    const whole = await send(false);
    const streamed = await send(true);
    expect(whole.status).toBeGreaterThanOrEqual(400);
    expect(whole.status).toBeLessThan(500);
    expect(streamed.status).toBe(whole.status);
    expect(streamed.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await streamed.json()).toEqual(await whole.json());
  });
});

describe("a completed response with reasoning, text and a call, through a gateway", () => {
  let gateway: ReasoningGateway;
  beforeAll(async () => {
    gateway = await reasoningGateway();
  });
  afterAll(() => gateway?.close());

  it("reasoning item, message item, then only the call that fits its tool; streamed the same", async () => {
    const params = ask({ reasoning: { effort: "medium" } });
    const c = client(gateway.url, REQUEST);
    const whole = await responsesBothWays(c, params);
    expect(whole.status).toBe("completed");
    expect(whole.incomplete_details).toBeNull();
    expect(whole.output.map((o) => o.type)).toEqual(["reasoning", "message", "function_call"]);
    expect(whole.output[0]).toMatchObject({ content: [{ type: "reasoning_text", text: "I should pick." }] });
    expect(whole.output_text).toBe("Picking.");
    expect(calls(whole)).toEqual([
      expect.objectContaining({
        call_id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        name: "pick_3",
        arguments: '{"n": 2003}',
        status: "completed",
      }),
    ]);
    expect(whole.usage).toMatchObject({ input_tokens: 11, output_tokens: 22, total_tokens: 33 });
    const events = await rawEvents(params, c);
    expect(responsesProtocolProblems(events)).toEqual([]);
    const deltas = events.flatMap((e) => (e.type.endsWith(".delta") ? [e.type] : []));
    expect(deltas).toEqual([
      "response.reasoning_text.delta",
      "response.reasoning_text.delta",
      "response.output_text.delta",
      "response.function_call_arguments.delta",
    ]);
    expect(events.at(-1)?.type).toBe("response.completed");
  });
});

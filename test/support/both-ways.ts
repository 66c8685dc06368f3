// One request run both ways, whole and streamed, through the real client packages, and the two
// answers compared: what the client holds at the end of the stream (its stream helper's final
// message, and the raw events, their protocol checked) must be the whole answer — the same text,
// thought, calls (without ids: they are minted per answer, server-call-ids.test.ts), finish and
// usage (the prompt's tokens in all: the second run finds the first's prompt in the prompt cache,
// so how many were cached differs). A request the whole answer refuses must be refused the same way streamed: the same HTTP
// status and error body. Each helper returns the whole answer, or throws its error.
import { expect } from "vitest";
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type OpenAI from "openai";
import type { ResponseCreateParamsNonStreaming, ResponseStreamEvent } from "openai/resources/responses/responses";
import type { generateText, streamText } from "ai";
import { assemble, messagePromptTokens, withoutIds } from "./server-fixtures.js";
import { messagesProtocolProblems, responsesProtocolProblems } from "./stream-protocol.js";

type Settled<T> = { ok: T; err?: undefined } | { ok?: undefined; err: unknown };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (ok) => ({ ok }),
    (err: unknown) => ({ err }),
  );

/** An error the server answered with (the SDK's error with an HTTP status), not one of the client's (a timeout). */
const answered = (e: unknown): e is { status: number; error?: unknown } =>
  !!e && typeof e === "object" && typeof (e as { status?: unknown }).status === "number";
/** An SDK error as both ways must share it: its HTTP status and the body the server sent. */
const errorOf = (e: unknown) => (answered(e) ? { status: e.status, error: e.error } : e);

/** The whole answer, after the streamed one was found equal (or the same error, thrown). */
function agreed<T, S>(whole: Settled<T>, streamed: Settled<S>, what: string): [T, S] {
  // The client's own failures (a timeout, a refused connection) are raised as they are.
  for (const e of [whole.err, streamed.err]) if (e !== undefined && !answered(e)) throw e;
  if (whole.err !== undefined || streamed.err !== undefined) {
    expect(errorOf(streamed.err), `${what}: streamed and whole answers end alike`).toEqual(errorOf(whole.err));
    throw whole.err;
  }
  return [whole.ok as T, streamed.ok as S];
}

type ChatParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
type Chat = OpenAI.Chat.ChatCompletion;

/** What a chat completion and its stream share; completion tokens only without stop strings (decoding may run a step past one). */
function chatEssence(
  m: { content?: string | null; reasoning_content?: string | null; tool_calls?: unknown[] | null },
  finish: string | null,
  usage: { prompt_tokens: number; completion_tokens: number } | null | undefined,
  params: ChatParams,
) {
  const stops = params.stop === undefined || params.stop === null ? [] : [params.stop].flat();
  return {
    content: m.content || "",
    reasoning: m.reasoning_content || "",
    calls: withoutIds((m.tool_calls ?? []) as never),
    finish,
    usage: stops.length > 0 ? { prompt_tokens: usage?.prompt_tokens } : usage && withoutCached(usage),
  };
}

/** A chat usage without prompt_tokens_details (the cached count differs from one run to the next). */
const withoutCached = <U extends object>(usage: U) => ({ ...usage, prompt_tokens_details: undefined });

/** chat.completions.create() and chat.completions.stream() on the same request: the whole answer. */
export async function chatBothWays(api: OpenAI, params: ChatParams): Promise<Chat> {
  const whole = await settle(api.chat.completions.create(params));
  const streamed = await settle(
    (async () => {
      const s = api.chat.completions.stream({ ...params, stream: true, stream_options: { include_usage: true } });
      const assembled = await assemble(s);
      return { assembled, final: await s.finalChatCompletion() };
    })(),
  );
  const [w, { assembled, final }] = agreed(whole, streamed, "chat completions");
  expect(assembled.problems).toEqual([]);
  const c = w.choices[0]!;
  const want = chatEssence(c.message as never, c.finish_reason, w.usage, params);
  const raw = { content: assembled.content, reasoning_content: assembled.reasoning, tool_calls: assembled.toolCalls };
  expect(chatEssence(raw, assembled.finishReason, assembled.usage as never, params), "the stream's chunks").toEqual(
    want,
  );
  const f = final.choices[0]!;
  expect(chatEssence(f.message as never, f.finish_reason, final.usage, params), "the stream helper's message").toEqual(
    want,
  );
  // A gateway's verdict on what it refused, on the last chunk as on the whole answer.
  const verdict = (w as { toolmask?: { incomplete: unknown } }).toolmask?.incomplete;
  expect(assembled.toolmask?.incomplete).toEqual(verdict);
  return w;
}

type Message = Anthropic.Message;
const blocks = (m: Message, type: "text" | "thinking") =>
  m.content
    .map((b) =>
      b.type === "text" && type === "text" ? b.text : b.type === "thinking" && type === b.type ? b.thinking : "",
    )
    .join("");
/** What a Message and its stream share (the stream keeps the blocks in decoding order, so text is compared whole). */
const messageEssence = (m: Message) => ({
  toolUses: m.content.flatMap((b) => (b.type === "tool_use" ? [{ name: b.name, input: b.input }] : [])),
  text: blocks(m, "text"),
  thinking: blocks(m, "thinking"),
  stop_reason: m.stop_reason,
  stop_sequence: m.stop_sequence,
  // Not output_tokens after a stop sequence: decoding stops a step after it is seen, or two, as the
  // abort lands (35 or 36 tokens for the same request on the test model).
  usage: {
    prompt: messagePromptTokens(m.usage),
    ...(m.stop_sequence === null ? { output_tokens: m.usage.output_tokens } : {}),
  },
});

/** messages.create() and messages.stream() on the same request: the whole answer. */
export async function messagesBothWays(api: Anthropic, params: MessageCreateParamsNonStreaming): Promise<Message> {
  const whole = await settle(api.messages.create(params));
  const streamed = await settle(
    (async () => {
      const s = api.messages.stream(params);
      const events: RawMessageStreamEvent[] = [];
      // Copies: the helper builds its message in the objects of the events it yields.
      for await (const e of s) events.push(structuredClone(e));
      return { events, final: await s.finalMessage() };
    })(),
  );
  const [w, { events, final }] = agreed(whole, streamed, "messages");
  expect(messagesProtocolProblems(events)).toEqual([]);
  expect(messageEssence(final)).toEqual(messageEssence(w));
  return w;
}

type Response = OpenAI.Responses.Response;
const outputTexts = (r: Response, type: "message" | "reasoning") =>
  r.output
    .flatMap((o) => (o.type === type ? ((o.content ?? []) as object[]) : []))
    .map((p) => ("text" in p && typeof p.text === "string" ? p.text : ""))
    .join("");
/** What a Response and its stream share. */
const responseEssence = (r: Response) => ({
  calls: r.output.flatMap(
    (o): Array<Record<string, unknown>> =>
      o.type === "function_call"
        ? [{ name: o.name, namespace: o.namespace, arguments: o.arguments }]
        : o.type === "custom_tool_call"
          ? [{ custom: o.name, namespace: o.namespace, input: o.input }]
          : o.type === "tool_search_call"
            ? [{ tool_search: o.arguments, execution: o.execution }]
            : [],
  ),
  text: outputTexts(r, "message"),
  reasoning: outputTexts(r, "reasoning"),
  status: r.status,
  incomplete_details: r.incomplete_details,
  usage: r.usage && { ...r.usage, input_tokens_details: undefined },
});

/** responses.create() and responses.stream() on the same request: the whole answer. */
export async function responsesBothWays(api: OpenAI, params: ResponseCreateParamsNonStreaming): Promise<Response> {
  const whole = await settle(api.responses.create(params));
  const streamed = await settle(
    (async () => {
      const s = api.responses.stream({ ...params, stream: true });
      const events: ResponseStreamEvent[] = [];
      for await (const e of s) events.push(structuredClone(e));
      return { events, final: await s.finalResponse() };
    })(),
  );
  const [w, { events, final }] = agreed(whole, streamed, "responses");
  expect(responsesProtocolProblems(events)).toEqual([]);
  const last = events.at(-1) as { response?: Response };
  expect(last.response && responseEssence(last.response), "the last event's response").toEqual(responseEssence(w));
  // The helper's own status and usage stay those of response.in_progress when the answer is incomplete.
  const { calls, text, reasoning } = responseEssence(w);
  const f = responseEssence(final);
  expect({ calls: f.calls, text: f.text, reasoning: f.reasoning }, "the stream helper's response").toEqual({
    calls,
    text,
    reasoning,
  });
  return w;
}

type Ran = Array<{ name: string; input: unknown }>;
type Settings = Parameters<typeof generateText>[0] & Parameters<typeof streamText>[0];
interface StepLike {
  text: string;
  finishReason: string;
  toolCalls: Array<{ toolName: string; input: unknown }>;
}
const stepEssence = (steps: StepLike[]) =>
  steps.map((s) => ({
    text: s.text,
    finishReason: s.finishReason,
    calls: s.toolCalls.map((c) => ({ name: c.toolName, input: c.input })),
  }));

/**
 * The Vercel AI SDK's generateText and streamText with the same settings (`settings(ran)`: tools
 * that record their runs in `ran`): the same steps, calls and runs; the generateText result.
 */
export async function aiSdkBothWays(
  gen: typeof generateText,
  stream: typeof streamText,
  settings: (ran: Ran) => Settings,
): Promise<{ result: Awaited<ReturnType<typeof generateText>>; ran: Ran }> {
  const ran: Ran = [];
  const whole = await settle(gen(settings(ran)));
  const streamRan: Ran = [];
  const streamed = await settle(
    (async () => {
      const s = stream({ ...settings(streamRan), onError: () => {} }); // raised below, not logged

      for await (const p of s.fullStream) if (p.type === "error") throw p.error;
      return { steps: (await s.steps) as unknown as StepLike[], text: await s.text };
    })(),
  );
  if (whole.err !== undefined || streamed.err !== undefined) {
    const sdkError = (e: unknown) =>
      e && typeof e === "object" ? { name: (e as Error).name, status: (e as { statusCode?: number }).statusCode } : e;
    expect(sdkError(streamed.err), "generateText and streamText end alike").toEqual(sdkError(whole.err));
    throw whole.err;
  }
  const r = whole.ok!;
  expect(stepEssence(streamed.ok!.steps)).toEqual(stepEssence(r.steps as unknown as StepLike[]));
  expect(streamed.ok!.text).toBe(r.text);
  expect(streamRan).toEqual(ran);
  return { result: r, ran };
}

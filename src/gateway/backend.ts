// The gateway as the chat route's backend: each request is prepared here as for our own engine
// (prompt from the model's chat template, the dialect's grammar), sent to an upstream engine in its
// own grammar field (engines/), and its raw answer read back through the same dialect's parser, so
// the client gets the verdict our engine would give: a cut call is `length`, an invalid one is
// reported in `incomplete`, never passed on as a valid call — streamed or whole: a streamed call's
// delta goes out once its verdict is complete and valid (StreamDeltas), as generateStream's do.
// Under a response format the content is checked against the schema by the parser's own verdict
// (src/parser/structured.ts) before any of it reaches the client: content that does not fit is an
// UpstreamError (502 upstream_error, or the stream's error event), never passed on; a streamed
// answer's content is held until then.
import { requestWith, resolveRequest, type ResolvedRequest } from "../dialects/options.js";
import { toolNotices } from "../dialects/format-notices.js";
import { unmetChoice } from "../dialects/tool-choice.js";
import type { GenerateOptions } from "../engine/generate-options.js";
import type { GenerateResult } from "../engine/generate.js";
import { resolveResponseFormat, type ResolvedResponseFormat } from "../dialects/response-format.js";
import { prepareChatAsync, type ChatModel, type PreparedChat } from "../engine/prepare-chat.js";
import { StreamDeltas, type StreamChunk } from "../engine/stream.js";
import { argumentsOf, verifiedArgumentEvents } from "../parser/argument-event.js";
import { ToolCallStreamParser } from "../parser/stream.js";
import { structuredVerdict } from "../parser/structured.js";
import { checkToolLimits } from "../parser/tool-limits.js";
import type { IncompleteCall, StreamEvent, ToolCall } from "../parser/types.js";
import type { ChatBackend } from "../engine/chat-backend.js";
import { readAnswer } from "./answer.js";
import { upstreamBodyCap } from "./body-cap.js";
import type { CallDelta, EngineAdapter, Enforcement, UpstreamEnd } from "./engines/types.js";
import { UpstreamError, type UpstreamPool } from "./pool.js";
import { verifyCalls } from "./verify-calls.js";

export interface GatewayBackendOptions {
  engine: EngineAdapter;
  pool: UpstreamPool;
  /** The served model's tokenizer and template; optional for the openai engine only. */
  model: ChatModel | undefined;
  /** The model name sent to OpenAI-style upstreams (vLLM, openai). */
  upstreamModel: string | undefined;
  /** Messages beyond this many cannot fit; also the default max_tokens. */
  contextSize: number;
  /** A fixed cap in bytes on each upstream answer, instead of one sized from max_tokens (body-cap.ts). */
  maxBodyBytes?: number | undefined;
}

/** The dialect a verify-only answer is read with when the model's own is unknown (its calls come structured). */
const VERIFY_DIALECT = "hermes";

interface Prepared {
  chat: PreparedChat | undefined;
  /** How the answer is read: the request the parser takes (calls, content), when tools or a dialect apply. */
  parser: ResolvedRequest | undefined;
  /** The request the structured calls of a verify-only answer are checked against. */
  verify: ResolvedRequest | undefined;
  /** Read the content with the parser (false: verify-only without a known dialect: content is content). */
  parseContent: boolean;
  /** The response format the content is held to, if any. */
  format: ResolvedResponseFormat | undefined;
  /** GenerateResult.notices. */
  notices: string[];
}

export class GatewayBackend implements ChatBackend {
  readonly bounds: ChatBackend["bounds"];
  readonly defaultMaxTokens: number;

  constructor(private readonly o: GatewayBackendOptions) {
    if (o.engine.takesGrammar && !o.model)
      throw new TypeError(`the ${o.engine.name} gateway needs the model's tokenizer (a .gguf file or a model folder)`);
    this.bounds = { vocabSize: o.model?.vocabulary.size ?? 2 ** 31 - 1, contextSize: o.contextSize };
    this.defaultMaxTokens = o.contextSize;
  }

  private async prepare(options: GenerateOptions): Promise<Prepared> {
    const hasTools = Array.isArray(options.tools) && options.tools.length > 0;
    if (this.o.engine.takesGrammar) {
      const chat = await prepareChatAsync(this.o.model!, options);
      // The grammar's schemas are checked now, before the upstream is asked (once: the parser finds it done).
      if (chat.resolved && chat.ir) checkToolLimits(chat.resolved, chat.ir);
      const format = chat.resolved?.outputFormat;
      return { chat, parser: chat.resolved, verify: undefined, parseContent: true, format, notices: chat.notices };
    }
    // Verify-only: the upstream renders its own prompt; its calls are checked against the tools.
    // With the model here, its request is the one prepareChat resolved (the same checks as every
    // request), less the thought our prompt would open: the upstream's prompt is its own.
    const dialect = options.dialect ?? this.o.model?.dialect;
    const chat = this.o.model ? await prepareChatAsync(this.o.model, { ...options, mask: false }) : undefined;
    const verify = !hasTools
      ? undefined
      : chat?.resolved
        ? requestWith(chat.resolved, { reasoning: false })
        : resolveRequest({
            dialect: dialect ?? VERIFY_DIALECT,
            tools: options.tools,
            ...(options.toolChoice !== undefined ? { toolChoice: options.toolChoice } : {}),
            ...(options.parallelToolCalls !== undefined ? { parallelToolCalls: options.parallelToolCalls } : {}),
            ...(options.maxValueLength !== undefined ? { maxValueLength: options.maxValueLength } : {}),
            ...(options.strictFormats !== undefined ? { strictFormats: options.strictFormats } : {}),
            ...(options.responseFormat !== undefined ? { responseFormat: options.responseFormat } : {}),
          });
    // Tools whose schemas no call could satisfy (or past a limit) are refused now, before the
    // upstream is asked, as a masked request refuses them: not only once a call to one comes back.
    if (verify) checkToolLimits(verify);
    // The response format's schema is lowered now too (its refusals are the route's 400s), as the
    // answer is verified with that lowering.
    const format =
      chat?.resolved?.outputFormat ?? verify?.outputFormat ?? resolveResponseFormat(options.responseFormat);
    if (format && !verify)
      checkToolLimits(resolveRequest({ dialect: "generic", responseFormat: options.responseFormat }));
    const parser = dialect !== undefined ? verify : undefined;
    const notices = verify ? toolNotices(verify.declared) : [];
    return { chat: undefined, parser, verify, parseContent: parser !== undefined, format, notices };
  }

  private enforcement(grammar: string | undefined, end: UpstreamEnd | undefined): Enforcement {
    if (!this.o.engine.takesGrammar) return "verify-only";
    if (grammar === undefined) return "none";
    return end?.appliedGrammar !== undefined && end.appliedGrammar === grammar ? "confirmed" : "sent";
  }

  async generate(options: GenerateOptions): Promise<GenerateResult> {
    let last: GenerateResult | undefined;
    for await (const chunk of this.run(options, false)) if (chunk.result) last = chunk.result;
    return last!;
  }

  generateStream(options: GenerateOptions): AsyncGenerator<StreamChunk, void, undefined> {
    return this.run(options, true);
  }

  private async *run(options: GenerateOptions, stream: boolean): AsyncGenerator<StreamChunk, void, undefined> {
    const t0 = performance.now();
    const p = await this.prepare(options);
    const chat =
      p.chat ??
      ({
        prompt: "",
        maxTokens: options.maxTokens ?? this.defaultMaxTokens,
        sampling: samplingFields(options),
      } as PreparedChat);
    const { request, grammar } = this.o.engine.request({
      chat,
      options,
      vocabulary: this.o.model?.vocabulary as NonNullable<ChatModel["vocabulary"]>,
      stream,
      upstreamModel: this.o.upstreamModel,
    });
    const prepareMillis = performance.now() - t0;
    const sent = await this.o.pool.send(request, options.signal);
    const tokens = Math.min(chat.maxTokens, this.o.contextSize); // an answer cannot outgrow the context
    const cap = upstreamBodyCap(tokens, sent.requestBytes, this.o.maxBodyBytes);
    const t1 = performance.now();
    const parser = p.parser && p.parseContent ? new ToolCallStreamParser(p.parser) : undefined;
    let text = "";
    let reasoning = "";
    const calls: CallDelta[] = [];
    let end: UpstreamEnd | undefined;
    const fedEvents: StreamEvent[] = [];
    const deltas = new StreamDeltas();
    const chunkOf = (e: StreamEvent) => deltas.chunk(e);
    // Under a response format, or a tool choice that requires a call, the content's chunks wait
    // for the verdict on the whole answer.
    const resolved = p.parser ?? p.verify;
    const holdContent = p.format !== undefined || resolved?.callRequired === true;
    const held: StreamChunk[] = [];
    const out = (chunks: StreamChunk[], e: StreamEvent) =>
      (holdContent && e.type === "content" ? held : chunks).push(chunkOf(e));
    try {
      if (stream) yield { delta: { role: "assistant" }, finish_reason: null };
      for await (const piece of readAnswer(sent.response, this.o.engine, stream, sent.upstream.url, cap)) {
        const chunks: StreamChunk[] = [];
        if (piece.reasoning) {
          reasoning += piece.reasoning;
          chunks.push(chunkOf({ type: "reasoning", delta: piece.reasoning }));
        }
        if (piece.text) {
          text += piece.text;
          if (parser)
            for (const e of parser.feed(piece.text)) {
              fedEvents.push(e);
              out(chunks, e);
            }
          else out(chunks, { type: "content", delta: piece.text });
        }
        if (piece.callDeltas) calls.push(...piece.callDeltas);
        if (piece.end) end = piece.end;
        if (stream) yield* chunks;
      }
    } finally {
      sent.release();
    }
    const finish = end!.finish;
    const parsed = parser?.end(finish);
    const tail: StreamChunk[] = [];
    for (const e of parsed?.events ?? []) out(tail, e);
    const args = argumentsOf([...fedEvents, ...(parsed?.events ?? [])]);
    let toolCalls: ToolCall[] = parsed?.toolCalls ?? [];
    let incomplete: IncompleteCall[] = parsed?.incomplete ?? [];
    if (calls.length > 0) {
      if (!p.verify) {
        incomplete = [
          ...incomplete,
          ...[...new Set(calls.map((c) => c.index))].map((index) => ({
            index,
            name: calls.find((c) => c.index === index && c.name)?.name ?? null,
            kind: "invalid" as const,
            reason: "the request declared no tools",
            missing: [],
            text: "",
          })),
        ];
      } else {
        const v = verifyCalls(calls, p.verify, finish, toolCalls.length);
        // A verified call arrives whole, at the end: its start, its arguments and its end.
        v.toolCalls.forEach((call, k) => {
          const index = toolCalls.length + k;
          // Verified whole: each of its arguments fits its schema.
          const told = verifiedArgumentEvents(index, call.function.arguments);
          args.push(...argumentsOf(told));
          tail.push(
            chunkOf({ type: "tool_call_start", index, id: call.id, name: call.function.name }),
            chunkOf({ type: "tool_call_arguments", index, delta: call.function.arguments }),
            ...told.map(chunkOf),
            chunkOf({ type: "tool_call_end", index, call }),
          );
        });
        toolCalls = [...toolCalls, ...v.toolCalls];
        incomplete = [...incomplete, ...v.incomplete];
      }
    }
    const content = parsed ? parsed.content : text;
    const entries = toolCalls.length + incomplete.length + (parsed?.dropped.length ?? 0);
    const unmet = resolved && unmetChoice(resolved, entries, finish);
    if (unmet)
      throw new UpstreamError(`${sent.upstream.url} answered with no call (${unmet}); the answer is not passed on`);
    const checked = p.format && structuredVerdict(p.format, content, finish, entries);
    if (checked && checked.verdict.status === "invalid")
      throw new UpstreamError(
        `${sent.upstream.url} answered content that is not the response format's JSON (${checked.verdict.reason}); the answer is not passed on`,
      );
    if (stream) {
      yield* held;
      yield* tail;
    }
    const finishReason: GenerateResult["finishReason"] =
      finish === "length" ? "length" : toolCalls.length > 0 ? "tool_calls" : (parsed?.finishReason ?? "stop");
    const reasoningText = parsed?.reasoning ?? (reasoning || null);
    const decodeMillis = performance.now() - t1;
    const n = end!.completionTokens ?? end!.tokens?.length ?? 0;
    const result: GenerateResult = {
      message: {
        role: "assistant",
        content: content === "" && toolCalls.length > 0 ? null : content,
        ...(reasoningText !== null ? { reasoning_content: reasoningText } : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
      finishReason,
      usage: { prompt_tokens: end!.promptTokens ?? 0, completion_tokens: n },
      timings: {
        tokensPerSecond: decodeMillis > 0 ? (n * 1000) / decodeMillis : 0,
        maskMicrosPerToken: 0,
        prepareMillis,
        queueMillis: 0,
        promptMillis: 0,
        decodeMillis,
      },
      maskPath: "none",
      incomplete,
      toolCallArguments: args,
      decode: { steps: n, forcedTokens: 0 },
      text: text,
      tokens: end!.tokens ?? [],
      upstream: { url: sent.upstream.url, engine: this.o.engine.name, enforcement: this.enforcement(grammar, end) },
      ...(p.notices.length > 0 ? { notices: p.notices } : {}),
      ...(checked ? { structured: checked.verdict, ...("value" in checked ? { parsed: checked.value } : {}) } : {}),
    };
    yield { delta: {}, finish_reason: result.finishReason, result };
  }
}

/** The sampling fields of a request that is not prepared here (verify-only). */
function samplingFields(o: GenerateOptions): PreparedChat["sampling"] {
  return {
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.topK !== undefined ? { topK: o.topK } : {}),
    ...(o.topP !== undefined ? { topP: o.topP } : {}),
    ...(o.minP !== undefined ? { minP: o.minP } : {}),
    ...(o.repeatPenalty !== undefined ? { repeatPenalty: o.repeatPenalty } : {}),
    seed: o.seed ?? 0,
    ...(o.logitBias
      ? { logitBias: Object.entries(o.logitBias).map(([id, b]) => [Number(id), b] as [number, number]) }
      : {}),
  };
}

// generate(): the model's own chat template renders the prompt (prepare-chat.ts), the dialect's
// grammar masks decoding inside llama.cpp's sampler chain, and the same dialect's parser reads the
// output.
import { checkToolLimits, markToolLimitsChecked } from "../parser/tool-limits.js";
import { grammarCache } from "../grammar/cache.js";
import { compileGrammarAsync, FINISH_HORIZON } from "../grammar/compile.js";
import { MaxTokensTooSmallError } from "./errors.js";
import {
  loadNative,
  type NativeAddon,
  type NativeGenerationRequest,
  type NativeGenerationResult,
  type NativeMaskTable,
} from "../native.js";
import type { ResolvedRequest } from "../dialects/options.js";
import { argumentsOf } from "../parser/argument-event.js";
import type {
  IncompleteCall,
  ParseResult,
  StreamEvent,
  StructuredVerdict,
  ToolCall,
  ToolCallArgument,
} from "../parser/types.js";
import type { LlamaModel } from "./model.js";
import { OutputText } from "./output-text.js";
import type { GenerateOptions } from "./generate-options.js";
import { prepareChatAsync } from "./prepare-chat.js";
import { tokenizeChatPrompt } from "./prompt-tokens.js";

export { GENERATE_OPTION_NAMES, type GenerateOptions } from "./generate-options.js";

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  reasoning_content?: string;
  tool_calls?: ToolCall[];
}

export interface GenerateResult {
  message: AssistantMessage;
  finishReason: "stop" | "tool_calls" | "length";
  /**
   * prompt_tokens_details.cached_tokens: of prompt_tokens, those whose KV cells an earlier request
   * left in the slot (GenerateOptions.cachePrompt), reused and not decoded; absent in a gateway's
   * answers (the upstream's count is not read).
   */
  usage: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
  /**
   * tokensPerSecond: this generation's own tokens over its decodeMillis (other sequences decoded
   * in the same steps are not counted); prepareMillis: rendering, tokenizing the prompt and
   * compiling the grammar, before the request joins the engine; queueMillis: then waiting for a
   * free sequence slot.
   */
  timings: {
    tokensPerSecond: number;
    maskMicrosPerToken: number;
    prepareMillis: number;
    queueMillis: number;
    promptMillis: number;
    decodeMillis: number;
  };
  /** Where the mask ran: "backend" when llama.cpp masked inside the graph, "cpu" on the host, "none" unmasked. */
  maskPath: "cpu" | "backend" | "none";
  /** Calls the output started but did not finish validly (cut by maxTokens, or invalid unmasked). */
  incomplete: IncompleteCall[];
  /**
   * Every complete top-level argument of every call, valid, invalid or cut, in the order the
   * output wrote them (the parser's tool_call_argument events): which argument of a call that
   * failed was fine and which was not.
   */
  toolCallArguments: ToolCallArgument[];
  /**
   * steps: forward passes behind the output (one per sampled token); forcedTokens: tokens that went
   * in by fast-forward, not sampled (tokens.length = sampled + forced).
   */
  decode: { steps: number; forcedTokens: number };
  /**
   * The backend path's resident mask table (TOOLMASK_BACKEND_MASK=resident; absent otherwise,
   * native/llama/mask_resident.hpp). rows: rows written, the two reserved ones included ("mask
   * nothing" for a dead end, and the ad-hoc row); capacity: rows allocated; rowBytes: ⌈vocabulary /
   * 24⌉ F32 words of 24 mask bits, × 4; bytes = rows × rowBytes and allocatedBytes = capacity ×
   * rowBytes (the table on the device); stateRows: grammar states whose row was uploaded, once
   * each; budgetSteps: steps whose mask the token budget changed, budgetRows: rows uploaded for
   * them (one per limited mask not seen before in that state); staleRows: steps that uploaded
   * their whole mask into the ad-hoc row because the graph in use was built before the table grew;
   * growths: times a table twice as large took over; inputSteps: steps that uploaded the whole
   * mask as a per-graph input (logits of another width than the vocabulary).
   */
  maskTable?: NativeMaskTable & { bytes: number; allocatedBytes: number };
  /**
   * Gateway answers only (src/gateway/): the upstream that wrote it and how far the grammar was
   * enforced there ("confirmed": the engine echoed it; "sent": it went in the engine's field;
   * "verify-only": the engine takes none; "none": no grammar). Every answer is verified here.
   */
  upstream?: { url: string; engine: string; enforcement: "confirmed" | "sent" | "verify-only" | "none" };
  /** The stop string (options.stop) that ended the output; absent when none did (an end token, maxTokens, a gateway). */
  stopSequence?: string;
  /**
   * What the request should know about its tools, once per request; absent when nothing. Today:
   * a "format" the grammar does not enforce, taken as an annotation (strictFormats refuses it).
   */
  notices?: string[];
  /**
   * Under a response format only (options.responseFormat): the content's value, present only when
   * `structured.status` is "valid" (never for an answer cut by maxTokens: finishReason "length").
   */
  parsed?: unknown;
  /** Under a response format only: the parser's verdict on the content (src/parser/structured.ts). */
  structured?: StructuredVerdict;
  /** The generated text (without the end-of-generation token) and every generated token id. */
  text: string;
  tokens: number[];
}

/** What one generation needs, worked out before decoding starts. */
export interface PreparedGeneration {
  request: NativeGenerationRequest;
  /** The request resolved once, when a dialect applies (tools given, or detected from the template): the parser reads the output by it. */
  resolved: ResolvedRequest | undefined;
  /** How long the preparation took. */
  prepareMillis: number;
  /** GenerateResult.notices, known before decoding. */
  notices: string[];
}

/**
 * Checks the options, renders the prompt, builds the grammar, tokenizes the prompt, then compiles
 * the grammar, both on worker threads: a request refused for its length never pays for a compile,
 * and the decode thread (shared by every generation) neither tokenizes nor compiles. `signal`
 * stops the tokenizing. The grammar reference in `request` is released by runGeneration.
 */
export async function prepareGeneration(
  model: LlamaModel,
  options: GenerateOptions,
  signal: AbortSignal | undefined = options.signal,
): Promise<PreparedGeneration> {
  const t0 = performance.now();
  if (options.cachePrompt !== undefined && typeof options.cachePrompt !== "boolean")
    throw new TypeError(`cachePrompt must be true or false, got ${JSON.stringify(options.cachePrompt)}`);
  const chat = await prepareChatAsync(model, options);
  const { prompt, maxTokens, ir, resolved, sampling } = chat;
  const promptTokens = await tokenizeChatPrompt(model, prompt, signal);
  const grammar = ir ? (await compileGrammarAsync(ir, model.vocabulary)).native : undefined;
  if (grammar && (resolved?.callRequired || resolved?.outputFormat) && maxTokens <= FINISH_HORIZON) {
    // The grammar's start needs a call or the format's JSON: a maxTokens below the shortest could
    // only cut it (the bound is known up to FINISH_HORIZON tokens, so a larger maxTokens needs no search).
    const matcher = new (loadNative().NativeMatcher)(grammar);
    // A response format's answer counts its end token too (the budget keeps room for it, grammar_budget.cpp).
    const needed = matcher.minTokensToFinish() + (resolved.callRequired ? 0 : 1);
    matcher.dispose();
    if (needed > maxTokens) {
      grammar.dispose();
      throw new MaxTokensTooSmallError(maxTokens, needed, !resolved.callRequired);
    }
  }
  // The parser refuses tools past a schema limit: compiling checked them, or (unmasked) this does, before decoding.
  if (resolved) {
    if (grammar) markToolLimitsChecked(resolved);
    else checkToolLimits(resolved);
  }
  return {
    request: {
      prompt,
      promptTokens,
      maxTokens,
      cachePrompt: options.cachePrompt !== false,
      ...sampling,
      ...(grammar ? { grammar, fastForward: options.fastForward !== false } : {}),
    },
    prepareMillis: performance.now() - t0,
    resolved,
    notices: chat.notices,
  };
}

/**
 * Called with each batch of output ids; `stop(kept)` ends the output after the batch's first `kept`
 * ids (a stop string ended there).
 */
export type OnTokens = (ids: number[], stop: (kept: number) => void) => void;

/**
 * Starts decoding; `onTokens` sees each batch of sampled ids and may call `stop(kept)` (a stop string
 * was found: the result then finishes "stop" and holds the ids up to it, not those the decoder made
 * before it saw the abort). Resolves when decoding ends.
 */
export async function runGeneration(
  model: LlamaModel,
  prepared: PreparedGeneration,
  signal: AbortSignal | undefined,
  onTokens: OnTokens,
): Promise<NativeGenerationResult> {
  signal?.throwIfAborted();
  let delivered = 0; // ids passed to onTokens before the current batch
  let keep: number | undefined;
  const stop = (kept: number) => {
    keep ??= delivered + kept;
    handle.abort();
  };
  let handle: ReturnType<NativeAddon["llamaGenerate"]>;
  try {
    handle = loadNative().llamaGenerate(model.native, prepared.request, (ids) => {
      if (keep !== undefined) return; // ids decoded after the stop string: not output
      onTokens(ids, stop);
      delivered += ids.length;
    });
  } finally {
    prepared.request.grammar?.dispose(); // the generation holds the grammar itself from here
  }
  // The walk grows the grammar: the cache measures it while it is in use, evicting idle grammars to make room.
  if (prepared.request.grammar) grammarCache.settleSoon();
  const onAbort = () => handle.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const native = await handle.done;
    if (native.finishReason === "aborted") signal?.throwIfAborted();
    if (keep === undefined || keep >= native.tokens.length) {
      return keep !== undefined && native.finishReason === "aborted" ? { ...native, finishReason: "stop" } : native;
    }
    // The decoder made more ids before it saw the abort: the output ends at the stop string.
    const forcedAt = native.forcedAt.filter((at) => at < keep!);
    return {
      ...native,
      tokens: native.tokens.slice(0, keep),
      finishReason: "stop",
      forcedAt,
      forcedTokens: forcedAt.length,
      decodeSteps: Math.min(native.decodeSteps, keep - forcedAt.length),
    };
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (prepared.request.grammar) grammarCache.settleSoon(); // the walk grew the grammar: measure it again
  }
}

/** The result object from the parser's verdict and the native run's counts. */
export function resultOf(
  native: NativeGenerationResult,
  text: string,
  parsed: ParseResult | undefined,
  prepareMillis: number,
  toolCallArguments: ToolCallArgument[],
): GenerateResult {
  const finish = native.finishReason === "stop" ? "stop" : "length";
  let message: AssistantMessage = { role: "assistant", content: text };
  if (parsed) {
    message = { role: "assistant", content: parsed.content };
    if (parsed.reasoning !== null) message.reasoning_content = parsed.reasoning;
    if (parsed.toolCalls.length > 0) message.tool_calls = parsed.toolCalls;
  }
  const n = native.tokens.length;
  return {
    message,
    finishReason: parsed ? parsed.finishReason : finish,
    usage: {
      prompt_tokens: native.promptTokens,
      completion_tokens: n,
      prompt_tokens_details: { cached_tokens: native.promptCachedTokens },
    },
    timings: {
      tokensPerSecond: native.decodeMillis > 0 ? (n * 1000) / native.decodeMillis : 0,
      maskMicrosPerToken: native.maskApplyCount > 0 ? native.maskApplyNanos / native.maskApplyCount / 1000 : 0,
      prepareMillis,
      queueMillis: native.queueMillis,
      promptMillis: native.promptMillis,
      decodeMillis: native.decodeMillis,
    },
    maskPath:
      native.maskApplyCount === 0 ? "none" : native.maskBackendSteps === native.maskApplyCount ? "backend" : "cpu",
    incomplete: parsed ? parsed.incomplete : [],
    toolCallArguments,
    decode: { steps: native.decodeSteps, forcedTokens: native.forcedTokens },
    ...(native.maskTable
      ? {
          maskTable: {
            ...native.maskTable,
            bytes: native.maskTable.rows * native.maskTable.rowBytes,
            allocatedBytes: native.maskTable.capacity * native.maskTable.rowBytes,
          },
        }
      : {}),
    ...(parsed?.structured ? { structured: parsed.structured } : {}),
    ...(parsed && "parsed" in parsed ? { parsed: parsed.parsed } : {}),
    text,
    tokens: native.tokens,
  };
}

/** Prepares a generation while holding `model` (see LlamaModel.hold), then starts it. */
export async function startGeneration(
  model: LlamaModel,
  options: GenerateOptions,
  signal: AbortSignal | undefined,
  onTokens: OnTokens,
): Promise<{ prepared: PreparedGeneration; run: Promise<NativeGenerationResult> }> {
  const release = model.hold();
  try {
    const prepared = await prepareGeneration(model, options, signal);
    return { prepared, run: runGeneration(model, prepared, signal, onTokens) }; // submitted by now
  } finally {
    release();
  }
}

export async function generate(model: LlamaModel, options: GenerateOptions): Promise<GenerateResult> {
  const output = new OutputText(model, options.stop);
  const events: StreamEvent[] = [];
  const { prepared, run } = await startGeneration(model, options, options.signal, (ids, stop) => {
    for (const [i, id] of ids.entries()) {
      events.push(...output.token(id));
      if (output.stopped) return stop(i + 1);
    }
  });
  // Tokens reach the callback in later macrotasks: the parser is in place before the first.
  events.push(...output.attach(prepared.resolved, prepared.request.grammar !== undefined));
  const native = await run;
  const ended = output.end(native.finishReason === "stop" ? "stop" : "length");
  events.push(...ended.events);
  const result = resultOf(native, output.text, ended.parsed, prepared.prepareMillis, argumentsOf(events));
  if (output.stopSequence !== undefined) result.stopSequence = output.stopSequence;
  if (prepared.notices.length > 0) result.notices = prepared.notices;
  return result;
}

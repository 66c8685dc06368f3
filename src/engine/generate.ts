// generate(): the model's own chat template renders the prompt, the dialect's grammar masks
// decoding inside llama.cpp's sampler chain, and the same dialect's parser reads the output.
import { buildToolGrammar } from "../dialects/grammar.js";
import { checkToolLimits, markToolLimitsChecked } from "../parser/tool-limits.js";
import { getDialect } from "../dialects/index.js";
import { promptParts } from "../dialects/prompt.js";
import type { DialectSpec } from "../dialects/spec.js";
import type { ToolChoice } from "../dialects/tools.js";
import { compileGrammarAsync, FINISH_HORIZON } from "../grammar/compile.js";
import { ContextLengthError, MaxTokensTooSmallError } from "./errors.js";
import { assertDialectFits } from "./vocab-fit.js";
import { checkGenerateOptions, optionNames } from "./options-check.js";
import { loadNative, type NativeAddon, type NativeGenerationRequest, type NativeGenerationResult } from "../native.js";
import { ToolCallStreamParser, type ParserOptions } from "../parser/stream.js";
import type { IncompleteCall, ParseResult, ToolCall } from "../parser/types.js";
import { ChatTemplateError, renderChat, type ChatMessage } from "../templates/render.js";
import { renderWithSystemFallback } from "../templates/system-fallback.js";
import { TokenKind } from "../vocab/types.js";
import type { LlamaModel } from "./model.js";
import { StopScanner } from "./stop.js";
import { UnknownDialectError } from "./detect-dialect.js";

export interface GenerateOptions {
  messages: ChatMessage[];
  /** OpenAI tool definitions. */
  tools?: unknown[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** Tokens to generate at most (an end-of-generation token counts). Default 512. */
  maxTokens?: number;
  /** 0: greedy. Default 0.8. */
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  /** Same seed, same prompt, same options: same tokens. Default 0. */
  seed?: number;
  /** Ends the answer where one of these strings first appears; the string is not part of it. */
  stop?: string | string[];
  /** Added to the logits of token ids before sampling (after the mask: a bias cannot unmask). */
  logitBias?: Record<number, number>;
  repeatPenalty?: number;
  /**
   * The longest string value a call may carry, in characters (every string argument, raw XML text
   * included; a schema's smaller maxLength still applies). The mask closes the value there, and the
   * parser holds outputs to the same bound. Default: unbounded.
   */
  maxValueLength?: number;
  /** Let the model think first (the template's thinking switch, and a thought in the grammar). Default false. */
  reasoning?: boolean;
  /** false: decode without the grammar (to compare; output is still parsed). Default true. */
  mask?: boolean;
  /**
   * Masked only: the text the grammar forces next (a call's closing tags, the only parameter left,
   * a key's quote and colon) goes in as the model's own tokens for it, without sampling, decoded in
   * one forward pass with the sampled token. false: every token is sampled (to compare). Default true.
   */
  fastForward?: boolean;
  /**
   * Where the mask runs: "cpu" (a sampler over the logits on the host, the default) or "backend"
   * (llama.cpp's experimental backend sampling: graph ops where the logits live).
   */
  maskPath?: "cpu" | "backend";
  /** A dialect name; default: the one detected from the model's chat template. */
  dialect?: string;
  signal?: AbortSignal;
}

/** Every generate() option name (a name missing here, or not in GenerateOptions, does not compile). */
export const GENERATE_OPTION_NAMES = optionNames<GenerateOptions>({
  messages: true,
  tools: true,
  toolChoice: true,
  parallelToolCalls: true,
  maxTokens: true,
  temperature: true,
  topK: true,
  topP: true,
  minP: true,
  seed: true,
  stop: true,
  logitBias: true,
  repeatPenalty: true,
  maxValueLength: true,
  reasoning: true,
  mask: true,
  maskPath: true,
  dialect: true,
  signal: true,
  fastForward: true,
});

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  reasoning_content?: string;
  tool_calls?: ToolCall[];
}

export interface GenerateResult {
  message: AssistantMessage;
  finishReason: "stop" | "tool_calls" | "length";
  usage: { prompt_tokens: number; completion_tokens: number };
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
   * steps: forward passes behind the output (one per sampled token); forcedTokens: tokens that went
   * in by fast-forward, not sampled (tokens.length = sampled + forced).
   */
  decode: { steps: number; forcedTokens: number };
  /** The generated text (without the end-of-generation token) and every generated token id. */
  text: string;
  tokens: number[];
}

function dialectFor(model: LlamaModel, given: string | undefined, needed: boolean): DialectSpec | undefined {
  if (given !== undefined) return getDialect(given);
  if (model.dialect) return getDialect(model.dialect);
  if (needed) throw new UnknownDialectError(model.path);
  return undefined;
}

/** Whether the rendered prompt leaves the model inside an opened thought. */
function promptOpensThought(prompt: string, spec: DialectSpec): boolean {
  return !!spec.reasoning && prompt.trimEnd().endsWith(spec.reasoning.open);
}

function samplingOf(o: GenerateOptions): Partial<NativeGenerationRequest> {
  const out: Partial<NativeGenerationRequest> = {};
  if (o.temperature !== undefined) out.temperature = o.temperature;
  if (o.topK !== undefined) out.topK = o.topK;
  if (o.topP !== undefined) out.topP = o.topP;
  if (o.minP !== undefined) out.minP = o.minP;
  if (o.repeatPenalty !== undefined) out.repeatPenalty = o.repeatPenalty;
  out.seed = o.seed ?? 0;
  if (!Number.isInteger(out.seed) || out.seed < 0 || out.seed > 0xffffffff)
    throw new RangeError("seed must be an integer in 0..2^32-1");
  if (o.maskPath !== undefined && o.maskPath !== "cpu" && o.maskPath !== "backend")
    throw new TypeError(`maskPath must be "cpu" or "backend", got ${JSON.stringify(o.maskPath)}`);
  if (o.maskPath === "backend") out.backendSampling = true;
  if (o.fastForward !== undefined && typeof o.fastForward !== "boolean")
    throw new TypeError(`fastForward must be true or false, got ${JSON.stringify(o.fastForward)}`);
  if (o.logitBias) out.logitBias = Object.entries(o.logitBias).map(([id, bias]) => [Number(id), bias]);
  return out;
}

/** Token ids outside the vocabulary would abort llama.cpp's backend logit-bias sampler. */
function checkLogitBias(bias: Array<[number, number]> | undefined, vocabSize: number): void {
  for (const [id, value] of bias ?? []) {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
      throw new RangeError(`logitBias: token id ${id} is outside the model's vocabulary (0..${vocabSize - 1})`);
    if (typeof value !== "number" || Number.isNaN(value)) throw new TypeError(`logitBias[${id}] must be a number`);
  }
}

/** toolChoice "required" or a named function: the answer must hold a call. */
function callRequired(choice: ToolChoice | undefined): boolean {
  return choice === "required" || (typeof choice === "object" && choice !== null);
}

/** What one generation needs, worked out before decoding starts. */
export interface PreparedGeneration {
  request: NativeGenerationRequest;
  /** Parser options, when a dialect applies (tools given, or detected from the template). */
  dialectOptions: ParserOptions | undefined;
  /** How long the preparation took. */
  prepareMillis: number;
}

/**
 * The messages as chat templates expect them: an assistant turn whose content is null or absent
 * (OpenAI's form beside tool calls) gets "" — templates that test or join the content throw on
 * null, as in Python. The caller's objects are not changed.
 */
function templateMessages(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((m) =>
    m && m.role === "assistant" && (m.content === null || m.content === undefined) ? { ...m, content: "" } : m,
  );
}

/**
 * Checks the options, renders the prompt, builds the grammar, tokenizes the prompt, then compiles
 * the grammar, both on worker threads: a request refused for its length never pays for a compile,
 * and the decode thread (shared by every generation) neither tokenizes nor compiles. The grammar reference in `request` is released by runGeneration.
 */
export async function prepareGeneration(model: LlamaModel, options: GenerateOptions): Promise<PreparedGeneration> {
  const t0 = performance.now();
  checkGenerateOptions(options, GENERATE_OPTION_NAMES, model.vocabulary);
  if (!options || !Array.isArray(options.messages) || options.messages.length === 0)
    throw new TypeError("generate(model, { messages }) needs at least one message");
  if (!model.chatTemplate)
    throw new ChatTemplateError(`generate: ${model.path} has no chat template (tokenizer.chat_template)`, undefined);
  const hasTools = Array.isArray(options.tools) && options.tools.length > 0;
  const spec = dialectFor(model, options.dialect, hasTools);
  const reasoning = options.reasoning ?? false;
  const maxTokens = options.maxTokens ?? 512;
  if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > 2147483647)
    throw new RangeError(`maxTokens must be an integer from 1 to 2147483647, got ${String(maxTokens)}`);

  // A dialect whose family's template does not carry tools or calls rewrites the messages (src/dialects/prompt.ts).
  const parts = spec
    ? promptParts(
        spec,
        options.messages,
        hasTools ? options.tools : undefined,
        model.chatTemplate.includes("tool_calls"),
      )
    : { messages: options.messages, ...(hasTools ? { tools: options.tools } : {}) };
  const render = (messages: ChatMessage[]) =>
    renderChat(model.chatTemplate, {
      messages: templateMessages(messages),
      ...(parts.tools ? { tools: parts.tools } : {}),
      addGenerationPrompt: true,
      bosToken: model.bosToken,
      eosToken: model.eosToken,
      extra: { enable_thinking: reasoning },
      name: `chat template of ${model.path}`,
    });
  const prompt = renderWithSystemFallback(render, parts.messages, parts.messages !== options.messages);

  const dialectOptions: ParserOptions | undefined = spec && {
    dialect: spec,
    tools: hasTools ? options.tools : [],
    ...(options.toolChoice !== undefined ? { toolChoice: options.toolChoice } : {}),
    ...(options.parallelToolCalls !== undefined ? { parallelToolCalls: options.parallelToolCalls } : {}),
    ...(options.maxValueLength !== undefined ? { maxValueLength: options.maxValueLength } : {}),
    reasoning: promptOpensThought(prompt, spec) ? ("forced-open" as const) : reasoning && !!spec.reasoning,
  };
  const sampling = samplingOf(options);
  checkLogitBias(sampling.logitBias, model.vocabulary.size);
  if (options.mask !== false && spec && hasTools && options.toolChoice !== "none")
    assertDialectFits(model.vocabulary, spec);
  const ir = options.mask !== false && dialectOptions ? buildToolGrammar(dialectOptions) : undefined;
  const promptTokens = await model.native.tokenizePrompt(prompt);
  if (promptTokens.length >= model.contextSize) throw new ContextLengthError(promptTokens.length, model.contextSize);
  const grammar = ir ? (await compileGrammarAsync(ir, model.vocabulary)).native : undefined;
  if (grammar && dialectOptions && callRequired(dialectOptions.toolChoice) && maxTokens <= FINISH_HORIZON) {
    // The grammar's start needs a call: a maxTokens below its shortest one could only cut it
    // (the bound is known up to FINISH_HORIZON tokens, so a larger maxTokens needs no search).
    const matcher = new (loadNative().NativeMatcher)(grammar);
    const needed = matcher.minTokensToFinish();
    matcher.dispose();
    if (needed > maxTokens) {
      grammar.dispose();
      throw new MaxTokensTooSmallError(maxTokens, needed);
    }
  }
  // The parser refuses tools past a schema limit: compiling checked them, or (unmasked) this does, before decoding.
  if (dialectOptions) {
    if (grammar) markToolLimitsChecked(dialectOptions);
    else checkToolLimits(dialectOptions);
  }
  return {
    request: {
      prompt,
      promptTokens,
      maxTokens,
      ...sampling,
      ...(grammar ? { grammar, fastForward: options.fastForward !== false } : {}),
    },
    prepareMillis: performance.now() - t0,
    dialectOptions,
  };
}

/**
 * Starts decoding; `onTokens` sees each batch of sampled ids and may call `stop()` (a stop string
 * was found: the result then finishes "stop"). Resolves when decoding ends.
 */
export async function runGeneration(
  model: LlamaModel,
  prepared: PreparedGeneration,
  signal: AbortSignal | undefined,
  onTokens: (ids: number[], stop: () => void) => void,
): Promise<NativeGenerationResult> {
  signal?.throwIfAborted();
  let stopped = false;
  const stop = () => {
    stopped = true;
    handle.abort();
  };
  let handle: ReturnType<NativeAddon["llamaGenerate"]>;
  try {
    handle = loadNative().llamaGenerate(model.native, prepared.request, (ids) => onTokens(ids, stop));
  } finally {
    prepared.request.grammar?.dispose(); // the generation holds the grammar itself from here
  }
  const onAbort = () => handle.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const native = await handle.done;
    if (native.finishReason === "aborted") signal?.throwIfAborted();
    return stopped && native.finishReason === "aborted" ? { ...native, finishReason: "stop" } : native;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

/** The result object from the parser's verdict and the native run's counts. */
export function resultOf(
  native: NativeGenerationResult,
  text: string,
  parsed: ParseResult | undefined,
  prepareMillis: number,
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
    usage: { prompt_tokens: native.promptTokens, completion_tokens: n },
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
    decode: { steps: native.decodeSteps, forcedTokens: native.forcedTokens },
    text,
    tokens: native.tokens,
  };
}

/** Prepares a generation while holding `model` (see LlamaModel.hold), then starts it. */
export async function startGeneration(
  model: LlamaModel,
  options: GenerateOptions,
  signal: AbortSignal | undefined,
  onTokens: (ids: number[], stop: () => void) => void,
): Promise<{ prepared: PreparedGeneration; run: Promise<NativeGenerationResult> }> {
  const release = model.hold();
  try {
    const prepared = await prepareGeneration(model, options);
    return { prepared, run: runGeneration(model, prepared, signal, onTokens) }; // submitted by now
  } finally {
    release();
  }
}

export async function generate(model: LlamaModel, options: GenerateOptions): Promise<GenerateResult> {
  const scanner = new StopScanner(options.stop);
  const decoder = new TextDecoder();
  let text = "";
  const { prepared, run } = await startGeneration(model, options, options.signal, (ids, stop) => {
    for (const id of ids) {
      // End-of-generation tokens end the output; their text is not part of it.
      if (model.vocabulary.kind(id) === TokenKind.EndOfGeneration) continue;
      text += scanner.feed(decoder.decode(model.vocabulary.tokenBytes(id), { stream: true }));
      if (scanner.stopped) return stop();
    }
  });
  const native = await run;
  text += scanner.feed(decoder.decode()) + scanner.flush();
  let parsed: ParseResult | undefined;
  if (prepared.dialectOptions) {
    const parser = new ToolCallStreamParser(prepared.dialectOptions);
    parser.feed(text);
    parsed = parser.end(native.finishReason === "stop" ? "stop" : "length");
  }
  return resultOf(native, text, parsed, prepared.prepareMillis);
}

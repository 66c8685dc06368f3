// generate(): the model's own chat template renders the prompt, the dialect's grammar masks
// decoding inside llama.cpp's sampler chain, and the same dialect's parser reads the output.
import { buildToolGrammar } from "../dialects/grammar.js";
import { getDialect } from "../dialects/index.js";
import type { DialectSpec } from "../dialects/spec.js";
import type { ToolChoice } from "../dialects/tools.js";
import { compileGrammar } from "../grammar/compile.js";
import { loadNative, type NativeGenerationRequest } from "../native.js";
import { ToolCallStreamParser } from "../parser/stream.js";
import type { IncompleteCall, ToolCall } from "../parser/types.js";
import { renderChat, type ChatMessage } from "../templates/render.js";
import { TokenKind } from "../vocab/types.js";
import type { LlamaModel } from "./model.js";

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
  /** Added to the logits of token ids before sampling (after the mask: a bias cannot unmask). */
  logitBias?: Record<number, number>;
  repeatPenalty?: number;
  /** Let the model think first (the template's thinking switch, and a thought in the grammar). Default false. */
  reasoning?: boolean;
  /** false: decode without the grammar (to compare; output is still parsed). Default true. */
  mask?: boolean;
  /** A dialect name; default: the one detected from the model's chat template. */
  dialect?: string;
  signal?: AbortSignal;
}

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
  timings: { tokensPerSecond: number; maskMicrosPerToken: number; promptMillis: number; decodeMillis: number };
  /** Calls the output started but did not finish validly (cut by maxTokens, or invalid unmasked). */
  incomplete: IncompleteCall[];
  /** The generated text (without the end-of-generation token) and every sampled token id. */
  text: string;
  tokens: number[];
}

function dialectFor(model: LlamaModel, given: string | undefined, needed: boolean): DialectSpec | undefined {
  if (given !== undefined) return getDialect(given);
  if (model.dialect) return getDialect(model.dialect);
  if (needed)
    throw new Error(`generate: cannot tell the tool-call dialect of ${model.path} from its chat template; pass { dialect } (one of the names in \`dialects\`)`);
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
  if (!Number.isInteger(out.seed) || out.seed < 0 || out.seed > 0xffffffff) throw new RangeError("seed must be an integer in 0..2^32-1");
  if (o.logitBias) out.logitBias = Object.entries(o.logitBias).map(([id, bias]) => [Number(id), bias]);
  return out;
}

export async function generate(model: LlamaModel, options: GenerateOptions): Promise<GenerateResult> {
  if (!options || !Array.isArray(options.messages) || options.messages.length === 0)
    throw new TypeError("generate(model, { messages }) needs at least one message");
  if (!model.chatTemplate) throw new Error(`generate: ${model.path} has no chat template (tokenizer.chat_template)`);
  const hasTools = Array.isArray(options.tools) && options.tools.length > 0;
  const spec = dialectFor(model, options.dialect, hasTools);
  const reasoning = options.reasoning ?? false;
  const maxTokens = options.maxTokens ?? 512;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new RangeError("maxTokens must be a positive integer");

  const prompt = renderChat(model.chatTemplate, {
    messages: options.messages,
    ...(hasTools ? { tools: options.tools } : {}),
    addGenerationPrompt: true,
    bosToken: model.bosToken,
    eosToken: model.eosToken,
    extra: { enable_thinking: reasoning },
    name: `chat template of ${model.path}`,
  });

  const dialectOptions = spec && {
    dialect: spec,
    tools: hasTools ? options.tools : [],
    ...(options.toolChoice !== undefined ? { toolChoice: options.toolChoice } : {}),
    ...(options.parallelToolCalls !== undefined ? { parallelToolCalls: options.parallelToolCalls } : {}),
    reasoning: promptOpensThought(prompt, spec) ? ("forced-open" as const) : reasoning && !!spec.reasoning,
  };
  const grammar = options.mask !== false && dialectOptions
    ? compileGrammar(buildToolGrammar(dialectOptions), model.vocabulary).native
    : undefined;

  options.signal?.throwIfAborted();
  const handle = loadNative().llamaGenerate(
    model.native,
    { prompt, maxTokens, contextSize: model.contextSize, threads: model.threads, ...samplingOf(options), ...(grammar ? { grammar } : {}) },
    () => {},
  );
  const onAbort = () => handle.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let native;
  try {
    native = await handle.done;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  if (native.finishReason === "aborted") options.signal?.throwIfAborted();

  const tokens = native.tokens;
  const last = tokens[tokens.length - 1];
  const ended = native.finishReason === "stop" && last !== undefined && model.vocabulary.kind(last) === TokenKind.EndOfGeneration;
  const text = decodeTokens(model, ended ? tokens.slice(0, -1) : tokens);

  const finish = native.finishReason === "stop" ? "stop" : "length";
  let message: AssistantMessage;
  let finishReason: GenerateResult["finishReason"] = finish;
  let incomplete: IncompleteCall[] = [];
  if (dialectOptions) {
    const parser = new ToolCallStreamParser(dialectOptions);
    parser.feed(text);
    const parsed = parser.end(finish);
    finishReason = parsed.finishReason;
    incomplete = parsed.incomplete;
    message = { role: "assistant", content: parsed.content };
    if (parsed.reasoning !== null) message.reasoning_content = parsed.reasoning;
    if (parsed.toolCalls.length > 0) message.tool_calls = parsed.toolCalls;
  } else {
    message = { role: "assistant", content: text };
  }
  return {
    message,
    finishReason,
    usage: { prompt_tokens: native.promptTokens, completion_tokens: tokens.length },
    timings: {
      tokensPerSecond: native.decodeMillis > 0 ? (tokens.length * 1000) / native.decodeMillis : 0,
      maskMicrosPerToken: native.maskApplyCount > 0 ? native.maskApplyNanos / native.maskApplyCount / 1000 : 0,
      promptMillis: native.promptMillis,
      decodeMillis: native.decodeMillis,
    },
    incomplete,
    text,
    tokens,
  };
}

/** Token bytes as llama.cpp renders them (special tokens as their text), decoded as UTF-8. */
function decodeTokens(model: LlamaModel, tokens: number[]): string {
  const parts = tokens.map((t) => model.vocabulary.tokenBytes(t));
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  return new TextDecoder().decode(all);
}

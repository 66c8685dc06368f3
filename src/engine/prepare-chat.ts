// What a chat request becomes before any decoding, for any engine: the options checked, the prompt
// rendered with the model's own chat template, the dialect's parser options and the grammar IR
// that masks the answer. generate() tokenizes and compiles it for llama.cpp; the gateway
// (src/gateway/) exports the IR in an upstream engine's grammar syntax.
import { buildToolGrammar } from "../dialects/grammar.js";
import { toolNotices } from "../dialects/format-notices.js";
import { resolveRequest, type ResolvedRequest } from "../dialects/options.js";
import { getDialect } from "../dialects/index.js";
import { promptParts } from "../dialects/prompt.js";
import { resolveResponseFormat } from "../dialects/response-format.js";
import type { DialectSpec } from "../dialects/spec.js";
import type { Grammar } from "../grammar/ir.js";
import type { NativeGenerationRequest } from "../native.js";
import { ChatTemplateError, renderChat, type ChatMessage, type RenderChatOptions } from "../templates/render.js";
import { renderChatOffThread } from "../templates/render-thread.js";
import { renderWithSystemFallback, renderWithSystemFallbackAsync } from "../templates/system-fallback.js";
import type { Vocabulary } from "../vocab/vocabulary.js";
import { UnknownDialectError } from "./detect-dialect.js";
import { GENERATE_OPTION_NAMES, type GenerateOptions } from "./generate-options.js";
import { checkGenerateOptions } from "./options-check.js";
import { assertDialectFits } from "./vocab-fit.js";
import { SCHEMA_LIMITS, toolCountError } from "../grammar/schema-limits.js";

/** What a chat's prompt and grammar need of a model: a LlamaModel, or a tokenizer the gateway read. */
export interface ChatModel {
  /** Names the model in messages. */
  readonly path: string;
  readonly vocabulary: Vocabulary;
  /** The chat template ("" when there is none). */
  readonly chatTemplate: string;
  /** The tool-call dialect the template writes, when known. */
  readonly dialect: string | undefined;
  readonly bosToken: string;
  readonly eosToken: string;
}

/** A chat request ready for an engine: everything but the prompt's tokens and the compiled grammar. */
export interface PreparedChat {
  prompt: string;
  maxTokens: number;
  /** The dialect, when tools were given or the template names one. */
  spec: DialectSpec | undefined;
  /**
   * The request resolved once (the dialect, its tools normalised, the tool choice decided), when a
   * dialect applies: the grammar is built from it, and the parser and the gateway take it as it is.
   */
  resolved: ResolvedRequest | undefined;
  /** The grammar the answer is masked with (undefined: unmasked, or no dialect). */
  ir: Grammar | undefined;
  /** Sampling fields of the native request (seed always set). */
  sampling: Partial<NativeGenerationRequest>;
  /** What the request should know about its tools (dialects/format-notices.ts); [] when nothing. */
  notices: string[];
}

function dialectFor(model: ChatModel, given: string | undefined, needed: boolean): DialectSpec | undefined {
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
  // Object.keys, not Object.entries: many times faster on an object of 150,000 integer keys.
  if (o.logitBias) {
    const bias = o.logitBias as Record<string, number>;
    out.logitBias = Object.keys(bias).map((id) => [Number(id), bias[id]!]);
  }
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

/** What the checks before rendering found, and the render they ask for. */
interface ChatStart {
  hasTools: boolean;
  spec: DialectSpec | undefined;
  reasoning: boolean;
  maxTokens: number;
  sampling: Partial<NativeGenerationRequest>;
  /** The messages to render (a dialect's prompt may have rewritten them: `rewritten`). */
  messages: ChatMessage[];
  rewritten: boolean;
  /** renderChat's options but the messages. */
  render: Omit<RenderChatOptions, "messages">;
}

/** Checks `options` against `model`, before anything is rendered: a refusal here costs nothing. */
function startChat(model: ChatModel, options: GenerateOptions): ChatStart {
  checkGenerateOptions(options, GENERATE_OPTION_NAMES, model.vocabulary);
  if (!options || !Array.isArray(options.messages) || options.messages.length === 0)
    throw new TypeError(
      'generate(model, { messages }) needs at least one message: pass messages: [{ role: "user", content: "…" }] (the conversation so far, oldest first)',
    );
  if (!model.chatTemplate)
    throw new ChatTemplateError(`generate: ${model.path} has no chat template (tokenizer.chat_template)`, undefined);
  const hasTools = Array.isArray(options.tools) && options.tools.length > 0;
  // The tool count's limit before the template renders them all (70,000 tools took it 1.2 s).
  if (hasTools && options.tools!.length > SCHEMA_LIMITS.tools) throw toolCountError(options.tools!.length);
  // A response format needs a dialect for its content only: a model whose template names none gets
  // the generic one (no calls, no thought: the content is the whole answer), the prompt as the
  // template writes it.
  const structured = resolveResponseFormat(options.responseFormat) !== undefined;
  const named = dialectFor(model, options.dialect, hasTools);
  const spec = named ?? (structured ? getDialect("generic") : undefined);
  const reasoning = options.reasoning ?? false;
  const maxTokens = options.maxTokens ?? 512;
  if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > 2147483647)
    throw new RangeError(`maxTokens must be an integer from 1 to 2147483647, got ${String(maxTokens)}`);
  const sampling = samplingOf(options);
  checkLogitBias(sampling.logitBias, model.vocabulary.size);

  // A dialect whose family's template does not carry tools or calls rewrites the messages (src/dialects/prompt.ts).
  const parts = named
    ? promptParts(
        named,
        options.messages,
        hasTools ? options.tools : undefined,
        model.chatTemplate.includes("tool_calls"),
      )
    : { messages: options.messages, ...(hasTools ? { tools: options.tools } : {}) };
  return {
    hasTools,
    spec,
    reasoning,
    maxTokens,
    sampling,
    messages: parts.messages,
    rewritten: parts.messages !== options.messages,
    render: {
      ...(parts.tools ? { tools: parts.tools } : {}),
      addGenerationPrompt: true,
      bosToken: model.bosToken,
      eosToken: model.eosToken,
      extra: { enable_thinking: reasoning },
      name: `chat template of ${model.path}`,
    },
  };
}

/** The rest, once the prompt is rendered: the request resolved and the grammar IR (when masked). */
function finishChat(model: ChatModel, options: GenerateOptions, c: ChatStart, prompt: string): PreparedChat {
  const { spec, hasTools, reasoning } = c;
  // The one place a chat request's options are resolved; everything after takes `resolved`.
  const resolved =
    spec &&
    resolveRequest({
      dialect: spec,
      tools: hasTools ? options.tools : [],
      ...(options.toolChoice !== undefined ? { toolChoice: options.toolChoice } : {}),
      ...(options.parallelToolCalls !== undefined ? { parallelToolCalls: options.parallelToolCalls } : {}),
      ...(options.maxValueLength !== undefined ? { maxValueLength: options.maxValueLength } : {}),
      ...(options.strictFormats !== undefined ? { strictFormats: options.strictFormats } : {}),
      ...(options.responseFormat !== undefined ? { responseFormat: options.responseFormat } : {}),
      reasoning: promptOpensThought(prompt, spec) ? ("forced-open" as const) : reasoning && !!spec.reasoning,
    });
  const masked = options.mask !== false && resolved !== undefined;
  // Calls are masked for when a call may name a tool (tool_choice "none" allows none).
  if (masked && resolved.tools.length > 0) assertDialectFits(model.vocabulary, resolved.spec);
  return {
    prompt,
    maxTokens: c.maxTokens,
    spec,
    resolved,
    ir: masked ? buildToolGrammar(resolved) : undefined,
    sampling: c.sampling,
    notices: resolved ? toolNotices(resolved.declared, resolved.outputFormat) : [],
  };
}

/** Checks `options` against `model` and renders the prompt on this thread; builds the grammar IR when masked. */
export function prepareChat(model: ChatModel, options: GenerateOptions): PreparedChat {
  const c = startChat(model, options);
  const render = (messages: ChatMessage[]) =>
    renderChat(model.chatTemplate, { ...c.render, messages: templateMessages(messages) });
  return finishChat(model, options, c, renderWithSystemFallback(render, c.messages, c.rewritten));
}

/**
 * prepareChat with the template rendered on a worker thread (src/templates/render-thread.ts): the
 * event loop keeps serving while a long conversation renders. The same prompt and the same errors.
 */
export async function prepareChatAsync(model: ChatModel, options: GenerateOptions): Promise<PreparedChat> {
  const c = startChat(model, options);
  const render = (messages: ChatMessage[]) =>
    renderChatOffThread(model.chatTemplate, { ...c.render, messages: templateMessages(messages) });
  return finishChat(model, options, c, await renderWithSystemFallbackAsync(render, c.messages, c.rewritten));
}

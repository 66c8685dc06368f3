// A chat-completions request body, checked field by field, into generate()'s options. Each refusal
// names the field (OpenAI's `param`) and says what would be accepted; fields that would change the
// answer's shape and are not supported (n > 1, logprobs) are refused rather
// than silently ignored.
import type { ModelBounds } from "../../engine/chat-backend.js";
import type { GenerateOptions } from "../../engine/generate.js";
import type { ToolChoice } from "../../dialects/tools.js";
import { choiceMode, choiceName, toolChoiceProblem } from "../../dialects/tool-choice.js";
import type { ChatMessage } from "../../templates/render.js";
import { readExactJson } from "../../parser/exact-json.js";
import { invalidParam } from "../errors.js";
import { refuseIllFormed } from "../well-formed.js";
import { refuseDeep } from "../nesting.js";
import { chatResponseFormat } from "../response-format.js";
import {
  bool,
  content,
  declaredNames,
  INT32_MAX,
  integer,
  MAX_STOPS,
  number,
  promptList,
  refuseNoParts,
} from "../fields.js";
import { given, isObj, kind, shown, type Obj } from "../values.js";

export interface CompletionRequest {
  options: Omit<GenerateOptions, "signal">;
  stream: boolean;
  includeUsage: boolean;
}

const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

function toolCalls(v: unknown, where: string): ChatMessage["tool_calls"] {
  if (!given(v)) return undefined;
  if (!Array.isArray(v)) throw invalidParam(where, `${where} must be an array`, "invalid_type");
  return v.map((call, j) => {
    const w = `${where}[${j}]`;
    if (!isObj(call) || !isObj(call.function) || typeof call.function.name !== "string")
      throw invalidParam(w, `${w} must be {"id", "type": "function", "function": {"name", "arguments"}}`);
    const args = call.function.arguments;
    if (typeof args === "string" && args.trim() !== "") {
      refuseDeep(args, `${w}.function.arguments`);
      // Read as the prompt will show them: a repeated key or a number a double changes is refused.
      const read = readExactJson(args);
      if ("error" in read)
        throw invalidParam(
          `${w}.function.arguments`,
          read.json
            ? `${w}.function.arguments: ${read.error}; the prompt could not show them as sent`
            : `${w}.function.arguments must be a JSON object string`,
        );
    } else if (given(args) && typeof args !== "string" && !isObj(args)) {
      throw invalidParam(
        `${w}.function.arguments`,
        `${w}.function.arguments must be a JSON object string`,
        "invalid_type",
      );
    }
    return call as NonNullable<ChatMessage["tool_calls"]>[number];
  });
}

function messages(v: unknown, contextSize: number): ChatMessage[] {
  const list = promptList(v, "messages", "a non-empty array of {role, content}", "messages", contextSize);
  // The tool messages since the last assistant message, by the call they answer: one per call, as
  // OpenAI holds them to ("Duplicate value for 'tool_call_id'"), and /v1/messages and /v1/responses
  // do; a template would show the model two answers to one call. An id may come again in a later
  // turn (a call of its own: some servers number each answer's calls from 0).
  let answered = new Map<string, number>();
  return list.map((m, i) => {
    const where = `messages[${i}]`;
    if (!isObj(m))
      throw invalidParam(where, `${where} must be an object {role, content}, got ${kind(m)}`, "invalid_type");
    if (typeof m.role !== "string" || !ROLES.has(m.role))
      throw invalidParam(
        `${where}.role`,
        `${where}.role must be one of ${[...ROLES].join(", ")}, got ${shown(m.role)}`,
      );
    if (m.role === "assistant") answered = new Map();
    if (m.role === "tool" && typeof m.tool_call_id === "string") {
      const before = answered.get(m.tool_call_id);
      if (before !== undefined)
        throw invalidParam(
          `${where}.tool_call_id`,
          `${where}.tool_call_id ${shown(m.tool_call_id)} is answered twice: messages[${before}] answers it too; send one tool message per tool call`,
        );
      answered.set(m.tool_call_id, i);
    }
    // Chat templates know "system"; "developer" is OpenAI's newer name for it.
    const out: ChatMessage = { ...m, role: m.role === "developer" ? "system" : m.role };
    refuseNoParts(m.content, where);
    const c = content(m.content, `${where}.content`);
    if (c !== undefined) out.content = c;
    const calls = toolCalls(m.tool_calls, `${where}.tool_calls`);
    if (calls !== undefined) out.tool_calls = calls;
    return out;
  });
}

function tools(v: unknown): unknown[] | undefined {
  if (!given(v)) return undefined;
  if (!Array.isArray(v))
    throw invalidParam(
      "tools",
      `tools must be an array of {"type": "function", "function": {…}}, got ${kind(v)}`,
      "invalid_type",
    );
  v.forEach((t, i) => {
    if (!isObj(t) || t.type !== "function" || !isObj(t.function) || typeof t.function.name !== "string")
      throw invalidParam(`tools[${i}]`, `tools[${i}] must be {"type": "function", "function": {"name", "parameters"}}`);
  });
  refuseIllFormed(v, "tools");
  return v;
}

function toolChoice(v: unknown, declared: unknown[] | undefined): ToolChoice | undefined {
  if (!given(v)) return undefined;
  const names = (declared ?? []).map((t) => ((t as Obj).function as Obj).name as string);
  let choice: ToolChoice;
  if (v === "auto" || v === "none" || v === "required") choice = v;
  else if (isObj(v) && v.type === "function" && isObj(v.function) && typeof v.function.name === "string")
    choice = { type: "function", function: { name: v.function.name } };
  else
    throw invalidParam(
      "tool_choice",
      `tool_choice must be "auto", "none", "required" or {"type": "function", "function": {"name"}}, got ${shown(v)}`,
    );
  const problem = toolChoiceProblem(choiceMode(choice), names, choiceName(choice));
  if (problem?.rule === "needs-tools")
    throw invalidParam(
      "tool_choice",
      `tool_choice ${v === "required" ? '"required"' : '{"type": "function"}'} needs tools; declare at least one in tools`,
    );
  if (problem?.rule === "undeclared")
    throw invalidParam(
      "tool_choice",
      `tool_choice names ${shown(problem.name)}, which is not among the declared tools (${declaredNames(names)})`,
    );
  return choice;
}

function stop(v: unknown): string[] | undefined {
  if (!given(v)) return undefined;
  const list = typeof v === "string" ? [v] : v;
  if (!Array.isArray(list) || list.length > MAX_STOPS || list.some((s) => typeof s !== "string" || s.length === 0))
    throw invalidParam("stop", `stop must be a non-empty string or an array of at most ${MAX_STOPS} of them`);
  return list as string[];
}

function logitBias(v: unknown, vocabSize: number): Record<number, number> | undefined {
  if (!given(v)) return undefined;
  if (!isObj(v))
    throw invalidParam("logit_bias", `logit_bias must be an object of token id → bias, got ${kind(v)}`, "invalid_type");
  const out: Record<number, number> = {};
  // Object.keys, not Object.entries: on an object of 300,000 integer keys entries took 260 ms, keys 30.
  const keys = Object.keys(v);
  // More keys than tokens cannot all be token ids: refused before any is read.
  if (keys.length > vocabSize)
    throw invalidParam(
      "logit_bias",
      `logit_bias has ${keys.length} keys, more than this model's ${vocabSize} tokens; send at most one bias per token id (0..${vocabSize - 1})`,
    );
  for (const key of keys) {
    const bias = v[key];
    const id = Number(key);
    if (!/^\d+$/.test(key) || id >= vocabSize)
      throw invalidParam(
        "logit_bias",
        `logit_bias: ${shown(key)} is not a token id of this model (0..${vocabSize - 1})`,
      );
    if (typeof bias !== "number" || !Number.isFinite(bias) || bias < -100 || bias > 100)
      throw invalidParam("logit_bias", `logit_bias["${key}"] must be a number from -100 to 100, got ${shown(bias)}`);
    out[id] = bias;
  }
  return out;
}

/** OpenAI seeds are any integer; the sampler takes 32 bits. Same seed in, same seed out. */
function seed(body: Obj): number | undefined {
  const v = body.seed;
  if (!given(v)) return undefined;
  if (typeof v !== "number" || !Number.isSafeInteger(v))
    throw invalidParam(
      "seed",
      `seed must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, got ${shown(v)}`,
    );
  return ((v % 2 ** 32) + 2 ** 32) % 2 ** 32;
}

function refuseUnsupported(body: Obj): void {
  if (given(body.n) && body.n !== 1)
    throw invalidParam("n", "n must be 1: this server returns one choice per request", "unsupported_value");
  if (given(body.logprobs) && body.logprobs !== false)
    throw invalidParam("logprobs", "logprobs are not supported by this server", "unsupported_value");
  for (const key of ["frequency_penalty", "presence_penalty"]) {
    const v = number(body, key, -2, 2);
    if (v !== undefined && v !== 0)
      throw invalidParam(key, `${key} is not supported by this server (use repeat_penalty)`, "unsupported_value");
  }
}

export function parseCompletionRequest(body: unknown, { vocabSize, contextSize }: ModelBounds): CompletionRequest {
  if (!isObj(body))
    throw invalidParam("body", `the request body must be a JSON object, got ${kind(body)}`, "invalid_type");
  if (given(body.model) && typeof body.model !== "string")
    throw invalidParam("model", "model must be a string", "invalid_type");
  refuseUnsupported(body);
  const declared = tools(body.tools);
  const options: Omit<GenerateOptions, "signal"> = { messages: messages(body.messages, contextSize) };
  if (declared && declared.length > 0) options.tools = declared;
  const choice = toolChoice(body.tool_choice, declared);
  if (choice !== undefined) options.toolChoice = choice;
  const parallel = bool(body, "parallel_tool_calls");
  if (parallel !== undefined) options.parallelToolCalls = parallel;
  // llama-server's name: false decodes the whole prompt, neither read from nor left in the prompt cache.
  const cachePrompt = bool(body, "cache_prompt");
  if (cachePrompt !== undefined) options.cachePrompt = cachePrompt;
  const format = chatResponseFormat(body.response_format);
  if (format) options.responseFormat = format;
  const maxTokens = integer(body, "max_completion_tokens", 1, INT32_MAX) ?? integer(body, "max_tokens", 1, INT32_MAX);
  if (maxTokens !== undefined) options.maxTokens = maxTokens;
  const extras: Array<[keyof GenerateOptions, number | undefined]> = [
    ["temperature", number(body, "temperature", 0, 2)],
    ["topP", number(body, "top_p", 0, 1)],
    // llama.cpp server's names for the samplers OpenAI lacks.
    ["topK", integer(body, "top_k", 1, INT32_MAX)],
    ["minP", number(body, "min_p", 0, 1)],
    ["repeatPenalty", number(body, "repeat_penalty", 0, 10)],
    ["seed", seed(body)],
  ];
  for (const [k, v] of extras) if (v !== undefined) (options as Record<string, unknown>)[k] = v;
  const stops = stop(body.stop);
  if (stops) options.stop = stops;
  const bias = logitBias(body.logit_bias, vocabSize);
  if (bias) options.logitBias = bias;
  const kwargs = body.chat_template_kwargs;
  if (given(kwargs) && !isObj(kwargs))
    throw invalidParam("chat_template_kwargs", "chat_template_kwargs must be an object", "invalid_type");
  if (isObj(kwargs) && given(kwargs.enable_thinking)) options.reasoning = kwargs.enable_thinking === true;

  const stream = bool(body, "stream") ?? false;
  const so = body.stream_options;
  if (given(so) && (!stream || !isObj(so)))
    throw invalidParam(
      "stream_options",
      stream ? "stream_options must be an object" : "stream_options is only allowed when stream is true",
    );
  const includeUsage = isObj(so) ? (bool(so, "include_usage") ?? false) : false;
  return { options, stream, includeUsage };
}

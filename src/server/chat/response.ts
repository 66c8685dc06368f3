// The response bodies, in the exact shapes OpenAI's chat-completions API returns and streams.
import { randomUUID } from "node:crypto";
import type { GenerateResult } from "../../engine/generate.js";
import type { StreamDelta } from "../../engine/stream.js";
import { toolmaskField } from "../toolmask-field.js";

export interface ResponseMeta {
  id: string;
  created: number;
  model: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Of prompt_tokens, those reused from the prompt cache (GenerateOptions.cachePrompt); absent from a gateway. */
  prompt_tokens_details?: { cached_tokens: number };
}

export function newMeta(model: string): ResponseMeta {
  return { id: `chatcmpl-${randomUUID().replaceAll("-", "")}`, created: Math.floor(Date.now() / 1000), model };
}

export function usageOf(r: GenerateResult): Usage {
  const { prompt_tokens, completion_tokens, prompt_tokens_details } = r.usage;
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    ...(prompt_tokens_details ? { prompt_tokens_details: { cached_tokens: prompt_tokens_details.cached_tokens } } : {}),
  };
}

export function completionBody(meta: ResponseMeta, r: GenerateResult) {
  const m = r.message;
  const message = {
    role: "assistant" as const,
    content: m.content,
    refusal: null,
    ...(m.reasoning_content !== undefined ? { reasoning_content: m.reasoning_content } : {}),
    ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
  };
  return {
    id: meta.id,
    object: "chat.completion" as const,
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: r.finishReason }],
    usage: usageOf(r),
    ...toolmaskField(r),
  };
}

/** One streamed chunk; with include_usage every chunk carries `usage: null`, as OpenAI's do. */
export function chunkBody(meta: ResponseMeta, delta: StreamDelta, finishReason: string | null, includeUsage: boolean) {
  return {
    id: meta.id,
    object: "chat.completion.chunk" as const,
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The last chunk before [DONE] under stream_options.include_usage: no choices, the usage. */
export function usageChunkBody(meta: ResponseMeta, usage: Usage) {
  return {
    id: meta.id,
    object: "chat.completion.chunk" as const,
    created: meta.created,
    model: meta.model,
    choices: [],
    usage,
  };
}

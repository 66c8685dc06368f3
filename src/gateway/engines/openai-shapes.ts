// What the OpenAI-shaped answers of vLLM's /v1/completions and any /v1/chat/completions share:
// choices[0], its finish_reason, the usage, and the usage-only last event of a stream with
// stream_options.include_usage (the finish seen before it is kept in the stream's state).
import { isObj, type Obj, type StreamState, type UpstreamEnd } from "./types.js";

export function endOfChoice(choice: Obj, usage: unknown): UpstreamEnd {
  const u = isObj(usage) ? usage : {};
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  return {
    finish: choice.finish_reason === "length" ? "length" : "stop",
    promptTokens: num(u.prompt_tokens),
    completionTokens: num(u.completion_tokens),
    appliedGrammar: undefined,
    tokens: undefined,
  };
}

/** The usage-only last event: the end, from the finish seen before it; undefined for any other event. */
export function usageOnlyEnd(data: unknown, state: StreamState): { end?: UpstreamEnd } | undefined {
  if (!isObj(data) || !Array.isArray(data.choices) || data.choices.length > 0) return undefined;
  return isObj(state.finish) ? { end: endOfChoice(state.finish, data.usage) } : {};
}

/** A choice's finish: kept in `state`, and the end when the event also carries the usage. */
export function finishOf(choice: Obj, data: unknown, state: StreamState): UpstreamEnd | undefined {
  if (choice.finish_reason === null || choice.finish_reason === undefined) return undefined;
  state.finish = choice;
  const usage = isObj(data) ? data.usage : undefined;
  return isObj(usage) ? endOfChoice(choice, usage) : undefined;
}

/** The end of a stream that closed after a finish but without the usage event. */
export function endOfStream(state: StreamState): UpstreamEnd | undefined {
  return isObj(state.finish) ? endOfChoice(state.finish, undefined) : undefined;
}

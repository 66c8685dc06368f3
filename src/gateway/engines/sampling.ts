// generate()'s sampling options as each engine's request fields. Defaults are generate()'s own
// (native/llama/generation.hpp: temperature 0.8, top_k 40, top_p 0.95, min_p 0.05, seed 0), sent
// explicitly so an engine's different defaults (vLLM: top_k off, min_p 0) never apply.
import type { RequestContext } from "./types.js";

export interface Sampling {
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  repeatPenalty: number | undefined;
  seed: number;
  stop: string[];
  maxTokens: number;
  logitBias: Array<[number, number]>;
}

export function samplingOf(ctx: RequestContext): Sampling {
  const s = ctx.chat.sampling;
  const stop = ctx.options.stop;
  return {
    temperature: s.temperature ?? 0.8,
    topK: s.topK ?? 40,
    topP: s.topP ?? 0.95,
    minP: s.minP ?? 0.05,
    repeatPenalty: s.repeatPenalty,
    seed: s.seed ?? 0,
    stop: stop === undefined ? [] : typeof stop === "string" ? [stop] : [...stop],
    maxTokens: ctx.chat.maxTokens,
    logitBias: s.logitBias ?? [],
  };
}

/** `{ key: value }` for each value that is set. */
export function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

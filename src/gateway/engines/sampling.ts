// generate()'s sampling options as each engine's request fields. Defaults are generate()'s own
// (temperature 0.8, seed 0), sent explicitly so an engine's different defaults never apply.
import type { RequestContext } from "./types.js";

export interface Sampling {
  temperature: number;
  topK: number | undefined;
  topP: number | undefined;
  minP: number | undefined;
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
    topK: s.topK,
    topP: s.topP,
    minP: s.minP,
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

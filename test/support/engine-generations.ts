// Every generation the native engine runs in this process, as the engine itself reports it: the
// addon's llamaGenerate wrapped so that each call and its settled result are recorded, the real
// engine running underneath. For tests that show from the engine's own account what a timing
// would only suggest: that a generation stopped when its client left (finishReason "aborted",
// tokensAfterAbort — the tokens it sampled after abort() was called — at most 1), that none holds
// a sequence any more, that one was submitted while every sequence was taken.
import { loadNative, type NativeGenerationResult } from "../../src/native.js";

/** Nothing of the request is kept (its grammar, its prompt): a record holds no memory of note. */
export interface EngineGeneration {
  maxTokens: number;
  /** The request's seed: which generation this is, where several run. */
  seed: number | undefined;
  /** Set once the engine settled it. */
  result?: NativeGenerationResult;
  error?: unknown;
  /** Generations running in the engine (submitted and not settled) when this one was submitted. */
  runningAtStart: number;
}

export interface EngineGenerations {
  /** In the order they were submitted. */
  readonly all: readonly EngineGeneration[];
  /** Submitted and not settled. */
  running(): number;
  /** Puts the addon's own llamaGenerate back. */
  restore(): void;
}

/** Records every generation submitted from now on, until restore(). */
export function watchEngineGenerations(): EngineGenerations {
  const addon = loadNative();
  const original = addon.llamaGenerate;
  const all: EngineGeneration[] = [];
  let running = 0;
  addon.llamaGenerate = (model, request, onTokens) => {
    const handle = original.call(addon, model, request, onTokens);
    const g: EngineGeneration = { maxTokens: request.maxTokens, seed: request.seed, runningAtStart: running };
    all.push(g);
    running++;
    handle.done.then(
      (result) => {
        g.result = result;
        running--;
      },
      (error: unknown) => {
        g.error = error;
        running--;
      },
    );
    return handle;
  };
  return { all, running: () => running, restore: () => void (addon.llamaGenerate = original) };
}

/**
 * Why `g` is not a generation the engine stopped on an abort within one token (undefined: it is):
 * it has not settled, it failed, it ended otherwise, or it sampled more than one token after abort().
 */
export function notStoppedOnAbort(g: EngineGeneration): string | undefined {
  if (g.error !== undefined) return `failed: ${String(g.error)}`;
  const r = g.result;
  if (r === undefined) return "still running";
  if (r.finishReason !== "aborted") return `ended ${r.finishReason} after ${r.tokens.length} tokens`;
  if (r.tokensAfterAbort < 0 || r.tokensAfterAbort > 1) return `${r.tokensAfterAbort} tokens after abort()`;
  return undefined;
}

// Token prompts straight to the engine (no chat template), for the prompt cache's tests on the test
// model: test models with empty slots, seeded token ids, a greedy run of a few tokens, the next
// turn's prompt.
import { afterAll } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { testModelPath } from "./test-model.js";
import { loadNative, type NativeGenerationRequest, type NativeGenerationResult } from "../../src/native.js";

/** Tokens each run decodes. */
export const OUT = 8;

/** `n` ordinary token ids from a seed (no two seeds share a first token in practice). */
export function seededTokens(seed: number, n: number): number[] {
  let x = seed * 7919 + 17;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return 1000 + (x % 90_000);
  });
}

/** The prompt as token ids straight to the engine, greedy, OUT tokens. */
export function runTokens(model: LlamaModel, prompt: number[], o: Partial<NativeGenerationRequest> = {}) {
  const request = { prompt: "", promptTokens: Int32Array.from(prompt), maxTokens: OUT, temperature: 0, ...o };
  return loadNative().llamaGenerate(model.native, request, () => {}).done;
}

/** The next turn's prompt: `prompt`, its output, then `more`. */
export const nextTurn = (prompt: number[], r: NativeGenerationResult, more: number[]) => [
  ...prompt,
  ...r.tokens,
  ...more,
];

/**
 * A loader of test models with slots of their own (empty at first), each disposed after the file's
 * tests; `exactPrompts` as LoadModelOptions says (default true).
 */
export function freshTestModels(): (parallel: number, exactPrompts?: boolean) => Promise<LlamaModel> {
  const loaded: LlamaModel[] = [];
  afterAll(() => {
    for (const m of loaded) m.dispose();
  });
  return async (parallel, exactPrompts = true) => {
    const m = await loadModel({ path: testModelPath(), threads: 1, parallel, contextSize: 2048, exactPrompts });
    loaded.push(m);
    return m;
  };
}

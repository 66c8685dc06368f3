// The engine with exactPrompts false (LoadModelOptions; `toolmask serve --no-exact-prompts`), on the
// random-weight test model: llama-server's way. A finished sequence leaves its prompt AND the answer
// it decoded in its slot, a new prompt reuses any common prefix (no 64-row rule, the previous
// answer's rows included), and every sequence's tokens and prompt chunks go in one llama_decode a
// step. Logits may differ from a fresh decode in their last bits; on this model greedy picks cannot
// flip from rounding (its smallest top-1/top-2 logit gap is 32.8, docs/decoding.md), so equal
// tokens with and without the cache show no wrong or stale KV cell.
import { describe, expect, it } from "vitest";
import { loadModel } from "../../src/engine/model.js";
import { freshTestModels, nextTurn, OUT, runTokens, seededTokens } from "../support/engine-prompts.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutFor } from "../support/timeouts.js";

const models = freshTestModels();
const fresh = (parallel: number, exactPrompts = false) => models(parallel, exactPrompts);

const tokens = seededTokens;
const run = runTokens;
const next = nextTurn;

const WORK = timeoutFor({ decode: 12 * 48, prompt: 12 * 700, requests: 12 });

describe("exactPrompts false: any cached prefix is reused, the answer's rows included", () => {
  it(
    "the next turn reuses the prompt and the answer's decoded tokens (all but the last, never decoded)",
    async () => {
      const m = await fresh(1);
      const p1 = tokens(1, 300);
      const r1 = await run(m, p1);
      expect(r1.tokens).toHaveLength(OUT);
      const p2 = next(p1, r1, tokens(2, 100));
      const r2 = await run(m, p2);
      expect(r2.promptCachedTokens).toBe(p1.length + OUT - 1);
      expect(r2.tokens).toEqual((await run(m, p2, { cachePrompt: false })).tokens);
      // The exact engine decodes the answer's rows again.
      const exact = await fresh(1, true);
      await run(exact, p1);
      expect((await run(exact, p2)).promptCachedTokens).toBe(p1.length);
    },
    WORK,
  );

  it(
    "a short addition decodes only itself, and a repeated prompt only its last token",
    async () => {
      const m = await fresh(1);
      const p1 = tokens(3, 300);
      const r1 = await run(m, p1);
      const p2 = [...p1, ...tokens(4, 10)];
      const r2 = await run(m, p2);
      expect(r2.promptCachedTokens).toBe(p1.length);
      const again = await run(m, p1);
      expect(again.promptCachedTokens).toBe(p1.length - 1);
      expect(again.tokens).toEqual(r1.tokens);
      expect(r2.tokens).toEqual((await run(m, p2, { cachePrompt: false })).tokens);
    },
    WORK,
  );

  it(
    "sequences read their prompts in shared decodes and each gives the tokens it gives alone",
    async () => {
      const m = await fresh(3);
      const prompts = [tokens(5, 400), tokens(6, 150), tokens(7, 700)];
      const together = await Promise.all(prompts.map((p) => run(m, p, { cachePrompt: false })));
      const solo = await fresh(1);
      for (const [i, p] of prompts.entries()) {
        const alone = await run(solo, p, { cachePrompt: false });
        expect(together[i]!.tokens, `prompt ${i}`).toEqual(alone.tokens);
      }
    },
    WORK,
  );

  it("exactPrompts must be a boolean: a TypeError before the weights load", async () => {
    await expect(loadModel({ path: testModelPath(), exactPrompts: "no" as never })).rejects.toThrow(
      new TypeError('exactPrompts must be true or false, got "no"'),
    );
  });
});

// The grammar caches count what their grammars really hold. Generations with tool schemas of their
// own grow their grammars after they are cached (the background precompute, the masks of the states
// the walk meets, the token-budget tables of a short maxTokens); the bytes the caches count once
// those are measured again must be the bytes the C library's allocator frees when the caches let
// them go (glibc's mallinfo2, every arena). The count used to be 136 MB where 535 MB were held (40
// such generations): grammars were measured once, when cached, and each state's token successors
// kept the walk's vector with room for every run of tokens (up to hundreds of KiB per state).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { generate } from "../../src/engine/generate.js";
import { MaxTokensTooSmallError } from "../../src/engine/errors.js";
import {
  DEFAULT_GRAMMAR_CACHE_BYTES,
  grammarCache,
  setGrammarCacheBytes,
  valueGrammarCache,
} from "../../src/grammar/cache.js";
import { loadNative } from "../../src/native.js";
import { testModelPath } from "../support/test-model.js";
import { variedTools } from "../../scripts/lib/varied-requests.mjs";

const GENERATIONS = 16;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const inUse = () => loadNative().nativeHeap().inUseBytes;
const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
});
afterAll(() => {
  setGrammarCacheBytes(DEFAULT_GRAMMAR_CACHE_BYTES);
  model?.dispose();
});

describe("the bytes the grammar caches count", () => {
  it.runIf(process.platform === "linux")(
    `are what the allocator frees when they let go, after ${GENERATIONS} generations with schemas of their own`,
    async () => {
      expect(loadNative().nativeHeap().known).toBe(true); // glibc 2.33+
      setGrammarCacheBytes(2 ** 40); // nothing evicted while counting
      await generate(model, { messages: [{ role: "user", content: "hi" }], maxTokens: 4 }); // the engine's own buffers
      grammarCache.clear();
      valueGrammarCache.clear();
      for (let i = 0; i < GENERATIONS; i++) {
        const tools = variedTools(3, i).map((t) => ({ type: "function" as const, function: t }));
        try {
          await generate(model, {
            messages: [{ role: "user", content: `request ${i}` }],
            tools,
            toolChoice: i % 2 ? "required" : "auto",
            maxTokens: 48, // under 64: the token-budget tables are built along the walk
            dialect: "qwen3-coder",
            seed: i,
          });
        } catch (e) {
          if (!(e instanceof MaxTokensTooSmallError)) throw e;
        }
      }
      // The background precompute may still be adding masks: measure until nothing grows.
      for (let i = 0; i < 100 && grammarCache.remeasure(); i++) await sleep(100);
      valueGrammarCache.remeasure();
      const counted = grammarCache.bytes + valueGrammarCache.bytes;
      const before = inUse();
      // Everything goes: the cached grammars, and the shapes they held (no idle shape kept).
      loadNative().setShapeCacheIdleBytes(0);
      grammarCache.clear();
      valueGrammarCache.clear();
      await sleep(200); // the prefetch thread lets go of what it held
      const freed = before - inUse();
      const ratio = counted / freed;
      expect(freed, `freed ${mb(freed)}`).toBeGreaterThan(16 * 2 ** 20);
      // Shapes shared by several grammars count in full in each (an upper bound): counted may exceed freed.
      expect(
        ratio >= 0.85 && ratio <= 1.5,
        `counted ${mb(counted)}, the allocator freed ${mb(freed)} (ratio ${ratio.toFixed(2)})`,
      ).toBe(true);
    },
    600_000,
  );
});

// The decode thread never waits on another thread's work at a grammar's lock
// (native/core/grammar_lock.hpp): the mask-prefetch thread builds masks, budget searches and the
// background precompute while the model runs its forward pass, and lets go of the lock at its next
// check when the decode thread asks for it. The native result counts the decode thread's
// contended acquisitions (maskLockWaits): `waits` (the holder ran its work to the end) must stay 0;
// `handoffs` (the prefetch thread let go) and `joins` (it was making the very mask and budget the
// decode thread asked for, and was let finish) are printed. Grammars compiled anew (every mask cold, the
// precompute running), with the token budget acting (maxTokens 60, below its horizon of 64), one sequence and four
// sharing one grammar, both test-model dialects, with and without fast-forward.
import { beforeAll, expect, it } from "vitest";
import { prepareGeneration, runGeneration, type GenerateOptions } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { grammarCache } from "../../src/grammar/cache.js";
import type { NativeGenerationResult } from "../../src/native.js";
import { TOOLS } from "../../scripts/lib/real-cases.mjs";
import { testModelPath } from "../support/test-model.js";
import { timeoutForMeasured } from "../support/timeouts.js";

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false, parallel: 4 });
});

// Every tool of the real-model suite (14): many states, whose masks take long to build.
const tools = Object.values(TOOLS);
// <tool_call> pushed: the answers are calls (new states at every step), text stays short.
const dialects: Array<Partial<GenerateOptions>> = [
  { dialect: "hermes", logitBias: { 151657: 100 } },
  { dialect: "qwen3-coder", logitBias: { 151657: 100 } },
];
const request = (o: Partial<GenerateOptions>, seed: number, fastForward: boolean): GenerateOptions => ({
  messages: [{ role: "user", content: "Do it" }],
  tools,
  seed,
  maxTokens: 60,
  temperature: 1,
  toolChoice: "required",
  parallelToolCalls: true,
  maxValueLength: 8,
  fastForward,
  ...o,
});

async function run(o: GenerateOptions): Promise<NativeGenerationResult> {
  return runGeneration(model, await prepareGeneration(model, o), undefined, () => {});
}

const RUNS = dialects.length * 2 * (3 + 4);
it(
  "the decode thread waits on no other thread's work at the grammar lock",
  async () => {
    const seen: Array<{ name: string; waits: number; handoffs: number; joins: number; waitMicros: number }> = [];
    const note = (name: string, r: NativeGenerationResult) =>
      seen.push({
        name,
        waits: r.maskLockWaits.waits,
        handoffs: r.maskLockWaits.handoffs,
        joins: r.maskLockWaits.joins,
        waitMicros: Math.round(r.maskLockWaits.waitNanos / 1000),
      });
    for (const o of dialects)
      for (const fastForward of [false, true]) {
        for (const seed of [1, 2, 3]) {
          grammarCache.clear(); // compiled anew: every mask cold, the precompute starting
          note(`${o.dialect} ff=${fastForward} seed ${seed}`, await run(request(o, seed, fastForward)));
        }
        grammarCache.clear();
        const together = await Promise.all([4, 5, 6, 7].map((seed) => run(request(o, seed, fastForward))));
        together.forEach((r, i) => note(`${o.dialect} ff=${fastForward} together ${i}`, r));
      }
    console.log(
      seen
        .map((s) => `${s.name}: waits ${s.waits}, handoffs ${s.handoffs}, joins ${s.joins}, ${s.waitMicros} µs`)
        .join("\n"),
    );
    expect(seen.length).toBe(RUNS);
    expect(seen.filter((s) => s.waits > 0)).toEqual([]);
  },
  // 50–107 s measured alone at a load average of 13–19 on 2 cores (1,680 tokens, grammars compiled anew).
  timeoutForMeasured(110_000),
);

// Loop fragments' masks (string contents, free text, numbers) are cached per vocabulary: a second
// tool set with the same parameter shapes builds none of them again, its masks are the masks it gets
// with nothing cached, and a grammar's precompute goes on in the background after compile returns.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, compileGrammar, grammarCache, literal, seq, until, Vocabulary } from "../../src/index.js";
import { until as waitUntil } from "../support/until.js";
import { masksAlong } from "../support/masks-along.js";
import { QWEN3_TOKENIZER, qwen3 } from "../support/vocabs.js";

const fn = (name: string, properties: Record<string, object>) => ({
  type: "function" as const,
  function: { name, parameters: { type: "object", properties, required: Object.keys(properties) } },
});
const tools = (prefix: string) => [
  fn(`${prefix}_read`, { path: { type: "string" } }),
  fn(`${prefix}_write`, { path: { type: "string" }, content: { type: "string" }, mode: { type: "integer" } }),
];

/** The bitmask at every step of seeded random walks. */
function masksOf(vocab: Vocabulary, dialect: string, prefix: string): Buffer[] {
  const g = compileGrammar(buildToolGrammar({ dialect, tools: tools(prefix), toolChoice: "required" }), vocab, {
    precomputeStates: 0,
  });
  const out = masksAlong(g, { count: 6, seed: 11, maxTokens: 120 });
  g.dispose();
  return out;
}

describe("the per-vocabulary shape cache", () => {
  for (const dialect of ["hermes", "qwen3-coder"]) {
    it(`${dialect}: a second tool set reuses the first one's shapes and masks the same as with nothing cached`, () => {
      const vocab = qwen3();
      grammarCache.clear();
      vocab.clearShapeCache();
      expect(vocab.shapeCache.shapes).toBe(0);
      masksOf(vocab, dialect, "first");
      const after = vocab.shapeCache;
      expect(after.misses).toBeGreaterThan(0);
      const shared = masksOf(vocab, dialect, "second");
      expect(vocab.shapeCache.misses).toBe(after.misses); // no shape built again
      expect(vocab.shapeCache.hits).toBeGreaterThan(after.hits);
      // The same tool set on a vocabulary of its own (the same tokenizer, nothing cached).
      const alone = masksOf(Vocabulary.fromTokenizerJson(QWEN3_TOKENIZER), dialect, "second");
      expect(shared.length).toBe(alone.length);
      expect(shared.length).toBeGreaterThan(30);
      shared.forEach((m, i) => expect(m.equals(alone[i]!)).toBe(true));
      vocab.clearShapeCache();
      expect(vocab.shapeCache.shapes).toBe(0);
    });
  }
});

describe("the precompute after compile", () => {
  it("goes on in the background: a grammar nobody uses still gains masks, and dropping it at once is safe", async () => {
    const vocab = qwen3();
    grammarCache.clear();
    // Each state of a long literal is one step of the breadth-first precompute.
    const long = (tag: string) => seq(literal(`${tag}:${"abcdefghij".repeat(60)}`), until("</p>"));
    for (let i = 0; i < 20; i++) compileGrammar(long(`gone${i}`), vocab).dispose();
    grammarCache.clear(); // the cache's references go too: nothing holds those grammars now
    const g = compileGrammar(long("kept"), vocab);
    // The compile built the start state's mask (its tokens walk a few states ahead), not the rest.
    expect(g.compileStates).toBeLessThan(150);
    await waitUntil(() => g.stateCount >= 500);
    const m = g.createMatcher();
    expect(m.acceptString(`kept:${"abcdefghij".repeat(60)}text</p>`) && m.isComplete()).toBe(true);
    m.dispose();
    g.dispose();
  });
});

// The compiled-grammar cache: kept by content, bounded by bytes, evictions release their memory
// at once; compileGrammarAsync compiles off the JS thread; native limits surface as
// GrammarLimitError; dispose() releases a grammar or matcher without waiting for collection.
import { afterEach, describe, expect, it } from "vitest";
import {
  compileGrammar,
  compileGrammarAsync,
  DEFAULT_GRAMMAR_CACHE_BYTES,
  grammarCache,
  GrammarLimitError,
  literal,
  seq,
  setGrammarCacheBytes,
  until,
} from "../../src/index.js";
import { qwen3 } from "../support/vocabs.js";

afterEach(() => setGrammarCacheBytes(DEFAULT_GRAMMAR_CACHE_BYTES));

const bounded = (n: number) => seq(literal("<p>"), until("</p>", { maxLength: n }));

describe("the compiled-grammar cache", () => {
  it("shares one compiled grammar between compiles of the same content", () => {
    grammarCache.clear();
    const lazy = { precomputeStates: 0 }; // no time-bounded precompute: state counts are the walks' alone
    const a = compileGrammar(bounded(40), qwen3(), lazy);
    const b = compileGrammar(bounded(40), qwen3(), lazy);
    expect(grammarCache.size).toBe(1);
    const before = b.stateCount;
    const m = a.createMatcher();
    expect(m.acceptString("<p>some text that walks the automaton")).toBe(true);
    expect(b.stateCount).toBeGreaterThan(before); // b sees the states a's matcher built: one grammar
    expect(compileGrammar(bounded(41), qwen3(), lazy).stateCount).toBeLessThan(b.stateCount); // another content, another grammar
  });

  it("keeps the bytes it holds within its budget, evicting the least recently used", () => {
    grammarCache.clear();
    const one = compileGrammar(bounded(300), qwen3());
    const size = one.memoryBytes;
    one.dispose();
    setGrammarCacheBytes(size * 3);
    for (let i = 0; i < 20; i++) compileGrammar(bounded(300 + i), qwen3()).dispose();
    expect(grammarCache.size).toBeLessThanOrEqual(4);
    expect(grammarCache.bytes).toBeLessThanOrEqual(size * 3 * 1.1 + size);
    // The most recent ones are still cached: compiling again is a hit that adds nothing.
    const n = grammarCache.size;
    compileGrammar(bounded(319), qwen3()).dispose();
    expect(grammarCache.size).toBe(n);
  });

  it("measures cached grammars again as they grow after caching, and evicts past the budget", async () => {
    grammarCache.clear();
    const lazy = { precomputeStates: 0 };
    const a = compileGrammar(bounded(300), qwen3(), lazy);
    const cachedAt = grammarCache.bytes;
    expect(cachedAt).toBe(a.memoryBytes);
    // A walk through it builds states and masks: the grammar grows while it sits in the cache.
    const m = a.createMatcher();
    const mask = m.allocateBitmask();
    expect(m.acceptString("<p>")).toBe(true);
    for (let i = 0; i < 40; i++) {
      m.fillNextTokenBitmask(mask);
      expect(m.acceptString("x")).toBe(true);
    }
    m.dispose();
    const grown = a.memoryBytes;
    expect(grown).toBeGreaterThan(cachedAt * 2);
    // Caching another grammar measures the first again: the cache's bytes are what both hold now.
    const b = compileGrammar(bounded(301), qwen3(), lazy);
    expect(grammarCache.bytes).toBe(grown + b.memoryBytes);
    // A generation's end (settleSoon) measures again too, and evicts what no longer fits.
    const m2 = b.createMatcher();
    expect(m2.acceptString("<p>")).toBe(true);
    for (let i = 0; i < 40; i++) {
      m2.fillNextTokenBitmask(mask);
      expect(m2.acceptString("y")).toBe(true);
    }
    m2.dispose();
    grammarCache.maxBytes = grown + cachedAt * 2; // both fitted as cached; b has grown past it since
    expect(grammarCache.size).toBe(2);
    grammarCache.settleSoon();
    await new Promise((r) => setImmediate(r));
    expect(grammarCache.size).toBe(1); // the least recently used (a) went
    expect(grammarCache.bytes).toBe(b.memoryBytes);
    a.dispose();
    b.dispose();
  });

  it("lets a caller keep using a grammar the cache has evicted", () => {
    grammarCache.clear();
    const kept = compileGrammar(bounded(10), qwen3());
    setGrammarCacheBytes(0); // evicts everything
    expect(grammarCache.size).toBe(0);
    const m = kept.createMatcher();
    expect(m.acceptString("<p>hi</p>")).toBe(true);
    expect(m.isComplete()).toBe(true);
  });

  it("releases on dispose(): a disposed grammar throws, its matchers keep working", () => {
    const g = compileGrammar(bounded(12), qwen3());
    const m = g.createMatcher();
    g.dispose();
    expect(() => g.createMatcher()).toThrow(/disposed/);
    expect(() => g.stateCount).toThrow(/disposed/);
    expect(m.acceptString("<p>ok</p>")).toBe(true);
    m.dispose();
    expect(() => m.acceptString("x")).toThrow(/disposed/);
  });

  it("compiles asynchronously once for callers that ask together, and gives each its own reference", async () => {
    grammarCache.clear();
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => compileGrammarAsync(bounded(77), qwen3())));
    expect(grammarCache.size).toBe(1);
    a!.dispose();
    b!.dispose();
    const m = c!.createMatcher();
    expect(m.acceptString("<p>x</p>") && m.isComplete()).toBe(true);
  });

  it("does not block the event loop while compiling", async () => {
    grammarCache.clear();
    // Turns of the event loop while the compile is pending: a compile on this thread (even one
    // behind a promise) settles before the first setImmediate runs, so it would count none.
    let turns = 0;
    let pending = true;
    const turn = () => {
      if (!pending) return;
      turns++;
      setImmediate(turn);
    };
    const compiling = compileGrammarAsync(
      seq(until("</a>", { maxLength: 20000 }), until("</b>", { maxLength: 20000 })),
      qwen3(),
    );
    setImmediate(turn);
    const compiled = await compiling;
    pending = false;
    // The work: ~170 MB of tables (a 20,000-character bound twice), built off the loop while it turned.
    expect(compiled.memoryBytes).toBeGreaterThan(100 * 2 ** 20);
    compiled.dispose();
    expect(turns).toBeGreaterThan(2);
  });

  it("drops its masks past maxTableBytes and rebuilds them as needed, still masking right", () => {
    const g = compileGrammar(until("</p>", { maxLength: 400 }), qwen3(), { maxTableBytes: 0, precomputeStates: 0 });
    const m = g.createMatcher();
    const mask = m.allocateBitmask();
    const a = qwen3().idOfPiece("a")!;
    for (let i = 0; i < 300; i++) {
      m.fillNextTokenBitmask(mask);
      expect((mask[a >>> 5]! >>> (a & 31)) & 1).toBe(1);
      expect(m.acceptToken(a)).toBe(true);
    }
    expect(g.maskFlushes).toBeGreaterThan(0);
    expect(m.acceptString("</p>") && m.isComplete()).toBe(true);
    expect(compileGrammar(until("</p>", { maxLength: 400 }), qwen3()).maskFlushes).toBe(0);
  });

  it("answers a grammar past the automaton-state limit with GrammarLimitError, sync and async", async () => {
    const big = until("</parameter>", { maxLength: 50_000 });
    const sync = (() => {
      try {
        compileGrammar(big, qwen3(), { maxStates: 100_000 });
      } catch (e) {
        return e;
      }
    })();
    expect(sync).toBeInstanceOf(GrammarLimitError);
    expect((sync as GrammarLimitError).limit).toBe("automatonStates");
    expect((sync as Error).message).toMatch(/maxLength.*more than the limit of 100000/);
    await expect(compileGrammarAsync(big, qwen3(), { maxStates: 100_000 })).rejects.toBeInstanceOf(GrammarLimitError);
    expect(() => compileGrammar(until("x", { maxLength: 200_000 }), qwen3())).toThrow(GrammarLimitError);
    expect(() => compileGrammar(literal("a"), qwen3(), { maxState: 3 } as never)).toThrow(/unknown option "maxState"/);
  });
});

// The compiled-grammar cache: kept by content, bounded by bytes, evictions release their memory
// at once; compileGrammarAsync compiles off the JS thread; native limits surface as
// GrammarLimitError; dispose() releases a grammar or matcher without waiting for collection.
import { afterEach, describe, expect, it } from "vitest";
import {
  alt,
  compileGrammar,
  compileGrammarAsync,
  DEFAULT_GRAMMAR_CACHE_BYTES,
  grammarCache,
  GrammarLimitError,
  literal,
  optional,
  repeat,
  seq,
  setGrammarCacheBytes,
  until,
  type CompiledGrammar,
} from "../../src/index.js";
import { SETTLE_MS, valueGrammarCache } from "../../src/grammar/cache.js";
import { loadNative } from "../../src/native.js";
import { allowedIds, qwen3 } from "../support/vocabs.js";

afterEach(() => setGrammarCacheBytes(DEFAULT_GRAMMAR_CACHE_BYTES));

const bounded = (n: number) => seq(literal("<p>"), until("</p>", { maxLength: n }));

/**
 * Walks each grammar `steps` tokens with a matcher of its own (all of them in use together), each
 * token an allowed one picked by a fixed generator, starting again at "<p>" where the text may end;
 * every mask is checked against acceptToken on the token taken and 15 others. Returns, per grammar,
 * the most bytes it held and the most its table limit counted (tableBytes) along the way.
 */
function walkTogether(grammars: CompiledGrammar[], steps: number): { bytes: number; tables: number }[] {
  const ms = grammars.map((g) => g.createMatcher());
  const peaks = grammars.map(() => ({ bytes: 0, tables: 0 }));
  const mask = ms[0]!.allocateBitmask();
  const size = qwen3().size;
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  for (const m of ms) expect(m.acceptString("<p>")).toBe(true);
  for (let i = 0; i < steps; i++)
    ms.forEach((m, k) => {
      m.fillNextTokenBitmask(mask);
      const ids = allowedIds(mask);
      const taken = ids[next() % ids.length]!;
      for (const id of [taken, ...Array.from({ length: 15 }, () => next() % size)]) {
        const allowed = ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;
        const accepted = m.acceptToken(id);
        if (accepted) m.rollback(1);
        expect(accepted, `token ${id} at step ${i}`).toBe(allowed);
      }
      expect(m.acceptToken(taken)).toBe(true);
      if (m.isComplete()) {
        m.reset();
        expect(m.acceptString("<p>")).toBe(true);
      }
      const g = grammars[k]!;
      peaks[k] = {
        bytes: Math.max(peaks[k]!.bytes, g.memoryBytes),
        tables: Math.max(peaks[k]!.tables, g.native.tableBytes),
      };
    });
  for (const m of ms) m.dispose();
  return peaks;
}

/**
 * What the tables may pass their limit by: what a walk adds between two measures (one per 4,096
 * automaton states: every 2nd mask here, with the DFA states and trie memos the walk adds; up to
 * 365 KB measured).
 */
const SLACK = 512 * 1024;

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
    m.dispose(); // a matcher counts its grammar in use until then (the budget's share of each, below)
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
    m.dispose();
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
    m.dispose();
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
      alt(...Array.from({ length: 32 }, (_, i) => until(`</a${i}>`, { maxLength: 1000 }))),
      qwen3(),
    );
    setImmediate(turn);
    const compiled = await compiling;
    pending = false;
    // The work: ~100 MB of tables (32 texts of up to 1,000 characters, each a layered automaton of
    // its own, all where the answer starts, so built by the compile), built off the loop while it turned.
    expect(compiled.memoryBytes).toBeGreaterThan(80 * 2 ** 20);
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
    m.dispose();
    expect(compileGrammar(until("</p>", { maxLength: 400 }), qwen3()).maskFlushes).toBe(0);
  });

  it("holds a grammar in use to its share of the budget: past it, its masks are dropped and rebuilt, still right", () => {
    grammarCache.clear();
    setGrammarCacheBytes(2 * 2 ** 20);
    // Every character of a bounded text is a state of its own, walked 300 ways: with no limit but
    // maxTableBytes the grammar grew from 1.0 to 8.4 MB within 300 tokens.
    const g = compileGrammar(bounded(300), qwen3(), { precomputeStates: 0 });
    const [peak] = walkTogether([g], 300);
    expect(g.maskFlushes).toBeGreaterThan(0);
    // The compiled grammars' part of the budget, beyond the automaton (the DFA states the walks
    // reached, 1.0 MB here, stay) and the text's shape that every mask needs.
    expect(peak!.tables).toBeLessThanOrEqual(grammarCache.maxBytes + SLACK);
    g.dispose();
  });

  it("shares the budget between the grammars in use together", () => {
    grammarCache.clear();
    setGrammarCacheBytes(2 * 2 ** 20);
    const gs = [300, 301].map((n) => compileGrammar(bounded(n), qwen3(), { precomputeStates: 0 }));
    const peaks = walkTogether(gs, 200);
    const tables = peaks.map((p) => p.tables);
    for (const t of tables)
      expect(t, `tables of each: ${tables.join(", ")}`).toBeLessThanOrEqual(grammarCache.maxBytes / 2 + SLACK);
    for (const g of gs) expect(g.maskFlushes).toBeGreaterThan(0);
    for (const g of gs) g.dispose();
  });

  it("evicts the grammars no matcher uses before one in use, and measures while one is in use", async () => {
    grammarCache.clear();
    const lazy = { precomputeStates: 0 };
    const used = compileGrammar(bounded(300), qwen3(), lazy);
    const size = used.memoryBytes;
    const m = used.createMatcher();
    expect(m.acceptString("<p>")).toBe(true);
    grammarCache.maxBytes = size * 4;
    for (let i = 1; i <= 6; i++) compileGrammar(bounded(300 + i), qwen3(), lazy).dispose();
    // The least recently used is the one in use: the idle ones went instead.
    expect(grammarCache.bytes).toBeLessThanOrEqual(size * 4);
    const n = grammarCache.size;
    expect(n).toBeGreaterThanOrEqual(2);
    compileGrammar(bounded(300), qwen3(), lazy).dispose();
    expect(grammarCache.size, "compiled again: the grammar in use had been evicted").toBe(n); // a hit
    // The grammar in use grows with no compile to measure it: while it is in use the cache
    // measures every SETTLE_MS and evicts idle grammars to make room.
    grammarCache.settleSoon(); // as a generation's start does
    await new Promise((r) => setImmediate(r)); // measured once: nothing grew yet
    const mask = m.allocateBitmask();
    for (let i = 0; i < 40; i++) {
      m.fillNextTokenBitmask(mask);
      expect(m.acceptString("x")).toBe(true);
    }
    await new Promise((r) => setTimeout(r, 2 * SETTLE_MS));
    expect(grammarCache.bytes).toBeLessThanOrEqual(size * 4);
    expect(grammarCache.bytes).toBeGreaterThanOrEqual(used.memoryBytes); // the one in use is counted
    m.dispose();
    used.dispose();
  });

  it("reports the bytes of every grammar to V8 once, and nothing once they are freed", () => {
    grammarCache.clear();
    valueGrammarCache.clear();
    const native = loadNative();
    qwen3(); // read before counting: Node reports large strings (tokenizer.json's text) to V8 too
    // V8's count also holds the ArrayBuffers not yet collected (each text a matcher takes, as UTF-8).
    const reported = () => native.externalMemory() - base;
    const near = (n: number) =>
      expect(Math.abs(reported() - n), `V8 counts ${reported()}, expected ${n}`).toBeLessThan(64 * 1024);
    const base = native.externalMemory();
    const lazy = { precomputeStates: 0 }; // nothing grows in the background
    const held = [0, 1, 2, 3].map((i) => compileGrammar(bounded(200 + i), qwen3(), lazy));
    const shares = held.map((g) => g.native.share()); // more references, the same grammars: counted once
    grammarCache.remeasure();
    expect(grammarCache.bytes).toBeGreaterThan(2 * 2 ** 20); // ~2.3 MB: far above the 64 KB tolerance
    near(grammarCache.bytes);
    // A walk grows one; measuring it again tells V8.
    const m = held[0]!.createMatcher();
    const mask = m.allocateBitmask();
    expect(m.acceptString("<p>")).toBe(true);
    for (let i = 0; i < 20; i++) {
      m.fillNextTokenBitmask(mask);
      expect(m.acceptString("x")).toBe(true);
    }
    m.dispose();
    const before = grammarCache.bytes;
    grammarCache.remeasure();
    const total = grammarCache.bytes;
    expect(total).toBeGreaterThan(before + 256 * 1024);
    near(total);
    // Evicted but still held: still counted; released everywhere: nothing left.
    grammarCache.clear();
    near(total);
    for (const g of held) g.dispose();
    for (const s of shares) s.dispose();
    near(0);
  });

  it("answers a grammar past the automaton-state limit with GrammarLimitError, sync and async", async () => {
    // A bounded text up to the count threshold (1,024) is layers of the terminator's automaton.
    const big = until("</parameter>", { maxLength: 1000 });
    const sync = (() => {
      try {
        compileGrammar(big, qwen3(), { maxStates: 10_000 });
      } catch (e) {
        return e;
      }
    })();
    expect(sync).toBeInstanceOf(GrammarLimitError);
    expect((sync as GrammarLimitError).limit).toBe("automatonStates");
    expect((sync as Error).message).toMatch(/maxLength.*more than the limit of 10000/);
    await expect(compileGrammarAsync(big, qwen3(), { maxStates: 10_000 })).rejects.toBeInstanceOf(GrammarLimitError);
    // A repetition past 100,000 of an item that may be empty is unrolled, so refused.
    expect(() => compileGrammar(repeat(optional(literal("a")), 0, 200_000), qwen3())).toThrow(GrammarLimitError);
    expect(() => compileGrammar(literal("a"), qwen3(), { maxState: 3 } as never)).toThrow(/unknown option "maxState"/);
  });
});

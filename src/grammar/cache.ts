// The compiled grammars of this process, kept by content under a byte budget, least recently used
// evicted first. The cache holds one reference to each native grammar and hands every caller a
// reference of its own (NativeGrammar.share()); an evicted grammar's reference is dropped at once
// (dispose), so its memory goes as soon as no caller, matcher or running generation holds it —
// without waiting for garbage collection or the event loop to turn.
//
// A grammar grows after it is cached: the background precompute and every generation's walk add
// states, masks and token-budget tables. Its bytes are the native tables as the allocator holds them
// (block headers and capacities: test/test-model/grammar-accounting.test.ts), measured again for
// every entry when a grammar is put, when a generation starts and ends (settleSoon) and, while they
// still grow or one is in use, every SETTLE_MS after; past the budget the least recently used of
// those no matcher stands in go first, then the rest, and the allocator hands what they held back
// to the system (heap-trim.ts). Each grammar in use holds at most its share of the compiled
// grammars' part of the budget beyond its automaton (native/core/grammar.hpp, setTableBudget):
// past it, its masks are dropped and rebuilt as walks need them.
//
// One budget (setGrammarCacheBytes, `--grammar-cache-mb`) bounds all grammar memory: the parser's
// value grammars take 1/16 of it, the shapes no grammar holds 1/16 per vocabulary (the model's and
// the parser's byte vocabulary), the compiled grammars the rest.
import { loadNative, type NativeGrammar } from "../native.js";
import { noteEvicted, trimWhenIdle } from "./heap-trim.js";

/** Default byte budget of the process's grammar memory: 256 MiB. */
export const DEFAULT_GRAMMAR_CACHE_BYTES = 256 * 1024 * 1024;

/** While cached grammars still grow (the background precompute), they are measured again this often. */
export const SETTLE_MS = 500;

interface Entry {
  native: NativeGrammar;
  bytes: number;
  uses: number;
}

export class GrammarCache {
  #maxBytes: number;
  #bytes = 0;
  readonly #entries = new Map<string, Entry>(); // least recently used first
  readonly #pending = new Map<string, Promise<NativeGrammar>>();

  readonly #measureEvery: number;
  #settling: ReturnType<typeof setTimeout> | ReturnType<typeof setImmediate> | undefined;

  /**
   * `measureEvery`: a grammar's size is measured again on every n-th take (measuring walks all of
   * its states: a cache taken from once per parsed value, as the parser's, measures every 64th).
   */
  constructor(maxBytes: number, measureEvery = 1) {
    this.#maxBytes = checkBudget(maxBytes);
    this.#measureEvery = measureEvery;
  }

  /** The byte budget; lowering it evicts at once. */
  get maxBytes(): number {
    return this.#maxBytes;
  }
  set maxBytes(n: number) {
    this.#maxBytes = checkBudget(n);
    this.#evict(undefined);
  }
  /** Bytes the cached grammars hold, as last measured (they grow while matchers explore them). */
  get bytes(): number {
    return this.#bytes;
  }
  get size(): number {
    return this.#entries.size;
  }

  /** A new reference to the grammar cached under `key`, if there is one. */
  take(key: string): NativeGrammar | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, e);
    if (++e.uses % this.#measureEvery === 0) this.#measure(e);
    return e.native.share();
  }

  /** Keeps `native` (the cache now owns that reference) and returns a new reference for the caller. */
  put(key: string, native: NativeGrammar): NativeGrammar {
    const old = this.#entries.get(key);
    if (old) this.#drop(key, old);
    const e: Entry = { native, bytes: 0, uses: 0 };
    this.#entries.set(key, e);
    for (const x of this.#entries.values()) this.#measure(x); // the others grew since they were measured
    const mine = native.share();
    this.#evict(key);
    return mine;
  }

  /** take(key), else `compile()` once however many callers ask for `key` meanwhile. */
  async takeOrCompile(key: string, compile: () => Promise<NativeGrammar>): Promise<NativeGrammar> {
    const hit = this.take(key);
    if (hit) return hit;
    let pending = this.#pending.get(key);
    if (!pending) {
      // The waiters' reference: each waiter shares it (in the microtasks that follow), then it goes,
      // so a grammar evicted meanwhile is still handed to everyone who waited for it.
      pending = compile().then((native) => {
        const ref = this.put(key, native);
        setImmediate(() => ref.dispose());
        return ref;
      });
      this.#pending.set(key, pending);
      const forget = () => {
        this.#pending.delete(key);
      };
      pending.then(forget, forget);
    }
    return (await pending).share();
  }

  /** Measures every cached grammar again and evicts past the budget; true when one had grown. */
  remeasure(): boolean {
    let grew = false;
    for (const e of this.#entries.values()) grew = this.#measure(e) || grew;
    this.#evict(undefined);
    return grew;
  }

  /**
   * remeasure() once the current work is done (a generation started or ended), and again every
   * SETTLE_MS while a grammar still grows or one is in use; then the allocator may hand freed memory back.
   */
  settleSoon(): void {
    if (this.#settling) return;
    this.#settling = setImmediate(() => this.#settle());
  }

  #settle(): void {
    this.#settling = undefined;
    if (this.remeasure() || this.#anyInUse()) {
      this.#settling = setTimeout(() => this.#settle(), SETTLE_MS);
      this.#settling.unref();
    } else trimWhenIdle();
  }

  #anyInUse(): boolean {
    for (const e of this.#entries.values()) if (e.native.inUse) return true;
    return false;
  }

  /** Drops every cached grammar. */
  clear(): void {
    for (const [key, e] of [...this.#entries]) this.#drop(key, e);
  }

  /** True when the grammar grew since it was last measured. */
  #measure(e: Entry): boolean {
    const now = e.native.measuredBytes; // never waits for the background precompute's mask in progress
    const grew = now > e.bytes;
    if (now < e.bytes) noteEvicted(e.bytes - now); // it dropped its tables (its share of the budget): trim later
    this.#bytes += now - e.bytes;
    e.bytes = now;
    return grew;
  }

  #drop(key: string, e: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= e.bytes;
    e.native.dispose();
    noteEvicted(e.bytes);
  }

  /**
   * Evicts least recently used grammars until the cache fits its budget; `keep` stays. Those no
   * matcher stands in go first: evicting one in use frees nothing until its matchers end, and its
   * bytes would no longer be counted meanwhile.
   */
  #evict(keep: string | undefined): void {
    for (const idleOnly of [true, false])
      for (const [key, e] of this.#entries) {
        if (this.#bytes <= this.#maxBytes) return;
        if (key !== keep && !(idleOnly && e.native.inUse)) this.#drop(key, e);
      }
  }
}

function checkBudget(n: number): number {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
    throw new RangeError(`the grammar cache budget must be a non-negative integer number of bytes, got ${String(n)}`);
  return n;
}

/** The process's compiled-grammar cache (compileGrammar, generate()). */
export const grammarCache = new GrammarCache(DEFAULT_GRAMMAR_CACHE_BYTES - 3 * (DEFAULT_GRAMMAR_CACHE_BYTES >>> 4));

/**
 * @internal The parser's value grammars (src/parser/validate.ts), by the node's text: taken once per
 * parsed value, so a grammar is measured again every 64th take.
 */
export const valueGrammarCache = new GrammarCache(DEFAULT_GRAMMAR_CACHE_BYTES >>> 4, 64);

let budget = DEFAULT_GRAMMAR_CACHE_BYTES;

/**
 * Sets the byte budget of the process's grammar memory (default 256 MiB): the parser's value
 * grammars get 1/16 of it, each vocabulary's idle shapes 1/16, the compiled-grammar cache
 * (grammarCache.maxBytes) the rest, 13/16 with the model's and the parser's vocabularies; the
 * grammars in use share that part for their tables. Lowering it evicts at once; 0 keeps nothing cached.
 */
export function setGrammarCacheBytes(bytes: number): void {
  checkBudget(bytes);
  const share = Math.floor(bytes / 16);
  valueGrammarCache.maxBytes = share;
  grammarCache.maxBytes = bytes - 3 * share;
  budget = bytes;
  loadNative().setShapeCacheIdleBytes(share);
  loadNative().setGrammarTableBytes(grammarCache.maxBytes);
}

/** The byte budget setGrammarCacheBytes set (default 256 MiB). */
export function grammarCacheBudget(): number {
  return budget;
}

// The compiled grammars of this process, kept by content under a byte budget, least recently used
// evicted first. The cache holds one reference to each native grammar and hands every caller a
// reference of its own (NativeGrammar.share()); an evicted grammar's reference is dropped at once
// (dispose), so its memory goes as soon as no caller, matcher or running generation holds it —
// without waiting for garbage collection or the event loop to turn.
import type { NativeGrammar } from "../native.js";

/** Default byte budget of the compiled-grammar cache: 256 MiB. */
export const DEFAULT_GRAMMAR_CACHE_BYTES = 256 * 1024 * 1024;

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
    this.#measure(e);
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

  /** Drops every cached grammar. */
  clear(): void {
    for (const [key, e] of [...this.#entries]) this.#drop(key, e);
  }

  #measure(e: Entry): void {
    const now = e.native.measuredBytes; // never waits for the background precompute's mask in progress
    this.#bytes += now - e.bytes;
    e.bytes = now;
  }

  #drop(key: string, e: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= e.bytes;
    e.native.dispose();
  }

  /** Evicts least recently used grammars until the cache fits its budget; `keep` stays. */
  #evict(keep: string | undefined): void {
    for (const [key, e] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      if (key !== keep) this.#drop(key, e);
    }
  }
}

function checkBudget(n: number): number {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
    throw new RangeError(`the grammar cache budget must be a non-negative integer number of bytes, got ${String(n)}`);
  return n;
}

/** The process's compiled-grammar cache (compileGrammar, generate(), the parser's value checks). */
export const grammarCache = new GrammarCache(DEFAULT_GRAMMAR_CACHE_BYTES);

/** Sets the compiled-grammar cache's byte budget (default 256 MiB); 0 keeps nothing cached. */
export function setGrammarCacheBytes(bytes: number): void {
  grammarCache.maxBytes = bytes;
}

// Random tokenizations of a byte string over a vocabulary's ordinary tokens: every
// way of cutting the bytes into tokens is a way a model could have produced them.
import type { Vocabulary } from "../../src/index.js";
import { TokenKind } from "../../src/index.js";

export class Tokenizations {
  readonly #byBytes = new Map<string, number[]>();
  readonly #maxLen: number;

  constructor(readonly vocab: Vocabulary) {
    let max = 0;
    for (let id = 0; id < vocab.size; id++) {
      if (vocab.kind(id) !== TokenKind.Normal) continue;
      const b = vocab.tokenBytes(id);
      if (b.length === 0) continue;
      const key = Buffer.from(b).toString("latin1");
      const list = this.#byBytes.get(key);
      if (list) list.push(id);
      else this.#byBytes.set(key, [id]);
      if (b.length > max) max = b.length;
    }
    this.#maxLen = max;
  }

  /** A uniformly-chosen-per-step random tokenization of `text`; `rand` in [0, 1). */
  random(text: string | Uint8Array, rand: () => number): number[] {
    const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : Buffer.from(text);
    const s = bytes.toString("latin1");
    const n = s.length;
    // reach[i]: the suffix from i can be cut into tokens.
    const reach = new Array<boolean>(n + 1).fill(false);
    reach[n] = true;
    for (let i = n - 1; i >= 0; i--)
      for (let l = 1; l <= this.#maxLen && i + l <= n && !reach[i]; l++)
        if (reach[i + l] && this.#byBytes.has(s.slice(i, i + l))) reach[i] = true;
    if (!reach[0]) throw new Error("text cannot be tokenized with this vocabulary");
    const out: number[] = [];
    for (let i = 0; i < n; ) {
      const options: Array<[number, number]> = [];
      for (let l = 1; l <= this.#maxLen && i + l <= n; l++) {
        const ids = this.#byBytes.get(s.slice(i, i + l));
        if (ids && reach[i + l]) for (const id of ids) options.push([id, l]);
      }
      const [id, l] = options[Math.floor(rand() * options.length)]!;
      out.push(id);
      i += l;
    }
    return out;
  }
}

/** A small deterministic PRNG (mulberry32) so failures replay. */
export { rng } from "../../scripts/lib/rng.mjs";

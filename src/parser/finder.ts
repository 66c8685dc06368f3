// Searches that resume: the text only grows, so a search for the same string from the same
// place need not look again where it already looked. A scanner re-read on every feed finds its
// next marker in time linear in the text, however it was chunked.
import type { Text } from "./text.js";

export class Finder {
  // "from\0needle" → the text's length when that search last failed.
  readonly #searched = new Map<string, number>();

  /** text.indexOf(needle, from), skipping what an earlier failed search from `from` already read. */
  find(text: Text, needle: string, from: number): number {
    const key = `${from}\u0000${needle}`;
    const upTo = this.#searched.get(key);
    const i = text.indexOf(needle, upTo === undefined ? from : Math.max(from, upTo - needle.length + 1));
    if (i < 0) this.#searched.set(key, Math.max(upTo ?? 0, text.length));
    else this.#searched.delete(key);
    return i;
  }
}

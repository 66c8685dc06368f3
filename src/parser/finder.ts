// Searches that resume: the text only grows, so a search for the same string from the same
// place need not look again where it already looked, and once found its answer stays the answer.
// A scanner re-read on every feed finds its next marker in time linear in the text, however it
// was chunked.
import type { Text } from "./text.js";

export class Finder {
  // "from\0needle" → the offset found, or -(the text's length + 1) when the search last failed there.
  readonly #searched = new Map<string, number>();

  /** text.indexOf(needle, from), without reading again what an earlier search from `from` read. */
  find(text: Text, needle: string, from: number): number {
    const key = `${from}\u0000${needle}`;
    const was = this.#searched.get(key);
    if (was !== undefined && was >= 0) return was + needle.length <= text.length ? was : -1;
    const upTo = was === undefined ? from : -was - 1;
    const i = text.indexOf(needle, Math.max(from, upTo - needle.length + 1));
    this.#searched.set(key, i >= 0 ? i : -(Math.max(upTo, text.length) + 1));
    return i;
  }
}

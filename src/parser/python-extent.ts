// Where a Python argument list `(…)` ends and where its top-level commas are, found as the text
// grows: brackets counted, '…' and "…" strings (with backslash escapes) skipped.
import type { Text } from "./text.js";

/** PythonExtent.end while the list is still open. */
export const OPEN = -1;

/** Where a Python argument list ends, and its top-level commas, found incrementally (the text only grows). */
export class PythonExtent {
  #start = -1;
  #k = 0;
  #depth = 0;
  #quote = 0; // the open string's quote character code, 0 outside strings
  #esc = false;
  /** Offsets of the top-level commas seen so far. */
  commas: number[] = [];

  /** End (exclusive) of the list whose "(" is at `start`, or OPEN. */
  end(text: Text, start: number): number {
    if (start !== this.#start) {
      this.#start = start;
      this.#k = start;
      this.#depth = 0;
      this.#quote = 0;
      this.#esc = false;
      this.commas = [];
    }
    let k = this.#k,
      depth = this.#depth,
      quote = this.#quote,
      esc = this.#esc;
    while (k < text.length) {
      const { s, start: at, end } = text.pieceAt(k);
      for (let j = k - at, stop = end - at; j < stop; j++) {
        const c = s.charCodeAt(j);
        if (quote) {
          if (esc) esc = false;
          else if (c === 0x5c) esc = true;
          else if (c === quote) quote = 0;
          continue;
        }
        if (c === 0x22 || c === 0x27) quote = c;
        else if (c === 0x28 || c === 0x5b || c === 0x7b) depth++;
        else if (c === 0x29 || c === 0x5d || c === 0x7d) {
          depth--;
          if (depth === 0) return at + j + 1;
        } else if (c === 0x2c && depth === 1 && at + j > (this.commas[this.commas.length - 1] ?? -1))
          this.commas.push(at + j);
      }
      k = end;
    }
    this.#k = k;
    this.#depth = depth;
    this.#quote = quote;
    this.#esc = esc;
    return OPEN;
  }
}

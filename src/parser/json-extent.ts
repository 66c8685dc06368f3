// Where a JSON object ends (its own balanced braces, strings respected), found incrementally:
// the text only grows, so a scan resumes where the previous one stopped and feeding a call in
// small chunks stays linear in its length.
import type { Text } from "./text.js";

export const OPEN = -1; // the object has not ended yet

export class JsonExtent {
  #start = -1;
  #k = 0;
  #depth = 0;
  #inStr = false;
  #esc = false;

  /** End (exclusive) of the object opening at `start`, or OPEN. */
  end(text: Text, start: number): number {
    if (start !== this.#start) this.#reset(start);
    let k = this.#k,
      depth = this.#depth,
      inStr = this.#inStr,
      esc = this.#esc;
    while (k < text.length) {
      const { s, start: at, end } = text.pieceAt(k);
      for (let j = k - at, stop = end - at; j < stop; j++) {
        const c = s.charCodeAt(j);
        if (inStr) {
          if (esc) esc = false;
          else if (c === 0x5c) esc = true;
          else if (c === 0x22) inStr = false;
          continue;
        }
        if (c === 0x22) inStr = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          depth--;
          if (depth === 0) return at + j + 1;
        }
      }
      k = end;
    }
    this.#k = k;
    this.#depth = depth;
    this.#inStr = inStr;
    this.#esc = esc;
    return OPEN;
  }

  #reset(start: number): void {
    this.#start = start;
    this.#k = start;
    this.#depth = 0;
    this.#inStr = false;
    this.#esc = false;
  }
}

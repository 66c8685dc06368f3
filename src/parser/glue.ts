// Matching a dialect's glue on text exactly as the grammar's seq(literal, optional(literal)) does.
import type { Glue } from "../dialects/spec.js";
import type { Text } from "./text.js";

export const NEED = -1; // the text ends before the glue can be decided
export const FAIL = -2; // the glue does not match here

/** Whether the text from `i` to its end is a proper or whole prefix of `s`. */
export function endsInside(text: Text, i: number, s: string): boolean {
  return text.length - i <= s.length && s.startsWith(text.slice(i));
}

/**
 * Index after `g` matched at `i`, or NEED / FAIL. Optional parts are taken when present.
 * A text that ends inside a fixed part is NEED even when final: the caller reports a cut.
 */
export function matchGlue(text: Text, i: number, g: Glue, final: boolean): number {
  for (const part of g) {
    const s = typeof part === "string" ? part : part.optional;
    if (text.startsWith(s, i)) {
      i += s.length;
      continue;
    }
    const prefix = text.length - i < s.length && s.startsWith(text.slice(i));
    if (prefix && (!final || typeof part === "string")) return NEED;
    if (typeof part === "string") return FAIL;
  }
  return i;
}

/** Length of the longest proper suffix of text[from:] that is a prefix of `marker`. */
export function heldBack(text: Text, from: number, marker: string): number {
  for (let k = Math.min(marker.length - 1, text.length - from); k > 0; k--)
    if (marker.startsWith(text.slice(text.length - k))) return k;
  return 0;
}

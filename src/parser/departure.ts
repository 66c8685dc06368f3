// Where a call to an undeclared name is decided: just past its first character that no declared
// word (name, or name + close) continues. The grammar's refused call ends on that same character
// (refusedCall in src/dialects/call-grammar.ts), so content is read on from there: a trigger
// begun by that character is part of the undeclared name, not a call's opening.
import type { Text } from "./text.js";

/** The index just past the first code point of `text` from `at` that leaves every word; undefined while the text is still a prefix of one. */
export function departureEnd(text: Text, at: number, words: string[]): number | undefined {
  const longest = words.reduce((m, w) => Math.max(m, w.length), 0);
  const s = text.slice(at, at + longest + 2);
  let common = 0;
  for (const w of words) {
    let k = 0;
    while (k < w.length && k < s.length && w.charCodeAt(k) === s.charCodeAt(k)) k++;
    common = Math.max(common, k);
  }
  if (common >= s.length) return undefined;
  const cp = s.codePointAt(common)!;
  return at + common + (cp > 0xffff ? 2 : 1);
}

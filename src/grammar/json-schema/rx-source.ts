// An Rx (pattern.ts's expression over code points) written back as a JSON Schema "pattern" that
// matches exactly its strings, whole (anchored at both ends): how a grammar read by another front
// end (a Lark grammar, a custom tool's regex) reaches the same lowering as "pattern". Printable
// ASCII is written as itself (syntax characters escaped), everything else as a \u{…} escape, and
// groups only where a quantifier or an alternation inside a sequence needs one, so the pattern
// stays readable where a prompt shows it; parsePattern reads it back to the same language.
import { complement } from "../code-ranges.js";
import type { Rx } from "./pattern.js";

const SYNTAX = new Set([..."\\^$.|?*+()[]{}/"]);
const IN_CLASS = new Set([..."\\^]-["]);
/** What "." matches: every code point but the line terminators. */
const DOT = "\\n\\r\\u{2028}-\\u{2029}";

function char(c: number, special = SYNTAX): string {
  if (c === 0x0a) return "\\n";
  if (c === 0x09) return "\\t";
  if (c === 0x0d) return "\\r";
  if (c < 0x20 || c > 0x7e) return `\\u{${c.toString(16)}}`;
  const s = String.fromCodePoint(c);
  return special.has(s) ? `\\${s}` : s;
}

const ranges = (r: Array<[number, number]>) =>
  r.map(([a, b]) => (a === b ? char(a, IN_CLASS) : `${char(a, IN_CLASS)}-${char(b, IN_CLASS)}`)).join("");

function set(r: Array<[number, number]>): string {
  if (r.length === 0) return "[^\\s\\S]"; // matches nothing
  if (r.length === 1 && r[0]![0] === r[0]![1]) return char(r[0]![0]);
  // A set holding the first and the last code point is written as what it leaves out.
  if (r[0]![0] === 0 && r.at(-1)![1] === 0x10ffff) {
    const out = ranges(complement(r));
    return out === DOT ? "." : `[^${out}]`;
  }
  return `[${ranges(r)}]`;
}

function quantifier(min: number, max: number | null): string {
  if (max === null) return min === 0 ? "*" : min === 1 ? "+" : `{${min},}`;
  if (min === 0 && max === 1) return "?";
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

/** `rx` as pattern source; `unit`: it must read as one atom (a quantifier follows it). */
function source(rx: Rx, unit: boolean): string {
  switch (rx.k) {
    case "set":
      return set(rx.r);
    case "seq": {
      if (rx.items.length === 1) return source(rx.items[0]!, unit);
      const s = rx.items.map((x) => (x.k === "alt" ? `(?:${source(x, false)})` : source(x, false))).join("");
      return unit ? `(?:${s})` : s;
    }
    case "alt": {
      const s = rx.items.map((x) => source(x, false)).join("|");
      return unit ? `(?:${s})` : s;
    }
    case "rep": {
      // A quantified atom is one atom again only in a group: "a{2}{3}" is no pattern.
      const s = `${source(rx.item, true)}${quantifier(rx.min, rx.max)}`;
      return unit ? `(?:${s})` : s;
    }
    case "and":
      throw new Error("rxSource: an intersection has no pattern source");
  }
}

/** A pattern whose strings are exactly `rx`'s. */
export const rxSource = (rx: Rx): string => `^(?:${source(rx, false)})$`;

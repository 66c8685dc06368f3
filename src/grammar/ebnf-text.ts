// How EBNF/GBNF text spells things: quoted strings, escapes, classes (code point and XGrammar
// 0.1.27 byte classes), parentheses where a postfix operator needs them, UTF-8 byte sequences.

import type { Ranges } from "./code-ranges.js";

/** `e` if it can take a postfix operator as is, else `(e)`. */
export function atomic(e: string): string {
  if (/^[A-Za-z][A-Za-z0-9-]*$/.test(e) || /^<\[\d+\]>$/.test(e)) return e;
  // One quoted string, one class, or one parenthesised group spanning the whole text.
  let depth = 0;
  for (let i = 0; i < e.length; i++) {
    const c = e[i];
    if (c === '"' || c === "[") {
      const close = c === '"' ? '"' : "]";
      for (i++; i < e.length && e[i] !== close; i++) if (e[i] === "\\") i++;
      if (depth === 0 && i < e.length - 1) return `(${e})`;
    } else if (c === "(") depth++;
    else if (c === ")") { depth--; if (depth === 0 && i < e.length - 1) return `(${e})`; }
    else if (depth === 0) return `(${e})`;
  }
  return e;
}

/** Escape a code point for a quoted string or a class (both syntaxes). */
export function escapeCp(c: number, inClass: boolean): string {
  if (c === 0x0a) return "\\n";
  if (c === 0x09) return "\\t";
  if (c === 0x0d) return "\\r";
  if (c === 0x22 || c === 0x5c) return "\\" + String.fromCharCode(c);
  if (inClass && (c === 0x5d || c === 0x5b || c === 0x2d)) return "\\" + String.fromCharCode(c);
  if (inClass && c === 0x5e) return "\\u005e"; // llama.cpp has no \^ escape
  if (c >= 0x20 && c < 0x7f) return String.fromCharCode(c);
  return c <= 0xffff ? `\\u${c.toString(16).padStart(4, "0")}` : `\\U${c.toString(16).padStart(8, "0")}`;
}

export function quote(cps: number[]): string {
  return `"${cps.map((c) => escapeCp(c, false)).join("")}"`;
}

export function classRange([lo, hi]: [number, number]): string {
  if (lo === hi) return escapeCp(lo, true);
  if (hi === lo + 1) return escapeCp(lo, true) + escapeCp(hi, true);
  return `${escapeCp(lo, true)}-${escapeCp(hi, true)}`;
}

/** ASCII class; XGrammar turns a one-member class into a string, which is fine except for NUL. */
export function asciiClass(set: Ranges): string {
  if (set.length === 1 && set[0]![0] === set[0]![1]) {
    const c = set[0]![0];
    return c === 0 ? "[\\u0000\\u0000]" : quote([c]);
  }
  return `[${set.map(classRange).join("")}]`;
}

/** A byte class for XGrammar 0.1.27 (values >= 0x80 are bytes there); never a single member. */
export function byteClassText(set: Ranges | [number, number]): string {
  const rs: Ranges = typeof set[0] === "number" ? [set as [number, number]] : (set as Ranges);
  if (rs.length === 1 && rs[0]![0] === rs[0]![1]) {
    const e = escapeCp(rs[0]![0], true);
    return `[${e}${e}]`;
  }
  return `[${rs.map(classRange).join("")}]`;
}

/** UTF-8 byte-range sequences covering code point ranges (no surrogates in input). */
export function utf8Sequences(set: Ranges): Array<Array<[number, number]>> {
  const out: Array<Array<[number, number]>> = [];
  const enc = (cp: number): number[] => Array.from(new TextEncoder().encode(String.fromCodePoint(cp)));
  const split = (lo: number, hi: number): void => {
    if (lo > hi) return;
    for (const m of [0x7f, 0x7ff, 0xffff]) {
      if (lo <= m && hi > m) { split(lo, m); split(m + 1, hi); return; }
    }
    if (hi <= 0x7f) { out.push([[lo, hi]]); return; }
    for (let i = 1; i < 4; i++) {
      const m = (1 << (6 * i)) - 1;
      if ((lo & ~m) !== (hi & ~m)) {
        if ((lo & m) !== 0) { split(lo, lo | m); split((lo | m) + 1, hi); return; }
        if ((hi & m) !== m) { split(lo, (hi & ~m) - 1); split(hi & ~m, hi); return; }
      }
    }
    const a = enc(lo), b = enc(hi);
    out.push(a.map((x, k): [number, number] => [x, b[k]!]));
  };
  for (const [lo, hi] of set) split(lo, hi);
  return out;
}

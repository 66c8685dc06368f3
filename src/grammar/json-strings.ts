// String characters in a quote syntax (json-syntax.ts: JSON's "…", Python's '…' and "…"):
// every spelling (raw, short escape, hex escape, surrogate pair) of the code points of a set.
import { JSON_SYNTAX, type HexEscape, type QuoteSyntax } from "./json-syntax.js";
import { complement, ENCODABLE, inRanges, intersect, MAX_CP, mergeRanges, subtractPoints, type Ranges } from "./code-ranges.js";
import { alt, cls, hexExact, hexRange, lit, seq, type Node } from "./json-ir.js";

const JSON_QUOTE = JSON_SYNTAX.quotes[0]!;
const rawAllowed = (cp: number, q: QuoteSyntax) => !inRanges(q.rawExcluded, cp);
const surrogates = (cp: number): [number, number] => {
  const v = cp - 0x10000;
  return [0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)];
};
/** Code points a hex escape of `h` can stand for (never a lone surrogate). */
const hexDomain = (h: HexEscape): Ranges => intersect([[0, h.max]], ENCODABLE);
const letterClass = (short: Array<[string, number]>) => cls(short.map(([ch]): [number, number] => [ch.codePointAt(0)!, ch.codePointAt(0)!]));

/** One string character (raw or escaped) that does not decode to any code point in `except`. */
export function charExcept(except: ReadonlySet<number>, q: QuoteSyntax = JSON_QUOTE): Node {
  const raw = cls([...q.rawExcluded, ...[...except].filter((c) => rawAllowed(c, q)).map((c): [number, number] => [c, c])], true);
  const shortChars = q.short.filter(([, cp]) => !except.has(cp));
  const hexes = q.hex.map((h) => {
    const parts: Array<Node | null> = subtractPoints(hexDomain(h), except).map(([a, b]) => hexRange(a, b, h.digits));
    if (h.letter === "u" && q.surrogatePairs) {
      // astral characters: a surrogate-pair escape
      const byHigh = new Map<number, number[]>();
      for (const c of except) {
        if (c <= 0xffff) continue;
        const [hi, lo] = surrogates(c);
        byHigh.set(hi, [...(byHigh.get(hi) ?? []), lo]);
      }
      const freeHighs = alt(subtractPoints([[0xd800, 0xdbff]], byHigh.keys()).map(([a, b]) => hexRange(a, b)));
      if (freeHighs) parts.push(seq(freeHighs, lit("\\u"), hexRange(0xdc00, 0xdfff)));
      for (const [hi, lows] of byHigh) {
        const l = alt(subtractPoints([[0xdc00, 0xdfff]], lows).map(([a, b]) => hexRange(a, b)));
        if (l) parts.push(seq(hexExact(hi), lit("\\u"), l));
      }
    }
    const body = alt(parts);
    return body ? seq(lit(h.letter), body) : null;
  });
  const escBody = alt([shortChars.length ? letterClass(shortChars) : null, ...hexes]);
  return alt([raw, escBody ? seq(lit("\\"), escBody) : null])!;
}

/** Every spelling of code point `cp` inside a string. */
export function encodings(cp: number, q: QuoteSyntax = JSON_QUOTE): Node {
  const parts: Node[] = [];
  if (rawAllowed(cp, q)) parts.push(lit(String.fromCodePoint(cp)));
  const short = q.short.find(([, c]) => c === cp);
  if (short) parts.push(lit("\\" + short[0]));
  for (const h of q.hex) {
    if (inRanges(hexDomain(h), cp)) parts.push(seq(lit("\\" + h.letter), hexExact(cp, h.digits)));
    else if (h.letter === "u" && q.surrogatePairs && cp > 0xffff) {
      const [hi, lo] = surrogates(cp);
      parts.push(seq(lit("\\u"), hexExact(hi), lit("\\u"), hexExact(lo)));
    }
  }
  return alt(parts)!;
}

/**
 * One string character inside quote `q`, raw or escaped, whose decoded code point is in `ranges`;
 * `anyChar` when the set holds every code point a string can.
 */
export function charIn(ranges: Ranges, q: QuoteSyntax, anyChar: Node): Node | null {
  const r = mergeRanges(ranges);
  if (intersect(complement(r), ENCODABLE).length === 0) return anyChar;
  const raw = intersect(r, complement(q.rawExcluded));
  const short = q.short.filter(([, cp]) => inRanges(r, cp));
  const hexes = q.hex.map((h) => {
    const parts: Node[] = intersect(r, hexDomain(h)).map(([a, b]) => hexRange(a, b, h.digits));
    if (h.letter === "u" && q.surrogatePairs) {
      for (const [a, b] of intersect(r, [[0x10000, MAX_CP]])) {
        const [ha, la] = surrogates(a), [hb, lb] = surrogates(b);
        if (ha === hb) { parts.push(seq(hexExact(ha), lit("\\u"), hexRange(la, lb))); continue; }
        parts.push(seq(hexExact(ha), lit("\\u"), hexRange(la, 0xdfff)));
        if (ha + 1 <= hb - 1) parts.push(seq(hexRange(ha + 1, hb - 1), lit("\\u"), hexRange(0xdc00, 0xdfff)));
        parts.push(seq(hexExact(hb), lit("\\u"), hexRange(0xdc00, lb)));
      }
    }
    const body = alt(parts);
    return body ? seq(lit(h.letter), body) : null;
  });
  const esc = alt([short.length ? letterClass(short) : null, ...hexes]);
  return alt([raw.length ? cls(raw) : null, esc ? seq(lit("\\"), esc) : null]);
}

// String characters in a quote syntax (syntax.ts: JSON's "…", Python's '…' and "…"):
// every spelling (raw, short escape, hex escape, surrogate pair) of the code points of a set.
import { JSON_SYNTAX, type HexEscape, type QuoteSyntax } from "./syntax.js";
import {
  complement,
  ENCODABLE,
  inRanges,
  intersect,
  MAX_CP,
  mergeRanges,
  subtractPoints,
  type Ranges,
} from "../code-ranges.js";
import { literal } from "../builders.js";
import { choice, cls, hexExact, hexRange, hexSet, sequence, type Lowered, type Node } from "./nodes.js";

const JSON_QUOTE = JSON_SYNTAX.quotes[0]!;
const rawAllowed = (cp: number, q: QuoteSyntax) => !inRanges(q.rawExcluded, cp);
const surrogates = (cp: number): [number, number] => {
  const v = cp - 0x10000;
  return [0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)];
};
/** Code points a hex escape of `h` can stand for (never a lone surrogate). */
const hexDomain = (h: HexEscape): Ranges => intersect([[0, h.max]], ENCODABLE);
const letterClass = (short: Array<[string, number]>) =>
  cls(short.map(([ch]): [number, number] => [ch.codePointAt(0)!, ch.codePointAt(0)!]));

/** One string character (raw or escaped) that does not decode to any code point in `except`. */
export function charExcept(except: ReadonlySet<number>, q: QuoteSyntax = JSON_QUOTE): Node {
  const raw = cls(
    [...q.rawExcluded, ...[...except].filter((c) => rawAllowed(c, q)).map((c): [number, number] => [c, c])],
    true,
  );
  const shortChars = q.short.filter(([, cp]) => !except.has(cp));
  const hexes = q.hex.map((h) => {
    const parts: Array<Lowered> = subtractPoints(hexDomain(h), except).map(([a, b]) => hexRange(a, b, h.digits));
    if (h.letter === "u" && q.surrogatePairs) {
      // astral characters: a surrogate-pair escape
      const byHigh = new Map<number, number[]>();
      for (const c of except) {
        if (c <= 0xffff) continue;
        const [hi, lo] = surrogates(c);
        byHigh.set(hi, [...(byHigh.get(hi) ?? []), lo]);
      }
      const freeHighs = choice(subtractPoints([[0xd800, 0xdbff]], byHigh.keys()).map(([a, b]) => hexRange(a, b)));
      if (freeHighs) parts.push(sequence(freeHighs, literal("\\u"), hexRange(0xdc00, 0xdfff)));
      for (const [hi, lows] of byHigh) {
        const l = choice(subtractPoints([[0xdc00, 0xdfff]], lows).map(([a, b]) => hexRange(a, b)));
        if (l) parts.push(sequence(hexExact(hi), literal("\\u"), l));
      }
    }
    const body = choice(parts);
    return body ? sequence(literal(h.letter), body) : null;
  });
  const escBody = choice([shortChars.length ? letterClass(shortChars) : null, ...hexes]);
  return choice([raw, escBody ? sequence(literal("\\"), escBody) : null])!;
}

/** Every spelling of code point `cp` inside a string. */
export function encodings(cp: number, q: QuoteSyntax = JSON_QUOTE): Node {
  const parts: Node[] = [];
  if (rawAllowed(cp, q)) parts.push(literal(String.fromCodePoint(cp)));
  const short = q.short.find(([, c]) => c === cp);
  if (short) parts.push(literal("\\" + short[0]));
  for (const h of q.hex) {
    if (inRanges(hexDomain(h), cp)) parts.push(sequence(literal("\\" + h.letter), hexExact(cp, h.digits)));
    else if (h.letter === "u" && q.surrogatePairs && cp > 0xffff) {
      const [hi, lo] = surrogates(cp);
      parts.push(sequence(literal("\\u"), hexExact(hi), literal("\\u"), hexExact(lo)));
    }
  }
  return choice(parts)!;
}

/**
 * One string character inside quote `q`, raw or escaped, whose decoded code point is in `ranges`;
 * `anyChar` when the set holds every code point a string can.
 */
export function charIn(ranges: Ranges, q: QuoteSyntax, anyChar: Node): Lowered {
  const r = mergeRanges(ranges);
  if (intersect(complement(r), ENCODABLE).length === 0) return anyChar;
  const raw = intersect(r, complement(q.rawExcluded));
  const short = q.short.filter(([, cp]) => inRanges(r, cp));
  const hexes = q.hex.map((h) => {
    const parts: Node[] = [];
    const own = hexSet(intersect(r, hexDomain(h)), h.digits);
    if (own) parts.push(own);
    if (h.letter === "u" && q.surrogatePairs) {
      for (const [a, b] of intersect(r, [[0x10000, MAX_CP]])) {
        const [ha, la] = surrogates(a),
          [hb, lb] = surrogates(b);
        if (ha === hb) {
          parts.push(sequence(hexExact(ha), literal("\\u"), hexRange(la, lb)));
          continue;
        }
        parts.push(sequence(hexExact(ha), literal("\\u"), hexRange(la, 0xdfff)));
        if (ha + 1 <= hb - 1) parts.push(sequence(hexRange(ha + 1, hb - 1), literal("\\u"), hexRange(0xdc00, 0xdfff)));
        parts.push(sequence(hexExact(hb), literal("\\u"), hexRange(0xdc00, lb)));
      }
    }
    const body = choice(parts);
    return body ? sequence(literal(h.letter), body) : null;
  });
  const esc = choice([short.length ? letterClass(short) : null, ...hexes]);
  return choice([raw.length ? cls(raw) : null, esc ? sequence(literal("\\"), esc) : null]);
}

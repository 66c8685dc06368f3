// Character and byte classes as each target reads them (the lowering's class decisions):
// - gbnf and lark: always a positive class of code points. llama.cpp refuses a token that ends
//   inside a multi-byte character when any code point it could become is excluded by a negated
//   class, so a negated class (which must list the surrogates) refuses e.g. a token ending in
//   byte 0xED; Lark's one-character regex classes are written positive too.
// - xgrammar: XGrammar 0.1.27 (the npm WASM build) treats non-ASCII class members as bytes
//   (xgrammar #491, #848; the web build never got the fix). So the ASCII part is an ASCII class,
//   the non-ASCII part UTF-8 byte-range sequences of byte classes, and "every non-ASCII code
//   point" (the common `[^"\\]` case) stays a negated ASCII-only class, which 0.1.27 matches
//   correctly. With codePointClasses (native XGrammar) classes are code point ranges as for gbnf.
// - One code point is a string (XGrammar cuts strings at NUL: NUL is a byte class there).
import { complement, intersect, MAX_CP, mergeRanges, sameRanges, subtract, type Ranges } from "../code-ranges.js";
import { EbnfExportError, TARGET_NAMES, type LowerOptions } from "./options.js";
import { altOf, EMPTY, str, type Lowered, type RuleExpr } from "./rule-ast.js";

const SURROGATES: [number, number] = [0xd800, 0xdfff];
const NUL: RuleExpr = { k: "bytes", ranges: [[0, 0]] };

/** The class node's ranges checked, negation resolved over 0..max. */
export function normalize(ranges: Ranges, negated: boolean, max: number, path: string): Ranges {
  for (const r of ranges) {
    if (
      !Array.isArray(r) ||
      r.length !== 2 ||
      !Number.isInteger(r[0]) ||
      !Number.isInteger(r[1]) ||
      r[0] < 0 ||
      r[1] > max ||
      r[0] > r[1]
    )
      throw new EbnfExportError(`toEbnf: ${path}: range ${JSON.stringify(r)} must satisfy 0 <= lo <= hi <= ${max}`);
  }
  const merged = mergeRanges(ranges);
  return negated ? complement(merged, max) : merged;
}

/** ASCII code points (XGrammar): a string for one member (a byte class for NUL), else a class. */
function asciiSet(set: Ranges): RuleExpr {
  if (set.length === 1 && set[0]![0] === set[0]![1]) return set[0]![0] === 0 ? NUL : str([set[0]![0]]);
  return { k: "cls", ranges: set };
}

/** A set of code points (merged ranges; surrogates removed, as in the native UTF-8 encoder). */
export function codePointSet(input: Ranges, o: LowerOptions): Lowered {
  const set = subtract(input, [SURROGATES]);
  if (set.length === 0) return EMPTY;
  const one = set.length === 1 && set[0]![0] === set[0]![1] ? set[0]![0] : undefined;
  if (o.target !== "xgrammar" || o.codePointClasses) {
    if (one !== undefined && (o.target !== "xgrammar" || one !== 0)) return str([one]);
    return { k: "cls", ranges: set };
  }
  if (one !== undefined && one !== 0) return str([one]);
  const ascii = intersect(set, [[0, 0x7f]]);
  const high = intersect(set, [[0x80, MAX_CP]]);
  if (!o.exactUtf8 && sameRanges(high, subtract([[0x80, MAX_CP]], [SURROGATES]))) {
    // 0.1.27 matches ASCII-only negated classes correctly (any non-ASCII code point passes).
    const missing = complement(ascii, 0x7f);
    if (missing.length > 0) return { k: "cls", ranges: missing, negated: true };
    return altOf([
      { k: "cls", ranges: [[0, 0x7f]] },
      { k: "cls", ranges: [[0, 0x7f]], negated: true },
    ]);
  }
  const alts: RuleExpr[] = [];
  if (ascii.length > 0) alts.push(asciiSet(ascii));
  for (const seq of utf8Sequences(high)) {
    const bytes = seq.map((r): RuleExpr => ({ k: "bytes", ranges: [r] }));
    alts.push(bytes.length === 1 ? bytes[0]! : { k: "seq", items: bytes });
  }
  return altOf(alts);
}

/** A set of bytes: XGrammar byte classes; the code point targets take ASCII bytes only. */
export function byteSet(set: Ranges, o: LowerOptions, path: string): Lowered {
  if (set.length === 0) return EMPTY;
  const ascii = intersect(set, [[0, 0x7f]]);
  const high = intersect(set, [[0x80, 0xff]]);
  if (o.target !== "xgrammar" || o.codePointClasses) {
    if (high.length > 0)
      throw new EbnfExportError(
        `toEbnf: ${path}: byteClass with bytes >= 0x80 is not exportable to ${o.target === "xgrammar" ? "code point classes" : TARGET_NAMES[o.target]} (it matches code points, not bytes)`,
      );
    return codePointSet(ascii, o);
  }
  const alts: RuleExpr[] = [];
  if (ascii.length > 0) alts.push(asciiSet(ascii));
  if (high.length > 0) alts.push({ k: "bytes", ranges: high });
  return altOf(alts);
}

/** UTF-8 byte-range sequences covering code point ranges (no surrogates in input). */
export function utf8Sequences(set: Ranges): Array<Array<[number, number]>> {
  const out: Array<Array<[number, number]>> = [];
  const enc = (cp: number): number[] => Array.from(new TextEncoder().encode(String.fromCodePoint(cp)));
  const split = (lo: number, hi: number): void => {
    if (lo > hi) return;
    for (const m of [0x7f, 0x7ff, 0xffff]) {
      if (lo <= m && hi > m) {
        split(lo, m);
        split(m + 1, hi);
        return;
      }
    }
    if (hi <= 0x7f) {
      out.push([[lo, hi]]);
      return;
    }
    for (let i = 1; i < 4; i++) {
      const m = (1 << (6 * i)) - 1;
      if ((lo & ~m) !== (hi & ~m)) {
        if ((lo & m) !== 0) {
          split(lo, lo | m);
          split((lo | m) + 1, hi);
          return;
        }
        if ((hi & m) !== m) {
          split(lo, (hi & ~m) - 1);
          split(hi & ~m, hi);
          return;
        }
      }
    }
    const a = enc(lo),
      b = enc(hi);
    out.push(a.map((x, k): [number, number] => [x, b[k]!]));
  };
  for (const [lo, hi] of set) split(lo, hi);
  return out;
}

// "pattern": a regular expression over code points (ECMAScript syntax with the u flag, which is
// how ajv compiles "pattern"), parsed into sets/seq/alt/rep; the lowering spells the sets as
// string characters. Supported (parsePattern): literals, escapes (\d \w \s and negations, \n \t
// \xHH \uHHHH \u{H…} \cX \0, identity escapes), classes and negated classes, ".", groups ((…),
// (?:…), (?<name>…)), "|", quantifiers (greedy or lazy: same language), "^" at the start and "$"
// at the end of a top-level alternative. Everything else (lookaround, backreferences, \b, \p{…},
// anchors elsewhere) is an error. Bounded quantifiers are checked against the repetition limit.
import { UnsupportedSchemaError } from "./errors.js";
import { ENUM_ALT } from "./keywords.js";
import { complement, mergeRanges, type Ranges } from "../code-ranges.js";
import { SCHEMA_LIMITS, limitError } from "../schema-limits.js";

/** An expression over code points; `and`: the strings every item matches (never parsed from a pattern: the lowering's intersection of a string's constraints). */
export type Rx =
  | { k: "set"; r: Ranges }
  | { k: "seq"; items: Rx[] }
  | { k: "alt"; items: Rx[] }
  | { k: "rep"; item: Rx; min: number; max: number | null }
  | { k: "and"; items: Rx[] };

const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
const DIGIT_R: Ranges = [[0x30, 0x39]];
const WORD_R: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE_R: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

/** Top-level alternatives of the pattern, each with its anchors. */
export function parsePattern(src: string, path: string): Array<{ rx: Rx; start: boolean; end: boolean }> {
  const cps = Array.from(src, (c) => c.codePointAt(0)!);
  let i = 0;
  const peek = (o = 0) => cps[i + o];
  const is = (c: string, o = 0) => peek(o) === c.codePointAt(0);
  const fail = (what: string): never => {
    throw new UnsupportedSchemaError(
      path,
      "pattern",
      `"pattern": ${what} is not supported; rewrite the pattern without it, or remove "pattern" (describe it in "description"), ${ENUM_ALT}`,
    );
  };
  const hex = (n: number): number => {
    let v = 0;
    for (let k = 0; k < n; k++) v = v * 16 + parseInt(String.fromCodePoint(cps[i++]!), 16);
    return v;
  };
  const hex4At = (o: number) => /^[0-9a-fA-F]{4}$/.test(String.fromCodePoint(...cps.slice(i + o, i + o + 4)));
  /** After a backslash: an escape standing for one code point. */
  const charEscape = (): number => {
    const c = String.fromCodePoint(cps[i++]!);
    switch (c) {
      case "n":
        return 0x0a;
      case "r":
        return 0x0d;
      case "t":
        return 0x09;
      case "v":
        return 0x0b;
      case "f":
        return 0x0c;
      case "0":
        return 0;
      case "c":
        return cps[i++]! % 32;
      case "x":
        return hex(2);
      case "u": {
        if (is("{")) {
          i++;
          let v = 0;
          while (!is("}")) v = v * 16 + parseInt(String.fromCodePoint(cps[i++]!), 16);
          i++;
          return v;
        }
        const v = hex(4);
        // with the u flag, an escaped surrogate pair is one code point
        if (v >= 0xd800 && v <= 0xdbff && is("\\") && is("u", 1) && hex4At(2)) {
          const save = i;
          i += 2;
          const lo = hex(4);
          if (lo >= 0xdc00 && lo <= 0xdfff) return 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
          i = save;
        }
        return v;
      }
      default:
        return c.codePointAt(0)!; // identity escape of a syntax character
    }
  };
  const classEscape = (c: string): Ranges | null => {
    switch (c) {
      case "d":
        return DIGIT_R;
      case "D":
        return complement(DIGIT_R);
      case "w":
        return WORD_R;
      case "W":
        return complement(WORD_R);
      case "s":
        return SPACE_R;
      case "S":
        return complement(SPACE_R);
      default:
        return null;
    }
  };
  const cls = (): Rx => {
    const negate = is("^");
    if (negate) i++;
    const r: Ranges = [];
    const classAtom = (): number | Ranges => {
      if (!is("\\")) return cps[i++]!;
      i++;
      const set = classEscape(String.fromCodePoint(peek()!));
      if (set) {
        i++;
        return set;
      }
      if (is("b")) {
        i++;
        return 0x08;
      }
      if (is("-")) {
        i++;
        return 0x2d;
      }
      if (is("p") || is("P")) fail("a Unicode property escape (\\p{…})");
      return charEscape();
    };
    while (!is("]")) {
      const a = classAtom();
      if (typeof a === "number" && is("-") && !is("]", 1)) {
        i++;
        const b = classAtom();
        if (typeof b !== "number") fail("a class range ending in a class escape");
        r.push([a, b as number]);
      } else if (typeof a === "number") r.push([a, a]);
      else r.push(...a);
    }
    i++;
    return { k: "set", r: negate ? complement(r) : mergeRanges(r) };
  };
  let groups = 0;
  const atom = (): Rx => {
    const c = String.fromCodePoint(cps[i++]!);
    switch (c) {
      case "(": {
        if (++groups > SCHEMA_LIMITS.patternGroups)
          throw limitError(
            "schemaNesting",
            path,
            `"pattern": groups are nested more than ${SCHEMA_LIMITS.patternGroups} deep; flatten the pattern`,
          );
        if (is("?")) {
          if (is(":", 1)) i += 2;
          else if (is("<", 1) && !is("=", 2) && !is("!", 2)) {
            while (!is(">")) i++;
            i++;
          } else fail(`a lookaround ("(?${String.fromCodePoint(peek(1) ?? 0x3f)}")`);
        }
        const items = [sequence(false).rx];
        while (is("|")) {
          i++;
          items.push(sequence(false).rx);
        }
        i++; // ")"
        groups--;
        return items.length === 1 ? items[0]! : { k: "alt", items };
      }
      case "[":
        return cls();
      case ".":
        return { k: "set", r: complement(LINE_TERMINATORS) };
      case "\\": {
        const e = String.fromCodePoint(peek()!);
        const set = classEscape(e);
        if (set) {
          i++;
          return { k: "set", r: set };
        }
        if (e === "b" || e === "B") fail(`a word boundary (\\${e})`);
        if (/[1-9]/.test(e) || e === "k") fail("a backreference");
        if (e === "p" || e === "P") fail("a Unicode property escape (\\p{…})");
        const cp = charEscape();
        return { k: "set", r: [[cp, cp]] };
      }
      default: {
        const cp = c.codePointAt(0)!;
        return { k: "set", r: [[cp, cp]] };
      }
    }
  };
  const quantified = (a: Rx): Rx => {
    let min: number, max: number | null;
    if (is("*")) {
      i++;
      min = 0;
      max = null;
    } else if (is("+")) {
      i++;
      min = 1;
      max = null;
    } else if (is("?")) {
      i++;
      min = 0;
      max = 1;
    } else if (is("{")) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(String.fromCodePoint(...cps.slice(i, i + 40)));
      if (!m) return a;
      i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? null : Number(m[3]);
    } else return a;
    if (is("?")) i++; // lazy: same language
    return { k: "rep", item: a, min, max };
  };
  function sequence(top: boolean): { rx: Rx; end: boolean } {
    const items: Rx[] = [];
    while (i < cps.length && !is("|") && !is(")")) {
      if (is("$")) {
        if (top && (i + 1 === cps.length || is("|", 1))) {
          i++;
          return { rx: { k: "seq", items }, end: true };
        }
        fail('"$" anywhere but at the end of the pattern (or of a top-level alternative)');
      }
      if (is("^")) fail('"^" anywhere but at the start of the pattern (or of a top-level alternative)');
      items.push(quantified(atom()));
    }
    return { rx: { k: "seq", items }, end: false };
  }
  const alts: Array<{ rx: Rx; start: boolean; end: boolean }> = [];
  for (;;) {
    const start = is("^");
    if (start) i++;
    const { rx, end } = sequence(true);
    alts.push({ rx, start, end });
    if (!is("|")) break;
    i++;
  }
  return alts;
}

/**
 * Copies the pattern's bounded quantifiers ask for, added up (a quantifier inside another counts
 * once per copy of the outer one). Refused past the repetition limit: a single bound or nested
 * bounds whose product exceeds it.
 */
export function patternRepetition(alts: Array<{ rx: Rx }>, path: string): number {
  const limit = SCHEMA_LIMITS.repetition;
  const walk = (rx: Rx, outer: number): number => {
    switch (rx.k) {
      case "set":
        return 0;
      case "seq":
      case "alt":
      case "and":
        return rx.items.reduce((n, x) => n + walk(x, outer), 0);
      case "rep": {
        const own = rx.max ?? rx.min;
        if (own > limit)
          throw limitError(
            "repetition",
            path,
            `"pattern": a quantifier of ${own} exceeds the limit of ${limit} repetitions; lower it, or use "*"/"+" and say the length in "description"`,
          );
        const copies = outer * Math.max(own, 1);
        if (copies > limit)
          throw limitError(
            "repetition",
            path,
            `"pattern": nested quantifiers multiply to ${copies} repetitions, over the limit of ${limit}; flatten the pattern (e.g. one quantifier over a character class) or lower the bounds`,
          );
        return (own > 1 ? copies : 0) + walk(rx.item, copies);
      }
    }
  };
  return alts.reduce((n, a) => n + walk(a.rx, 1), 0);
}

/** `rx` as a run of one class (`[a-z]{2,5}`, through single-item sequences and alternatives), if it is one. */
export function asRun(rx: Rx): { r: Ranges; min: number; max: number | null } | undefined {
  while ((rx.k === "seq" || rx.k === "alt") && rx.items.length === 1) rx = rx.items[0]!;
  return rx.k === "rep" && rx.item.k === "set" ? { r: rx.item.r, min: rx.min, max: rx.max } : undefined;
}

/** The shortest and longest string an expression matches (null: no longest). */
export function rxLengths(rx: Rx): readonly [number, number | null] {
  let l = lengthMemo.get(rx);
  if (!l) lengthMemo.set(rx, (l = lengthsOf(rx)));
  return l;
}

/** rxLengths of each expression asked (an expression is not changed once built: a format's is asked by every use). */
const lengthMemo = new WeakMap<Rx, readonly [number, number | null]>();

function lengthsOf(rx: Rx): readonly [number, number | null] {
  switch (rx.k) {
    case "set":
      return [1, 1];
    case "seq":
      return rx.items.reduce<readonly [number, number | null]>(
        ([lo, hi], x) => {
          const [a, b] = rxLengths(x);
          return [lo + a, hi === null || b === null ? null : hi + b];
        },
        [0, 0],
      );
    case "alt": {
      const ls = rx.items.map(rxLengths);
      return [
        Math.min(...ls.map((l) => l[0])),
        ls.some((l) => l[1] === null) ? null : Math.max(...ls.map((l) => l[1]!)),
      ];
    }
    case "rep": {
      const [a, b] = rxLengths(rx.item);
      return [a * rx.min, rx.max === null ? (b === 0 ? 0 : null) : b === null ? null : b * rx.max];
    }
    case "and": {
      // what every item allows (shortest above longest: none)
      const ls = rx.items.map(rxLengths);
      const his = ls.map((l) => l[1]).filter((h): h is number => h !== null);
      return [Math.max(...ls.map((l) => l[0])), his.length ? Math.min(...his) : null];
    }
  }
}

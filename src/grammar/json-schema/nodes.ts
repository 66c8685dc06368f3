// What the JSON-schema lowering builds its nodes with, over the shared builders (../builders.ts):
// sequences flattened with adjacent literals merged, choices with repeats dropped and the empty
// language named, code point classes merged, exact digit ranges (integer bounds, \uXXXX escapes).
import { intersect, mergeRanges, type Ranges } from "../code-ranges.js";
import { charClass, literal, repeat } from "../builders.js";
import type { GrammarNode } from "../ir.js";

export type Node = GrammarNode;

/** The empty string: a literal of no characters. */
export const EMPTY_STRING: Node = literal("");
/** No string at all (a choice of nothing): what `choice` returns then; a caller drops that branch or refuses the schema. */
export const NOTHING = null;
export type Lowered = Node | typeof NOTHING;

export const cls = (ranges: Ranges, negated = false): Node => charClass(mergeRanges(ranges), negated);

/** The parts in order, flattened, adjacent literals merged; `null` / `undefined` is a part left out (not NOTHING). */
export function sequence(...parts: Array<Node | null | undefined>): Node {
  const out: Node[] = [];
  const push = (n: Node) => {
    if (n.type === "seq") {
      n.items.forEach(push);
      return;
    }
    const last = out[out.length - 1];
    if (n.type === "literal" && last?.type === "literal") {
      out[out.length - 1] = literal(last.text + n.text);
      return;
    }
    if (n.type === "literal" && n.text === "") return;
    out.push(n);
  };
  for (const p of parts) if (p) push(p);
  if (out.length === 1) return out[0]!;
  if (out.length === 0) return EMPTY_STRING;
  return { type: "seq", items: out };
}

/** Leaves are compared by content; other nodes by identity (comparing subtrees would cost their size at every level). */
function leafKey(n: Node): string | undefined {
  switch (n.type) {
    case "literal":
      return `l${n.text}`;
    case "ref":
      return `r${n.name}`;
    case "charClass":
      return `c${n.negated ? "!" : ""}${JSON.stringify(n.ranges)}`;
    default:
      return undefined;
  }
}

/** One of the parts, flattened, repeated leaves and nodes dropped; NOTHING parts dropped, and NOTHING when none is left. */
export function choice(parts: Array<Lowered | undefined>): Lowered {
  // One part that is no alternative is the choice itself (most schemas have one type).
  let only: Lowered | undefined;
  let count = 0;
  for (const p of parts)
    if (p) {
      only = p;
      count++;
    }
  if (count === 0) return NOTHING;
  if (count === 1 && only!.type !== "alt") return only!;
  const out: Node[] = [];
  const keys = new Set<string>();
  const nodes = new Set<Node>();
  const push = (n: Node) => {
    if (n.type === "alt") {
      n.items.forEach(push);
      return;
    }
    const k = leafKey(n);
    if (k !== undefined ? keys.has(k) : nodes.has(n)) return;
    if (k !== undefined) keys.add(k);
    else nodes.add(n);
    out.push(n);
  };
  for (const p of parts) if (p) push(p);
  if (out.length === 0) return NOTHING;
  if (out.length === 1) return out[0]!;
  return { type: "alt", items: out };
}

/** Nodes `n` holds as JSON text (a node shared by several parents counts once per parent). */
export function countNodes(n: Node): number {
  switch (n.type) {
    case "seq":
    case "alt":
    case "intersect":
      return n.items.reduce((k, x) => k + countNodes(x), 1);
    case "repeat":
      return 1 + countNodes(n.item);
    case "until":
      return 1 + (n.body ? countNodes(n.body) : 0);
    case "perm":
      return n.items.reduce((k, x) => k + countNodes(x.node), 1 + (n.separator ? countNodes(n.separator) : 0));
    default:
      return 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Digits

export type DigitFn = (a: number, b: number) => Node;
export const decDigit: DigitFn = (a, b) => (a === b ? literal(String(a)) : cls([[0x30 + a, 0x30 + b]]));
/** Hex digit values a..b, letters in either case. */
export const hexDigit: DigitFn = (a, b) => {
  if (a === b && a <= 9) return literal(String(a));
  const ranges: Ranges = [];
  const dl = a,
    dh = Math.min(b, 9);
  if (dl <= dh) ranges.push([0x30 + dl, 0x30 + dh]);
  const ll = Math.max(a, 10),
    lh = b;
  if (ll <= lh) {
    ranges.push([0x61 + ll - 10, 0x61 + lh - 10]);
    ranges.push([0x41 + ll - 10, 0x41 + lh - 10]);
  }
  return cls(ranges);
};

const DIGIT = cls([[0x30, 0x39]]);
const BLOCK = 16;
const DIGIT_BLOCK = repeat(DIGIT, BLOCK, BLOCK);

/**
 * Between `min` and `max` decimal digits. Long runs are blocks of 16 digits and a short tail
 * (the same strings), so a run of up to 308 digits is ~40 repetition copies instead of 308.
 */
export function digitRun(min: number, max: number): Lowered {
  if (min > max) return null;
  if (max <= 2 * BLOCK) return repeat(DIGIT, min, max);
  const q0 = Math.floor(min / BLOCK),
    r0 = min % BLOCK;
  const head = q0 > 0 ? sequence(repeat(DIGIT_BLOCK, q0, q0), repeat(DIGIT, r0, r0)) : repeat(DIGIT, r0, r0);
  const n = max - min;
  if (n <= 2 * BLOCK) return sequence(head, repeat(DIGIT, 0, n));
  const q = Math.floor(n / BLOCK),
    r = n % BLOCK;
  // 0..16q-1 digits as up to q-1 blocks and a tail of up to 15; 16q..16q+r as q blocks and a tail
  const free = choice([
    sequence(repeat(DIGIT_BLOCK, 0, q - 1), repeat(DIGIT, 0, BLOCK - 1)),
    sequence(repeat(DIGIT_BLOCK, q, q), repeat(DIGIT, 0, r)),
  ])!;
  return sequence(head, free);
}

/** Strings of exactly `width` digits (base `base`, leading zeros allowed) whose value is in [lo, hi]. */
export function fixedRange(lo: bigint, hi: bigint, width: number, base: number, digit: DigitFn): Node {
  const B = BigInt(base);
  if (width === 1) return digit(Number(lo), Number(hi));
  const p = B ** BigInt(width - 1);
  const a = lo / p,
    b = hi / p,
    lr = lo % p,
    hr = hi % p;
  if (a === b) return sequence(digit(Number(a), Number(a)), fixedRange(lr, hr, width - 1, base, digit));
  const anyTail = () =>
    base === 10 ? digitRun(width - 1, width - 1)! : repeat(digit(0, base - 1), width - 1, width - 1);
  const parts: Node[] = [];
  let midLo = a + 1n,
    midHi = b - 1n;
  if (lr === 0n) midLo = a;
  else parts.push(sequence(digit(Number(a), Number(a)), fixedRange(lr, p - 1n, width - 1, base, digit)));
  const highFull = hr === p - 1n;
  if (highFull) midHi = b;
  if (midLo <= midHi) parts.push(sequence(digit(Number(midLo), Number(midHi)), anyTail()));
  if (!highFull) parts.push(sequence(digit(Number(b), Number(b)), fixedRange(0n, hr, width - 1, base, digit)));
  return choice(parts)!;
}

export const hexRange = (lo: number, hi: number, width = 4) => fixedRange(BigInt(lo), BigInt(hi), width, 16, hexDigit);
export const hexExact = (n: number, width = 4) => hexRange(n, n, width);

/** One hex digit (letters in either case) of the given values. */
function hexDigitOf(values: number[]): Node {
  if (values.length === 1 && values[0]! <= 9) return literal(String(values[0]));
  return cls(
    values.flatMap(
      (v): Ranges =>
        v <= 9
          ? [[0x30 + v, 0x30 + v]]
          : [
              [0x57 + v, 0x57 + v],
              [0x37 + v, 0x37 + v],
            ],
    ),
  );
}

/**
 * Strings of exactly `width` hex digits (either case) whose value is in `r`: leading digits whose
 * remainders are the same set share one branch, so a set of many ranges (a class's escapes) stays
 * a few branches, not one digit range per range.
 */
export function hexSet(r: Ranges, width: number): Lowered {
  const set = mergeRanges(r);
  if (set.length === 0) return null;
  if (width === 1) return hexDigitOf(set.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i)));
  const p = 16 ** (width - 1);
  const groups = new Map<string, { digits: number[]; rest: Ranges }>();
  for (let d = Math.floor(set[0]![0] / p); d <= Math.floor(set[set.length - 1]![1] / p); d++) {
    const rest = intersect(set, [[d * p, d * p + p - 1]]).map(([a, b]): [number, number] => [a - d * p, b - d * p]);
    if (rest.length === 0) continue;
    const key = JSON.stringify(rest);
    const g = groups.get(key);
    if (g) g.digits.push(d);
    else groups.set(key, { digits: [d], rest });
  }
  return choice(
    [...groups.values()].map((g) =>
      sequence(
        hexDigitOf(g.digits),
        g.rest.length === 1 && g.rest[0]![0] === 0 && g.rest[0]![1] === p - 1
          ? repeat(hexDigit(0, 15), width - 1, width - 1)
          : hexSet(g.rest, width - 1),
      ),
    ),
  );
}

const digitsOf = (n: bigint) => n.toString().length;

/** Decimal integers without leading zeros in [lo, hi] (0 ≤ lo). */
export function nonNegIntRange(lo: bigint, hi: bigint): Lowered {
  if (lo > hi) return null;
  const parts: Array<Lowered> = [];
  if (lo === 0n) {
    parts.push(literal("0"));
    lo = 1n;
  }
  if (lo > hi) return choice(parts);
  let wl = digitsOf(lo);
  const wh = digitsOf(hi);
  if (wl === wh) return choice([...parts, fixedRange(lo, hi, wl, 10, decDigit)]);
  // the partial first and last widths, and every width between them whole
  if (lo !== 10n ** BigInt(wl - 1)) {
    parts.push(fixedRange(lo, 10n ** BigInt(wl) - 1n, wl, 10, decDigit));
    wl++;
  }
  let fullTo = wh;
  if (hi !== 10n ** BigInt(wh) - 1n) {
    parts.push(fixedRange(10n ** BigInt(wh - 1), hi, wh, 10, decDigit));
    fullTo = wh - 1;
  }
  if (wl <= fullTo) parts.push(sequence(cls([[0x31, 0x39]]), digitRun(wl - 1, fullTo - 1)));
  return choice(parts);
}

/** Integers (JSON integer syntax, `-0` when 0 is in range) in [lo, hi]. */
export function integerRange(lo: bigint, hi: bigint): Lowered {
  if (lo > hi) return null;
  const parts: Array<Lowered> = [];
  if (hi >= 0n) parts.push(nonNegIntRange(lo > 0n ? lo : 0n, hi));
  const neg: Array<Lowered> = [];
  if (lo <= 0n && hi >= 0n) neg.push(literal("0"));
  if (lo <= -1n) neg.push(nonNegIntRange(hi < 0n ? -hi : 1n, -lo));
  const n = choice(neg);
  if (n) parts.push(sequence(literal("-"), n));
  return choice(parts);
}

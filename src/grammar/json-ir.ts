// Small IR builders for the JSON-schema lowering: flattened, literal-merged nodes, code point
// ranges, and exact digit ranges (integer bounds, \uXXXX escapes).
import { mergeRanges, type Ranges } from "./code-ranges.js";
import type { GrammarNode } from "./ir.js";

export type Node = GrammarNode;

export const lit = (text: string): Node => ({ type: "literal", text });
export const cls = (ranges: Ranges, negated = false): Node =>
  ({ type: "charClass", ranges: mergeRanges(ranges), ...(negated ? { negated } : {}) });
export const rep = (item: Node, min: number, max: number | null): Node => ({ type: "repeat", item, min, max });
export const opt = (item: Node): Node => rep(item, 0, 1);
export const refTo = (name: string): Node => ({ type: "ref", name });

/** seq that drops nulls, flattens nested seqs and merges adjacent literals. */
export function seq(...parts: Array<Node | null | undefined>): Node {
  const out: Node[] = [];
  const push = (n: Node) => {
    if (n.type === "seq") { n.items.forEach(push); return; }
    const last = out[out.length - 1];
    if (n.type === "literal" && last?.type === "literal") { out[out.length - 1] = lit(last.text + n.text); return; }
    if (n.type === "literal" && n.text === "") return;
    out.push(n);
  };
  for (const p of parts) if (p) push(p);
  if (out.length === 1) return out[0]!;
  if (out.length === 0) return lit(""); // not reached by the lowering: every call has a token
  return { type: "seq", items: out };
}

/** Leaves are compared by content; other nodes by identity (comparing subtrees would cost their size at every level). */
function leafKey(n: Node): string | undefined {
  switch (n.type) {
    case "literal": return `l${n.text}`;
    case "ref": return `r${n.name}`;
    case "charClass": return `c${n.negated ? "!" : ""}${JSON.stringify(n.ranges)}`;
    default: return undefined;
  }
}

/** alt that drops nulls, flattens and drops repeated leaves and nodes; null when nothing is left (empty language). */
export function alt(parts: Array<Node | null | undefined>): Node | null {
  const out: Node[] = [];
  const keys = new Set<string>();
  const nodes = new Set<Node>();
  const push = (n: Node) => {
    if (n.type === "alt") { n.items.forEach(push); return; }
    const k = leafKey(n);
    if (k !== undefined ? keys.has(k) : nodes.has(n)) return;
    if (k !== undefined) keys.add(k); else nodes.add(n);
    out.push(n);
  };
  for (const p of parts) if (p) push(p);
  if (out.length === 0) return null;
  if (out.length === 1) return out[0]!;
  return { type: "alt", items: out };
}

/** Nodes `n` holds as JSON text (a node shared by several parents counts once per parent). */
export function countNodes(n: Node): number {
  switch (n.type) {
    case "seq": case "alt": return n.items.reduce((k, x) => k + countNodes(x), 1);
    case "repeat": return 1 + countNodes(n.item);
    case "perm": return n.items.reduce((k, x) => k + countNodes(x.node), 1 + (n.separator ? countNodes(n.separator) : 0));
    default: return 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Digits

export type DigitFn = (a: number, b: number) => Node;
export const decDigit: DigitFn = (a, b) => (a === b ? lit(String(a)) : cls([[0x30 + a, 0x30 + b]]));
/** Hex digit values a..b, letters in either case. */
export const hexDigit: DigitFn = (a, b) => {
  if (a === b && a <= 9) return lit(String(a));
  const ranges: Ranges = [];
  const dl = a, dh = Math.min(b, 9);
  if (dl <= dh) ranges.push([0x30 + dl, 0x30 + dh]);
  const ll = Math.max(a, 10), lh = b;
  if (ll <= lh) { ranges.push([0x61 + ll - 10, 0x61 + lh - 10]); ranges.push([0x41 + ll - 10, 0x41 + lh - 10]); }
  return cls(ranges);
};

const DIGIT = cls([[0x30, 0x39]]);
const BLOCK = 16;
const DIGIT_BLOCK = rep(DIGIT, BLOCK, BLOCK);

/**
 * Between `min` and `max` decimal digits. Long runs are blocks of 16 digits and a short tail
 * (the same strings), so a run of up to 308 digits is ~40 repetition copies instead of 308.
 */
export function digitRun(min: number, max: number): Node | null {
  if (min > max) return null;
  if (max <= 2 * BLOCK) return rep(DIGIT, min, max);
  const q0 = Math.floor(min / BLOCK), r0 = min % BLOCK;
  const head = q0 > 0 ? seq(rep(DIGIT_BLOCK, q0, q0), rep(DIGIT, r0, r0)) : rep(DIGIT, r0, r0);
  const n = max - min;
  if (n <= 2 * BLOCK) return seq(head, rep(DIGIT, 0, n));
  const q = Math.floor(n / BLOCK), r = n % BLOCK;
  // 0..16q-1 digits as up to q-1 blocks and a tail of up to 15; 16q..16q+r as q blocks and a tail
  const free = alt([seq(rep(DIGIT_BLOCK, 0, q - 1), rep(DIGIT, 0, BLOCK - 1)), seq(rep(DIGIT_BLOCK, q, q), rep(DIGIT, 0, r))])!;
  return seq(head, free);
}

/** Strings of exactly `width` digits (base `base`, leading zeros allowed) whose value is in [lo, hi]. */
export function fixedRange(lo: bigint, hi: bigint, width: number, base: number, digit: DigitFn): Node {
  const B = BigInt(base);
  if (width === 1) return digit(Number(lo), Number(hi));
  const p = B ** BigInt(width - 1);
  const a = lo / p, b = hi / p, lr = lo % p, hr = hi % p;
  if (a === b) return seq(digit(Number(a), Number(a)), fixedRange(lr, hr, width - 1, base, digit));
  const anyTail = () => (base === 10 ? digitRun(width - 1, width - 1)! : rep(digit(0, base - 1), width - 1, width - 1));
  const parts: Node[] = [];
  let midLo = a + 1n, midHi = b - 1n;
  if (lr === 0n) midLo = a;
  else parts.push(seq(digit(Number(a), Number(a)), fixedRange(lr, p - 1n, width - 1, base, digit)));
  const highFull = hr === p - 1n;
  if (highFull) midHi = b;
  if (midLo <= midHi) parts.push(seq(digit(Number(midLo), Number(midHi)), anyTail()));
  if (!highFull) parts.push(seq(digit(Number(b), Number(b)), fixedRange(0n, hr, width - 1, base, digit)));
  return alt(parts)!;
}

export const hexRange = (lo: number, hi: number, width = 4) => fixedRange(BigInt(lo), BigInt(hi), width, 16, hexDigit);
export const hexExact = (n: number, width = 4) => hexRange(n, n, width);

const digitsOf = (n: bigint) => n.toString().length;

/** Decimal integers without leading zeros in [lo, hi] (0 ≤ lo). */
export function nonNegIntRange(lo: bigint, hi: bigint): Node | null {
  if (lo > hi) return null;
  const parts: Array<Node | null> = [];
  if (lo === 0n) { parts.push(lit("0")); lo = 1n; }
  if (lo > hi) return alt(parts);
  let wl = digitsOf(lo);
  const wh = digitsOf(hi);
  if (wl === wh) return alt([...parts, fixedRange(lo, hi, wl, 10, decDigit)]);
  // the partial first and last widths, and every width between them whole
  if (lo !== 10n ** BigInt(wl - 1)) { parts.push(fixedRange(lo, 10n ** BigInt(wl) - 1n, wl, 10, decDigit)); wl++; }
  let fullTo = wh;
  if (hi !== 10n ** BigInt(wh) - 1n) { parts.push(fixedRange(10n ** BigInt(wh - 1), hi, wh, 10, decDigit)); fullTo = wh - 1; }
  if (wl <= fullTo) parts.push(seq(cls([[0x31, 0x39]]), digitRun(wl - 1, fullTo - 1)));
  return alt(parts);
}

/** Integers (JSON integer syntax, `-0` when 0 is in range) in [lo, hi]. */
export function integerRange(lo: bigint, hi: bigint): Node | null {
  if (lo > hi) return null;
  const parts: Array<Node | null> = [];
  if (hi >= 0n) parts.push(nonNegIntRange(lo > 0n ? lo : 0n, hi));
  const neg: Array<Node | null> = [];
  if (lo <= 0n && hi >= 0n) neg.push(lit("0"));
  if (lo <= -1n) neg.push(nonNegIntRange(hi < 0n ? -hi : 1n, -lo));
  const n = alt(neg);
  if (n) parts.push(seq(lit("-"), n));
  return alt(parts);
}

// until(T) and text(X) as regular grammars: the KMP automaton of the terminator over code points.
// until: state 0 is `[^T0]* T0 s1`, state k lists the characters that keep a partial match and
// sends every other character back to state 0. With maxLength the states also count committed
// text characters (the native rule: partial terminator characters are not text yet); refused
// above `maxUntilStates` rules. text(X): the same states, every one of them may end, X never
// completes.
import { complement, MAX_CP } from "../code-ranges.js";
import type { TextNode, UntilNode } from "../ir.js";
import { kmpStep } from "./analysis.js";
import type { Lowering } from "./context.js";
import { EbnfExportError } from "./options.js";
import { altOf, EMPTY, EPSILON, ref, seqOf, type Lowered, type RuleExpr } from "./rule-ast.js";

const star = (item: RuleExpr): RuleExpr => ({ k: "rep", item, min: 0, max: null });
const points = (cs: Iterable<number>) => [...cs].map((c): [number, number] => [c, c]);

export function lowerText(lw: Lowering, n: TextNode, path: string): Lowered {
  const X = Array.from(n.exclude, (c) => c.codePointAt(0)!);
  if (X.length === 0) throw new EbnfExportError(`toEbnf: ${path}: text needs a non-empty exclude`);
  if (n.maxLength !== undefined) throw new EbnfExportError(`toEbnf: ${path}: text with maxLength is not exportable`);
  const key = `text\u0000${n.exclude}`;
  const hit = lw.memo.get(key);
  if (hit !== undefined) return hit;
  const L = X.length;
  const delta = kmpStep(X);
  const base = lw.fresh(`text-${n.exclude}`);
  const names = Array.from({ length: L }, (_, k) => (k === 0 ? base : lw.fresh(`${base}-s${k}`)));
  lw.memo.set(key, ref(base));
  const ch = (c: number) => lw.char(c, path);
  for (let k = 0; k < L; k++) {
    if (k === 0) {
      // Ordinary characters loop in state 0 as a star, not one recursion per character
      // (Earley parsers such as llguidance's grow with right recursion).
      const other = lw.set(complement([[X[0]!, X[0]!]], MAX_CP));
      const loop = other === EMPTY ? EPSILON : star(other);
      const next = L > 1 ? { k: "rep" as const, item: seqOf([ch(X[0]!), ref(names[1]!)]), min: 0, max: 1 } : EPSILON;
      lw.addRule(base, seqOf([loop, next]));
      continue;
    }
    const moves = new Map<number, number>();
    for (const c of new Set(X.slice(0, k + 1))) moves.set(c, delta(k, c));
    const alts: RuleExpr[] = [EPSILON];
    for (const [c, d] of moves) if (d < L) alts.push(seqOf([ch(c), ref(names[d]!)]));
    const other = lw.set(complement(points(moves.keys()), MAX_CP));
    if (other !== EMPTY) alts.push(seqOf([other, ref(names[0]!)]));
    lw.addRule(names[k]!, altOf(alts));
  }
  return ref(base);
}

export function lowerUntil(lw: Lowering, n: UntilNode, path: string): Lowered {
  const T = Array.from(n.terminator, (c) => c.codePointAt(0)!);
  if (T.length === 0) throw new EbnfExportError(`toEbnf: ${path}: until needs a non-empty terminator`);
  const maxLen = n.maxLength;
  if (n.minLength || n.trimNewline)
    throw new EbnfExportError(`toEbnf: ${path}: until with minLength or trimNewline is not exportable`);
  if (maxLen !== undefined && (!Number.isInteger(maxLen) || maxLen < 0))
    throw new EbnfExportError(`toEbnf: ${path}: maxLength must be a non-negative integer`);
  const key = `until\u0000${n.terminator}\u0000${maxLen ?? ""}`;
  const hit = lw.memo.get(key);
  if (hit !== undefined) return hit;

  const L = T.length;
  const delta = kmpStep(T);
  // Characters that keep (or restart) a partial match from state k; all others go to 0.
  const keep = (k: number): Array<[number, number]> => {
    const out: Array<[number, number]> = [];
    for (const c of new Set(T.slice(0, k + 1))) {
      const d = delta(k, c);
      if (d > 0) out.push([c, d]);
    }
    return out;
  };
  const ch = (c: number) => lw.char(c, path);
  const base = lw.fresh(`until-${n.terminator}`);

  // The terminator as one token: from state k its characters must close T exactly at their end.
  const tokenId = lw.wholeToken(T);
  const closesAtEnd = (k: number): boolean => {
    let s = k;
    for (let i = 0; i < L; i++) {
      s = delta(s, T[i]!);
      if (s === L) return i === L - 1;
    }
    return false;
  };
  const whole = (k: number): RuleExpr | undefined =>
    tokenId !== undefined && closesAtEnd(k) ? { k: "token", id: tokenId } : undefined;

  if (maxLen === undefined) {
    const names = Array.from({ length: L }, (_, k) => (k === 0 ? base : lw.fresh(`${base}-s${k}`)));
    lw.memo.set(key, ref(base));
    const next = (d: number): RuleExpr => (d === L ? EPSILON : ref(names[d]!));
    for (let k = 0; k < L; k++) {
      if (k === 0) {
        // [^T0]* T0 s1: every other character just loops in state 0.
        const other = lw.set(complement([[T[0]!, T[0]!]], MAX_CP)) as RuleExpr;
        const t = whole(0);
        const close = seqOf([ch(T[0]!), next(1)]);
        lw.addRule(base, seqOf([star(other), t ? altOf([close, t]) : close]));
        continue;
      }
      const ks = keep(k);
      const alts = ks.map(([c, d]) => seqOf([ch(c), next(d)]));
      const t = whole(k);
      if (t) alts.push(t);
      const other = lw.set(complement(points(ks.map(([c]) => c)), MAX_CP));
      if (other !== EMPTY) alts.push(seqOf([other, ref(base)]));
      lw.addRule(names[k]!, altOf(alts));
    }
    return ref(base);
  }

  // Bounded: state (k, j) = KMP state k, j committed text characters (j <= maxLen).
  const limit = lw.o.maxUntilStates ?? 4096;
  if (L * (maxLen + 1) > limit)
    throw new EbnfExportError(
      `toEbnf: ${path}: until with maxLength ${maxLen} and a ${L}-character terminator needs up to ${L * (maxLen + 1)} rules (limit ${limit}); not exportable`,
    );
  const ids = new Map<string, string>();
  const work: Array<[number, number]> = [];
  const state = (k: number, j: number): RuleExpr => {
    const sk = `${k},${j}`;
    let nm = ids.get(sk);
    if (nm === undefined) {
      nm = k === 0 && j === 0 ? base : lw.fresh(`${base}-s${k}-${j}`);
      ids.set(sk, nm);
      work.push([k, j]);
    }
    return ref(nm);
  };
  state(0, 0);
  lw.memo.set(key, ref(base));
  while (work.length > 0) {
    const [k, j] = work.pop()!;
    const ks = keep(k);
    const alts: RuleExpr[] = [];
    for (const [c, d] of ks) {
      if (d === L) {
        alts.push(ch(c));
        continue;
      }
      const j2 = j + k + 1 - d;
      if (j2 <= maxLen) alts.push(seqOf([ch(c), state(d, j2)]));
    }
    if (j + k + 1 <= maxLen) {
      const other = lw.set(complement(points(ks.map(([c]) => c)), MAX_CP));
      if (other !== EMPTY) alts.push(seqOf([other, state(0, j + k + 1)]));
    }
    // The token: the k pending characters become text.
    const t = whole(k);
    if (t && j + k <= maxLen) alts.push(t);
    lw.addRule(ids.get(`${k},${j}`)!, altOf(alts));
  }
  return ref(base);
}

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
  const minLen = n.minLength ?? 0;
  const trim = n.trimNewline === true;
  if (!Number.isInteger(minLen) || minLen < 0)
    throw new EbnfExportError(`toEbnf: ${path}: minLength must be a non-negative integer`);
  if (maxLen !== undefined && (!Number.isInteger(maxLen) || maxLen < 0))
    throw new EbnfExportError(`toEbnf: ${path}: maxLength must be a non-negative integer`);
  const key = `until\u0000${n.terminator}\u0000${maxLen ?? ""}\u0000${minLen}\u0000${trim}`;
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

  if (maxLen === undefined && minLen === 0 && !trim) {
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

  // Counted: state (k, j, f) = KMP state k, j committed text characters (j <= maxLen; without
  // maxLength counted up to minLength + 1), f the padding flags of trimNewline as the native
  // automaton keeps them (1 a character was read, 2 the last was a newline but the leading one,
  // 4 a newline came just before the partial match): padding newlines are not counted.
  const top = maxLen ?? minLen + 1;
  const limit = lw.o.maxUntilStates ?? 4096;
  if (L * (top + 1) * (trim ? 4 : 1) > limit)
    throw new EbnfExportError(
      `toEbnf: ${path}: until with maxLength ${top} and a ${L}-character terminator needs up to ${L * (top + 1) * (trim ? 4 : 1)} rules (limit ${limit}); not exportable`,
    );
  const NL = 0x0a;
  const ids = new Map<string, string>();
  const work: Array<[number, number, number]> = [];
  const state = (k: number, j: number, f: number): RuleExpr => {
    const sk = `${k},${j},${f}`;
    let nm = ids.get(sk);
    if (nm === undefined) {
      nm = k === 0 && j === 0 && f === 0 ? base : lw.fresh(`${base}-s${k}-${j}-${f}`);
      ids.set(sk, nm);
      work.push([k, j, f]);
    }
    return ref(nm);
  };
  const fits = (text: number) => text >= minLen && (maxLen === undefined || text <= maxLen);
  /** From (k, j, f), character c (d: the KMP state after it): the next state, or the end when T completes; null when refused. */
  const after = (k: number, j: number, f: number, c: number, d: number): RuleExpr | null => {
    const started = (f & 1) !== 0,
      lastNl = (f & 2) !== 0,
      nlBefore = (f & 4) !== 0;
    const counted = trim && !started && c === NL ? 0 : 1;
    const nl = trim && c === NL && started;
    const before = trim && (d === 1 ? lastNl : d > 1 ? nlBefore : false);
    const f2 = trim ? 1 | (nl ? 2 : 0) | (before ? 4 : 0) : 0;
    const j2 = j + k + counted - d;
    const pad = (d === 0 ? nl : before) ? 1 : 0;
    if (d === L) return fits(j2 - pad) ? EPSILON : null;
    if (maxLen !== undefined && j2 - pad > maxLen) return null;
    return state(d, maxLen === undefined ? Math.min(j2, minLen + 1) : j2, f2);
  };
  state(0, 0, 0);
  lw.memo.set(key, ref(base));
  while (work.length > 0) {
    const [k, j, f] = work.pop()!;
    const ks = keep(k);
    const alts: RuleExpr[] = [];
    const special = new Set(ks.map(([c]) => c));
    for (const [c, d] of ks) {
      const next = after(k, j, f, c, d);
      if (next) alts.push(next === EPSILON ? ch(c) : seqOf([ch(c), next]));
    }
    if (trim && !special.has(NL)) {
      special.add(NL);
      const next = after(k, j, f, NL, delta(k, NL));
      if (next && next !== EPSILON) alts.push(seqOf([ch(NL), next]));
    }
    const other = lw.set(complement(points([...special]), MAX_CP));
    if (other !== EMPTY) {
      const next = after(k, j, f, -1, 0);
      if (next && next !== EPSILON) alts.push(seqOf([other, next]));
    }
    // The token: the k pending characters become text.
    const t = whole(k);
    if (t && fits(j + k - (k === 0 && (f & 2) !== 0 ? 1 : 0))) alts.push(t);
    lw.addRule(ids.get(`${k},${j},${f}`)!, altOf(alts));
  }
  return ref(base);
}

// perm: items in any order, each at most once (required ones exactly once), as one rule per
// reachable subset of used items; refused above `maxPermItems` items (2^n subset rules).
import type { PermNode } from "../ir.js";
import type { Lowering } from "./context.js";
import { EbnfExportError } from "./options.js";
import { altOf, EMPTY, EPSILON, isEpsilon, ref, seqOf, type Lowered, type RuleExpr } from "./rule-ast.js";

export function lowerPerm(lw: Lowering, n: PermNode, path: string): Lowered {
  const limit = lw.o.maxPermItems ?? 8;
  if (n.items.length > limit)
    throw new EbnfExportError(
      `toEbnf: ${path}: any-order set of ${n.items.length} items is above the export limit of ${limit} (2^n rules)`,
    );
  const base = lw.fresh("perm");
  const items: Array<RuleExpr | null> = [];
  let required = 0;
  for (let i = 0; i < n.items.length; i++) {
    const it = n.items[i]!;
    const e = lw.expr(it.node, `${path}.items[${i}].node`);
    if (e === EMPTY) {
      if (it.required) return EMPTY;
      items.push(null); // an optional item that matches nothing is simply never used
      continue;
    }
    if (it.required) required |= 1 << i;
    items.push(lw.named(`${base}-i${i}`, e));
  }
  let sep: RuleExpr = EPSILON;
  if (n.separator) {
    const e = lw.expr(n.separator, `${path}.separator`);
    if (e === EMPTY) {
      // Only single-item sequences remain possible.
      const alts = items.flatMap((x, i) => (x !== null && (required & ~(1 << i)) === 0 ? [x] : []));
      if (required === 0) alts.push(EPSILON);
      return alts.length === 0 ? EMPTY : altOf(alts);
    }
    if (!isEpsilon(e)) sep = lw.named(`${base}-sep`, e);
  }
  const full = (1 << n.items.length) - 1;
  const stateName = new Map<number, string>();
  const work: number[] = [];
  /** The state after subset `s` is used; EPSILON when only stopping is left. */
  const next = (s: number): RuleExpr => {
    if (s === full || items.every((x, i) => x === null || (s & (1 << i)) !== 0)) return EPSILON;
    let nm = stateName.get(s);
    if (nm === undefined) {
      nm = lw.fresh(`${base}-u${s.toString(16)}`);
      stateName.set(s, nm);
      work.push(s);
    }
    return ref(nm);
  };
  const start: RuleExpr[] = [];
  for (let i = 0; i < items.length; i++) if (items[i] !== null) start.push(seqOf([items[i]!, next(1 << i)]));
  if (required === 0) start.push(EPSILON);
  while (work.length > 0) {
    const s = work.pop()!;
    const alts: RuleExpr[] = [];
    if ((s & required) === required) alts.push(EPSILON);
    for (let i = 0; i < items.length; i++) {
      if (items[i] === null || (s & (1 << i)) !== 0) continue;
      alts.push(seqOf([sep, items[i]!, next(s | (1 << i))]));
    }
    lw.addRule(stateName.get(s)!, altOf(alts));
  }
  return altOf(start);
}

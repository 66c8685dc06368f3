// The rules an export writes, before any notation: what the lowering (lower.ts) decides for a
// target and each printer (print-ebnf.ts, print-lark.ts) spells. An empty language has no node:
// the lowering removes it (EMPTY) before a rule is written, as no target has a "fail" primitive.
import type { Ranges } from "../code-ranges.js";

export type RuleExpr =
  /** A string of code points; no code points is the empty string. */
  | { k: "str"; cps: number[] }
  /** One code point of the set (`negated`: one outside it). */
  | { k: "cls"; ranges: Ranges; negated?: boolean }
  /** One byte of the set: XGrammar 0.1.27 reads class members >= 0x80 as bytes. */
  | { k: "bytes"; ranges: Ranges }
  /** A token terminal by id (`<[id]>`). */
  | { k: "token"; id: number }
  /** A token terminal by its text (`<piece>`), which the engine tokenizes to one token. */
  | { k: "piece"; text: string }
  | { k: "ref"; name: string }
  | { k: "seq"; items: RuleExpr[] }
  | { k: "alt"; items: RuleExpr[] }
  | { k: "rep"; item: RuleExpr; min: number; max: number | null };

export interface Rule {
  name: string;
  body: RuleExpr;
}
/** Rules in writing order; the first is the root. */
export type RuleSet = Rule[];

export const EMPTY = Symbol("empty-language");
/** A lowered node: its rule expression, or EMPTY when it matches no string. */
export type Lowered = RuleExpr | typeof EMPTY;

export const EPSILON: RuleExpr = { k: "seq", items: [] };
export const str = (cps: number[]): RuleExpr => ({ k: "str", cps });
export const ref = (name: string): RuleExpr => ({ k: "ref", name });

export function isEpsilon(e: RuleExpr): boolean {
  return e.k === "seq" ? e.items.length === 0 : e.k === "str" && e.cps.length === 0;
}

/** A sequence of `items` without empty strings; one item stands alone. */
export function seqOf(items: RuleExpr[]): RuleExpr {
  const kept = items.filter((e) => !isEpsilon(e));
  return kept.length === 1 ? kept[0]! : { k: "seq", items: kept };
}

/** A choice among `items`, each once; one item stands alone. */
export function altOf(items: RuleExpr[]): RuleExpr {
  const seen = new Set<string>();
  const kept = items.filter((e) => {
    const key = exprKey(e);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return kept.length === 1 ? kept[0]! : { k: "alt", items: kept };
}

const keys = new WeakMap<RuleExpr, string>();
/** Equal for expressions that write the same text (the lowering shares nodes; keys are cached per node). */
export function exprKey(e: RuleExpr): string {
  let key = keys.get(e);
  if (key !== undefined) return key;
  switch (e.k) {
    case "str":
      key = `s${e.cps.join(",")}`;
      break;
    case "cls":
      key = `c${e.negated ? "^" : ""}${e.ranges.join(";")}`;
      break;
    case "bytes":
      key = `b${e.ranges.join(";")}`;
      break;
    case "token":
      key = `t${e.id}`;
      break;
    case "piece":
      key = `p${e.text}`;
      break;
    case "ref":
      key = `r${e.name}`;
      break;
    case "seq":
    case "alt":
      key = `${e.k}(${e.items.map(exprKey).join(",")})`;
      break;
    case "rep":
      key = `rep${e.min},${e.max}(${exprKey(e.item)})`;
      break;
  }
  keys.set(e, key);
  return key;
}

// What the EBNF export reads off a grammar before writing it: the rules a node refers to, the
// KMP automaton of an until's terminator, and whole-token texts indexed for literal splitting.
import type { GrammarNode } from "./ir.js";

/** Whole-token texts by first code point, longest first. */
export function indexWholeTokens(tokens: ReadonlyMap<string, number>): Map<number, Array<{ cps: number[]; id: number }>> {
  const out = new Map<number, Array<{ cps: number[]; id: number }>>();
  for (const [text, id] of tokens) {
    const cps = Array.from(text, (c) => c.codePointAt(0)!);
    if (cps.length === 0) continue;
    const list = out.get(cps[0]!) ?? [];
    list.push({ cps, id });
    out.set(cps[0]!, list);
  }
  for (const list of out.values()) list.sort((a, b) => b.cps.length - a.cps.length);
  return out;
}

/** The KMP automaton of `T` (code points): state k = k characters of T matched. */
export function kmpStep(T: number[]): (k: number, c: number) => number {
  const fail = new Array<number>(T.length + 1).fill(0);
  for (let i = 1, k = 0; i < T.length; i++) {
    while (k > 0 && T[i] !== T[k]) k = fail[k]!;
    if (T[i] === T[k]) k++;
    fail[i + 1] = k;
  }
  return (k, c) => {
    while (k > 0 && T[k] !== c) k = fail[k]!;
    return T[k] === c ? k + 1 : 0;
  };
}

/** Every rule name `n` refers to, directly. */
export function collectRefs(n: GrammarNode, out: Set<string>): void {
  switch (n.type) {
    case "ref": out.add(n.name); break;
    case "seq": case "alt": for (const x of n.items) collectRefs(x, out); break;
    case "repeat": collectRefs(n.item, out); break;
    case "perm": for (const x of n.items) collectRefs(x.node, out); if (n.separator) collectRefs(n.separator, out); break;
    default: break;
  }
}

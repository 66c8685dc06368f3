// What the export reads off a grammar before writing it: the rules a node refers to and the
// rules' recursive groups, the KMP automaton of an until's terminator, and whole-token texts
// indexed for literal splitting.
import type { GrammarNode } from "../ir.js";

/** Whole-token texts by first code point, longest first. */
export function indexWholeTokens(
  tokens: ReadonlyMap<string, number>,
): Map<number, Array<{ cps: number[]; id: number }>> {
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
    case "ref":
      out.add(n.name);
      break;
    case "seq":
    case "alt":
    case "intersect":
      for (const x of n.items) collectRefs(x, out);
      break;
    case "repeat":
      collectRefs(n.item, out);
      break;
    case "perm":
      for (const x of n.items) collectRefs(x.node, out);
      if (n.separator) collectRefs(n.separator, out);
      break;
    default:
      break;
  }
}

/**
 * Each rule's recursive group (the members of its strongly connected component, sorted; empty
 * for a rule that does not recur), by Tarjan's algorithm over the rules' references.
 */
export function recursiveGroups(rules: Record<string, GrammarNode>): Map<string, string[]> {
  const names = Object.keys(rules);
  const edges = new Map<string, Set<string>>();
  for (const nm of names) {
    const out = new Set<string>();
    collectRefs(rules[nm]!, out);
    edges.set(nm, out);
  }
  const groups = new Map<string, string[]>();
  let index = 0;
  const idx = new Map<string, number>(),
    low = new Map<string, number>(),
    on = new Set<string>();
  const st: string[] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    st.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = st.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      const recursive = comp.length > 1 || edges.get(v)!.has(v);
      for (const m of comp) groups.set(m, recursive ? comp.sort() : []);
    }
  };
  for (const nm of names) if (!idx.has(nm)) visit(nm);
  return groups;
}

// An intersect node, for the exports: grammar notations (GBNF, XGrammar's EBNF, Lark) have no
// intersection, so the texts every item matches are written out as a regular expression, where that
// is small: each item becomes an automaton over code points (its repetitions unrolled), their
// product is built from its start (the pairs reachable, eps moves taken as closures), and the product
// is written back as seq/alt/repeat nodes, one strongly connected part at a time (Arden's rule within
// a part; between parts a rule per state), so no rule refers back to itself. Exactly the language the
// native product accepts (nfa_intersect.cpp), over code points instead of bytes.
//
// A product past `maxIntersectStates` states (default 4096: a host name's 253 characters with its
// labels' 63 need ~16,000) is an EbnfExportError naming the schema (the node's `path`): the export
// is refused, never written looser.
import { ENCODABLE, intersect as cut, mergeRanges, subtract, type Ranges } from "../code-ranges.js";
import type { Grammar, GrammarNode } from "../ir.js";
import { EbnfExportError } from "./options.js";
import { rewriteGrammar } from "./rewrite.js";
import { expandDeparture } from "../departure.js";

const EPSILON: GrammarNode = { type: "literal", text: "" };
const NOTHING: GrammarNode = { type: "alt", items: [] };

class TooLarge extends Error {}

interface Auto {
  edges: Array<Array<[Ranges, number]>>;
  eps: number[][];
  start: number;
  accept: number;
}

/** Thompson's construction of a text node over code points, repetitions unrolled, at most `limit` states. */
class Builder implements Auto {
  readonly edges: Array<Array<[Ranges, number]>> = [];
  readonly eps: number[][] = [];
  readonly start: number;
  readonly accept: number;
  private readonly open: string[] = [];

  constructor(
    node: GrammarNode,
    private readonly rules: Record<string, GrammarNode>,
    private readonly limit: number,
    private readonly path: string,
  ) {
    this.start = this.add();
    this.accept = this.build(node, this.start);
  }

  private add(): number {
    if (this.edges.length >= this.limit) throw new TooLarge();
    this.edges.push([]);
    this.eps.push([]);
    return this.edges.length - 1;
  }

  private read(from: number, r: Ranges): number {
    const to = this.add();
    const ok = cut(r, ENCODABLE);
    if (ok.length) this.edges[from]!.push([ok, to]);
    return to;
  }

  private build(n: GrammarNode, from: number): number {
    switch (n.type) {
      case "literal":
        return Array.from(n.text, (c) => c.codePointAt(0)!).reduce((cur, c) => this.read(cur, [[c, c]]), from);
      case "charClass": {
        const r = mergeRanges(n.ranges);
        return this.read(from, n.negated ? subtract([[0, 0x10ffff]], r) : r);
      }
      case "departure":
        return this.build(expandDeparture(n), from);
      case "seq":
        return n.items.reduce((cur, item) => this.build(item, cur), from);
      case "alt": {
        const to = this.add();
        for (const item of n.items) this.eps[this.build(item, from)]!.push(to);
        return to;
      }
      case "repeat": {
        let cur = from;
        for (let i = 0; i < n.min; i++) cur = this.build(n.item, cur);
        const to = this.add();
        this.eps[cur]!.push(to);
        if (n.max === null) {
          this.eps[this.build(n.item, to)]!.push(to);
          return to;
        }
        for (let i = n.min; i < n.max; i++) {
          cur = this.build(n.item, cur);
          this.eps[cur]!.push(to);
        }
        return to;
      }
      case "ref": {
        const body = this.rules[n.name];
        if (!body) throw new EbnfExportError(`toEbnf: ${this.path}: ref to undefined rule ${JSON.stringify(n.name)}`);
        if (this.open.includes(n.name))
          throw new EbnfExportError(`toEbnf: ${this.path}: an intersection's item refers to itself (rule ${n.name})`);
        this.open.push(n.name);
        const to = this.build(body, from);
        this.open.pop();
        return to;
      }
      case "intersect": {
        // an intersection inside an item: its product, embedded
        const p = productOf(n, this.rules, this.limit, this.path);
        const base = this.edges.length;
        for (let s = 0; s < p.edges.length; s++) this.add();
        p.edges.forEach((es, s) => {
          for (const [r, t] of es) this.edges[base + s]!.push([r, base + t]);
          for (const t of p.eps[s]!) this.eps[base + s]!.push(base + t);
        });
        this.eps[from]!.push(base + p.start);
        return base + p.accept;
      }
      default:
        throw new EbnfExportError(
          `toEbnf: ${this.path}: an intersection's items must be text (literals, classes, sequences, choices, repetitions), not ${n.type}`,
        );
    }
  }
}

/** Each state's closure: the states its eps moves reach, itself included. */
function closures(a: Auto): number[][] {
  return a.eps.map((_, s) => {
    const seen = new Set([s]);
    const stack = [s];
    while (stack.length)
      for (const t of a.eps[stack.pop()!]!)
        if (!seen.has(t)) {
          seen.add(t);
          stack.push(t);
        }
    return [...seen];
  });
}

/** The product of two automata from their starts: a state per pair of states that read or accept. */
function product(a: Auto, b: Auto, limit: number): Auto {
  const ca = closures(a),
    cb = closures(b);
  const core = (x: Auto, s: number) => x.edges[s]!.length > 0 || s === x.accept;
  const p: Auto = { edges: [[]], eps: [[]], start: 0, accept: 1 };
  p.edges.push([]);
  p.eps.push([]);
  const ids = new Map<string, number>();
  const work: Array<[number, number]> = [];
  const pair = (x: number, y: number) => {
    const key = `${x},${y}`;
    let id = ids.get(key);
    if (id === undefined) {
      if (p.edges.length >= limit) throw new TooLarge();
      id = p.edges.length;
      p.edges.push([]);
      p.eps.push([]);
      ids.set(key, id);
      work.push([x, y]);
    }
    return id;
  };
  const land = (from: number, x: number, y: number, r: Ranges | null) => {
    for (const u of ca[x]!)
      if (core(a, u))
        for (const v of cb[y]!)
          if (core(b, v)) {
            const to = pair(u, v);
            if (r) p.edges[from]!.push([r, to]);
            else p.eps[from]!.push(to);
          }
  };
  land(p.start, a.start, b.start, null);
  while (work.length) {
    const [x, y] = work.pop()!;
    const from = ids.get(`${x},${y}`)!;
    if (x === a.accept && y === b.accept) p.eps[from]!.push(p.accept);
    for (const [ra, ta] of a.edges[x]!)
      for (const [rb, tb] of b.edges[y]!) {
        const r = cut(ra, rb);
        if (r.length) land(from, ta, tb, r);
      }
  }
  return p;
}

function productOf(n: { items: GrammarNode[] }, rules: Record<string, GrammarNode>, limit: number, path: string) {
  if (n.items.length === 0) throw new EbnfExportError(`toEbnf: ${path}: intersect needs at least one item`);
  return n.items
    .map((item, i): Auto => new Builder(item, rules, limit, `${path}.items[${i}]`))
    .reduce((acc, x) => product(acc, x, limit));
}

const seqOf = (items: GrammarNode[]): GrammarNode =>
  items.length === 1 ? items[0]! : { type: "seq", items: items.flatMap((x) => (x.type === "seq" ? x.items : [x])) };
const altOf = (items: GrammarNode[]): GrammarNode => {
  const flat = items.flatMap((x) => (x.type === "alt" ? x.items : [x]));
  return flat.length === 1 ? flat[0]! : { type: "alt", items: flat };
};

/**
 * The automaton's language as nodes: a rule per state outside a cycle, Arden's rule inside each
 * strongly connected part (solved in turn, so that no rule refers back to itself). New rules go to
 * `rules` under `prefix`.
 */
function toNodes(p: Auto, rules: Record<string, GrammarNode>, prefix: string): GrammarNode {
  // eps moves removed: each state reads what its closure reads, and accepts where its closure does
  const cl = closures(p);
  const n = p.edges.length;
  const accepts = cl.map((c) => c.includes(p.accept));
  const reads: Array<Map<number, Ranges>> = cl.map((c) => {
    const m = new Map<number, Ranges>();
    for (const s of c) for (const [r, t] of p.edges[s]!) m.set(t, mergeRanges([...(m.get(t) ?? []), ...r]));
    return m;
  });
  // the states that can still accept
  const live = new Array<boolean>(n).fill(false);
  const back: number[][] = Array.from({ length: n }, () => []);
  reads.forEach((m, s) => {
    for (const t of m.keys()) back[t]!.push(s);
  });
  const stack = accepts.flatMap((a, s) => (a ? [s] : []));
  for (const s of stack) live[s] = true;
  while (stack.length)
    for (const s of back[stack.pop()!]!)
      if (!live[s]) {
        live[s] = true;
        stack.push(s);
      }
  if (!live[p.start]) return NOTHING;
  // Tarjan's strongly connected parts, from the start: each part is found after the parts it leads to
  const index = new Array<number>(n).fill(-1),
    low = new Array<number>(n).fill(0),
    onStack = new Array<boolean>(n).fill(false);
  const parts: number[][] = [];
  const st: number[] = [];
  let counter = 0;
  const next = (s: number) => [...reads[s]!.keys()].filter((t) => live[t]);
  const visit = (root: number) => {
    // iterative: [state, its successors, position]
    const frames: Array<[number, number[], number]> = [[root, next(root), 0]];
    index[root] = low[root] = counter++;
    st.push(root);
    onStack[root] = true;
    while (frames.length) {
      const f = frames[frames.length - 1]!;
      const [s, succ] = f;
      if (f[2] < succ.length) {
        const t = succ[f[2]++]!;
        if (index[t] === -1) {
          index[t] = low[t] = counter++;
          st.push(t);
          onStack[t] = true;
          frames.push([t, next(t), 0]);
        } else if (onStack[t]) low[s] = Math.min(low[s]!, index[t]!);
        continue;
      }
      frames.pop();
      if (frames.length) {
        const parent = frames[frames.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[s]!);
      }
      if (low[s] === index[s]) {
        const part: number[] = [];
        let t: number;
        do {
          t = st.pop()!;
          onStack[t] = false;
          part.push(t);
        } while (t !== s);
        parts.push(part);
      }
    }
  };
  visit(p.start);
  let count = 0;
  const rule = (node: GrammarNode): GrammarNode => {
    if (node.type === "ref" || node.type === "literal" || node.type === "charClass") return node;
    const name = `${prefix}.${count++}`;
    rules[name] = node;
    return { type: "ref", name };
  };
  const solved = new Map<number, GrammarNode>();
  const cls = (r: Ranges): GrammarNode => ({ type: "charClass", ranges: r });
  for (const part of parts) {
    const inPart = new Set(part);
    // X_s = Σ A[s][t] X_t (t in the part) + B[s]
    const A = new Map<number, Map<number, GrammarNode>>();
    const B = new Map<number, GrammarNode[]>();
    for (const s of part) {
      const row = new Map<number, GrammarNode>();
      const rest: GrammarNode[] = accepts[s] ? [EPSILON] : [];
      for (const [t, r] of reads[s]!) {
        if (!live[t]) continue;
        if (inPart.has(t)) row.set(t, cls(r));
        else rest.push(seqOf([cls(r), solved.get(t)!]));
      }
      A.set(s, row);
      B.set(s, rest);
    }
    // eliminate the part's states in turn (Arden: X = a X + b is X = a* b)
    for (let k = 0; k < part.length; k++) {
      const s = part[k]!;
      const row = A.get(s)!;
      const self = row.get(s);
      row.delete(s);
      const loop = self ? ({ type: "repeat", item: rule(self), min: 0, max: null } satisfies GrammarNode) : null;
      const tail = (x: GrammarNode) => (loop ? seqOf([loop, x]) : x);
      for (const [t, a] of row) row.set(t, tail(a));
      B.set(s, B.get(s)!.length ? [tail(altOf(B.get(s)!))] : []);
      const sRow = [...row].map(([t, a]): [number, GrammarNode] => [t, rule(a)]);
      const sB = B.get(s)!.length ? rule(B.get(s)![0]!) : null;
      for (let j = k + 1; j < part.length; j++) {
        const u = part[j]!;
        const uRow = A.get(u)!;
        const via = uRow.get(s);
        if (!via) continue;
        uRow.delete(s);
        const v = rule(via);
        for (const [t, a] of sRow) {
          const add = seqOf([v, a]);
          uRow.set(t, uRow.has(t) ? altOf([uRow.get(t)!, add]) : add);
        }
        if (sB) B.get(u)!.push(seqOf([v, sB]));
      }
    }
    // back substitution: the last state's equation refers to no other state of the part
    for (let k = part.length - 1; k >= 0; k--) {
      const s = part[k]!;
      const alts = [...B.get(s)!];
      for (const [t, a] of A.get(s)!) alts.push(seqOf([a, solved.get(t)!]));
      solved.set(s, rule(alts.length ? altOf(alts) : NOTHING));
    }
  }
  return solved.get(p.start)!;
}

/** `grammar` with every intersect node written as nodes without one (new rules under a fresh prefix). */
export function expandIntersections(grammar: Grammar, maxStates = 4096): Grammar {
  return rewriteGrammar(grammar, "intersect", (n, path, r) => {
    if (n.type !== "intersect") return undefined;
    const where = n.path ?? path;
    let p: Auto;
    try {
      p = productOf(n, r.rules, maxStates, where);
    } catch (e) {
      if (!(e instanceof TooLarge)) throw e;
      throw new EbnfExportError(
        `toEbnf: ${where}: the strings here must match ${n.items.length} languages at once (a pattern, a format, a length, allOf), which has no intersection in a grammar notation and as one regular grammar needs more than ${maxStates} states; not exportable (loosen or drop one of the constraints)`,
      );
    }
    return toNodes(p, r.rules, r.fresh());
  });
}

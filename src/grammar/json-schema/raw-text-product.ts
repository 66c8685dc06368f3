// Raw text as one regular expression (the IR's seq/alt/repeat, no recursion): the string grammar
// cut at the value's close as the product of the string grammar with the close's automaton
// (raw-close.ts), built part by part. The compiler takes raw text as an until node with the string
// grammar as its body (raw-text.ts), whose product the native builder makes over bytes; this
// expansion is what the exports write for such a node (grammar notations have no intersection),
// exactly the language the native product accepts. With trimNewline, one newline after the open
// and one before the close are padding, exactly as the parser strips them: the automaton also
// tracks whether the string starts and ends with a newline.
//
// A string of any characters (at most a bound) stays the native `until` node.
import { complement, inRanges, mergeRanges, subtractPoints, type Ranges } from "../code-ranges.js";
import { literal, optional, ref, repeat, until } from "../builders.js";
import { choice, countNodes, EMPTY_STRING, sequence, type Lowered, type Node } from "./nodes.js";
import { CloseAutomaton, NL, type RawClose, type State } from "./raw-close.js";
import { isAnyChar, RAW_UNROLL_MAX, recursionError, resolve, unrollError } from "./raw-text.js";
import { SHARE_ABOVE } from "./value-rules.js";

class Product extends CloseAutomaton {
  private readonly memo = new Map<string, Map<State, Node>>();
  private readonly active = new Set<string>();
  private readonly resets = new Map<string, Map<State, Node>>();
  private n = 0;

  constructor(
    private readonly rules: Record<string, Node>,
    raw: RawClose,
    private readonly prefix: string,
    private readonly path: string,
  ) {
    super(raw);
  }

  /** `n` as a rule, whatever its size (a common head `merged` can factor). */
  rule(n: Node): Node {
    if (n.type === "ref") return n;
    const name = `${this.prefix}.${this.n++}`;
    this.rules[name] = n;
    return ref(name);
  }

  /** A node used in several places: a rule when large, so the IR stays a DAG. */
  share(n: Node): Node {
    if (n.type === "ref" || countNodes(n) <= SHARE_ABOVE) return n;
    const name = `${this.prefix}.${this.n++}`;
    this.rules[name] = n;
    return ref(name);
  }

  /** For each state `node` can lead `s` to, the strings of `node` that do. */
  of(node: Node, s: State): Map<State, Node> {
    switch (node.type) {
      case "literal": {
        let cur: State | undefined = s;
        for (const ch of node.text) {
          cur = this.stepChar(cur, ch.codePointAt(0)!);
          if (cur === undefined) return new Map();
        }
        return new Map([[cur, node]]);
      }
      case "charClass": {
        const r = node.negated ? complement(mergeRanges(node.ranges)) : mergeRanges(node.ranges);
        const out = new Map<State, Node>();
        for (const [part, t] of this.step(s, r)) out.set(t, { type: "charClass", ranges: part });
        return out;
      }
      case "seq":
        return node.items.reduce((cur, item) => this.then(cur, item), new Map([[s, EMPTY_STRING]]));
      case "alt": {
        const out = new Map<State, Node>();
        for (const item of node.items) for (const [t, n] of this.of(item, s)) add(out, t, n);
        return out;
      }
      case "ref":
        return this.ofRule(node.name, s);
      case "repeat":
        return this.repeat(node.item, node.min, node.max, s);
      default:
        throw new Error(`raw text: a ${node.type} node in a string's grammar`);
    }
  }

  private ofRule(name: string, s: State): Map<State, Node> {
    const key = `${name}@${s}`;
    const seen = this.memo.get(key);
    if (seen) return seen;
    if (this.active.has(key)) throw recursionError(this.path);
    this.active.add(key);
    const out = new Map<State, Node>();
    for (const [t, n] of this.of(this.rules[name]!, s)) out.set(t, this.share(n));
    this.active.delete(key);
    this.memo.set(key, out);
    return out;
  }

  /** `cur` (strings by the state they lead to) followed by `item`. */
  private then(cur: Map<State, Node>, item: Node): Map<State, Node> {
    const out = new Map<State, Node>();
    for (const [m, pre] of cur) {
      const after = this.of(item, m);
      const p = after.size > 1 ? this.share(pre) : pre;
      for (const [t, n] of after) add(out, t, sequence(p, n));
    }
    return out;
  }

  private repeat(item: Node, min: number, max: number | null, s: State): Map<State, Node> {
    const r = resolve(item, this.rules);
    if (r.type === "charClass") item = r;
    const once = this.of(item, s);
    // the item keeps the state (no close character, no newline to track): the repeat as it is
    if (once.size === 1 && once.has(s)) return new Map([[s, repeat(once.get(s)!, min, max)]]);
    if (once.size === 0) return min === 0 ? new Map([[s, EMPTY_STRING]]) : new Map();
    const unroll = max ?? min;
    if (unroll > RAW_UNROLL_MAX) throw unrollError(this.path, this.raw.close, unroll);
    let cur = new Map<State, Node>([[s, EMPTY_STRING]]);
    for (let i = 0; i < min; i++) cur = this.shareAll(this.then(cur, item));
    if (max !== null) {
      for (let i = min; i < max; i++) {
        const more = this.then(cur, item);
        for (const [t, n] of cur) add(more, t, n);
        cur = this.shareAll(more);
      }
      return cur;
    }
    return this.star(cur, item);
  }

  /**
   * `x*` from state `s`, by the state it leads to, in a size linear in the close's length: a string
   * avoiding the close is a run of units read from a reset state (no close character matched): U,
   * one character but the close's first; V, the close's first j characters and one that neither
   * continues nor restarts it, after any number of Z (such prefixes broken by the close's first
   * character); the last unit decides the state it ends in.
   */
  starOf(x: Ranges, s: State): Map<State, Node> {
    const q = this.q(s);
    const out = new Map<State, Node>([[s, EMPTY_STRING]]);
    const then = (lead: Node | null, m: Map<State, Node>) => {
      for (const [t, n] of m) add(out, t, sequence(lead, n));
    };
    if (q <= 0) {
      then(null, this.fromReset(x, s, "any"));
      return out;
    }
    // in the middle of the close: go on with it, then break it (back to a reset state) or restart it
    const st = (nq: number) => this.state(nq, this.first(s));
    for (let i = q; i < this.k; i++) {
      if (i > q && !inRanges(x, this.c[i - 1]!)) break;
      const pre = this.rule(literal(String.fromCodePoint(...this.c.slice(q, i))));
      if (i > q) add(out, st(i), pre);
      const broken = subtractPoints(x, [this.c[i]!, this.c[0]!, ...(this.raw.trimNewline ? [NL] : [])]);
      const leads: Array<[Node, State]> = [];
      if (broken.length) leads.push([this.rule(sequence(pre, { type: "charClass", ranges: broken })), st(0)]);
      if (this.raw.trimNewline && inRanges(x, NL)) leads.push([this.rule(sequence(pre, literal("\n"))), st(-1)]);
      for (const [lead, t] of leads) {
        add(out, t, lead);
        then(lead, this.fromReset(x, s, "any"));
      }
      if (inRanges(x, this.c[0]!)) then(pre, this.fromReset(x, s, "c0"));
    }
    return out;
  }

  /**
   * Non-empty strings of `x*` read from a reset state (first-character flag of `s`), by the state
   * they end in: all of them ("any"), or those that start with the close's first character ("c0").
   */
  private fromReset(x: Ranges, s: State, starts: "any" | "c0"): Map<State, Node> {
    const key = `${JSON.stringify(x)}|${this.first(s)}|${starts}`;
    const seen = this.resets.get(key);
    if (seen) return seen;
    const u = this.units(x, s);
    const loop = this.rule(repeat(this.share(u.loopNode), 0, null));
    const out = new Map<State, Node>();
    // the last unit decides the state
    const ends: Array<[State, Lowered]> = [
      [u.st(0), choice([u.Uo, u.zv(u.Vo)])],
      [u.st(-1), choice([u.Unl, u.zv(u.Vn)])],
      ...u.Z.map((z, j): [State, Lowered] => [u.st(j + 1), z && u.zv(z)]),
    ];
    const firstC0 = choice([u.zv(u.Vo), u.zv(u.Vn)]);
    for (const [t, end] of ends) {
      if (!end) continue;
      if (starts === "any") add(out, t, sequence(loop, end));
      else {
        // one unit group (Z* then V, or Z* then the last Z), or a first V-group, any units, and the last
        const q = this.q(t);
        const only = q === 0 ? u.zv(u.Vo) : q === -1 ? u.zv(u.Vn) : u.zv(u.Z[q - 1]!);
        const n = choice([only, firstC0 && sequence(this.rule(firstC0), loop, end)]);
        if (n) add(out, t, n);
      }
    }
    this.resets.set(key, out);
    return out;
  }

  /** The units of `x*` read from a reset state with the first-character flag of `s`. */
  units(x: Ranges, s: State) {
    const f = this.first(s);
    const st = (q: number) => this.state(q, f);
    const trim = this.raw.trimNewline;
    const cls = (r: Ranges): Node | null => (r.length ? { type: "charClass", ranges: r } : null);
    const Uo = cls(subtractPoints(x, trim ? [this.c[0]!, NL] : [this.c[0]!]));
    const Unl = trim && inRanges(x, NL) ? literal("\n") : null;
    // Z[j-1]: the close's first j characters (j = 1 … k-1), where x holds them all
    const Z: Array<Node | null> = [];
    for (let j = 1; j < this.k; j++)
      Z.push(
        this.c.slice(0, j).every((c) => inRanges(x, c)) ? literal(String.fromCodePoint(...this.c.slice(0, j))) : null,
      );
    const Vo = choice(
      Z.map((z, j) => {
        const d = cls(subtractPoints(x, [this.c[j + 1]!, this.c[0]!, ...(trim ? [NL] : [])]));
        return z && d && sequence(z, d);
      }),
    );
    const Vn = Unl ? choice(Z.map((z) => z && sequence(z, literal("\n")))) : null;
    const zAll = choice(Z);
    const zStar = zAll ? repeat(this.share(zAll), 0, null) : null;
    const zv = (n: Node | null): Lowered => n && sequence(zStar, n);
    const loopNode = choice([Uo, Unl, zv(Vo), zv(Vn)]) ?? EMPTY_STRING;
    return { st, Uo, Unl, Z, Vo, Vn, zv, loopNode };
  }

  private shareAll(m: Map<State, Node>): Map<State, Node> {
    return new Map([...m].map(([t, n]) => [t, this.share(n)]));
  }

  /** `cur` followed by any number of `item`: Kleene's construction over the states reachable. */
  private star(cur: Map<State, Node>, item: Node): Map<State, Node> {
    // Nothing read yet: the first item is taken on its own, so the loop's states all know the first character.
    const fresh = [...cur].filter(([s]) => this.first(s) === 0 && this.raw.trimNewline);
    if (fresh.length) {
      const next = new Map([...cur].filter(([s]) => !(this.first(s) === 0 && this.raw.trimNewline)));
      for (const [t, n] of this.then(new Map(fresh), item)) if (this.first(t) !== 0) add(next, t, n);
      const out = next.size ? this.star(this.shareAll(next), item) : new Map<State, Node>();
      for (const [s, n] of fresh) add(out, s, n);
      return out;
    }
    if (item.type === "charClass") {
      const r = item.negated ? complement(mergeRanges(item.ranges)) : mergeRanges(item.ranges);
      const out = new Map<State, Node>();
      for (const [u, pre] of cur) {
        const p = this.share(pre);
        for (const [t, n] of this.starOf(r, u)) add(out, t, sequence(p, n));
      }
      return out;
    }
    const states = [...cur.keys()];
    const edges = new Map<State, Map<State, Node>>();
    for (let i = 0; i < states.length; i++) {
      const m = this.of(item, states[i]!);
      edges.set(states[i]!, m);
      for (const t of m.keys()) if (!states.includes(t)) states.push(t);
    }
    const n = states.length;
    // R[i][j]: one or more items from state i to state j (none: null)
    let R: Lowered[][] = states.map((a) => states.map((b) => edges.get(a)!.get(b) ?? null));
    for (let m = 0; m < n; m++) {
      const loop = R[m]![m] ? repeat(this.share(R[m]![m]!), 0, null) : null;
      R = R.map((row, i) =>
        row.map((rij, j) => {
          const rim = R[i]![m],
            rmj = R[m]![j];
          if (!rim || !rmj) return rij;
          return this.share(choice([rij, sequence(this.share(rim), loop, this.share(rmj))])!);
        }),
      );
    }
    const out = new Map<State, Node>();
    for (const [u, pre] of cur) {
      const i = states.indexOf(u);
      const p = this.share(pre);
      add(out, u, p);
      for (let j = 0; j < n; j++) if (R[i]![j]) add(out, states[j]!, sequence(p, R[i]![j]!));
    }
    return out;
  }
}

const wrap = (a: Node, n: Lowered, b: Node): Lowered => n && sequence(a, n, b);

function add(m: Map<State, Node>, t: State, n: Node) {
  m.set(t, m.has(t) ? merged([m.get(t)!, n])! : n);
}

/** A choice with alternatives that begin with the same rule factored (`A x | A y` → `A (x | y)`): each rule reference is a copy in the automaton. */
function merged(parts: Array<Lowered>): Lowered {
  const flat: Node[] = [];
  for (const p of parts) if (p) flat.push(...(p.type === "alt" ? p.items : [p]));
  const groups = new Map<string, Node[]>();
  const out: Array<Node | string> = [];
  for (const n of flat) {
    const head =
      n.type === "seq" && n.items[0]!.type === "ref" ? n.items[0]!.name : n.type === "ref" ? n.name : undefined;
    if (head === undefined) {
      out.push(n);
      continue;
    }
    if (!groups.has(head)) {
      groups.set(head, []);
      out.push(head);
    }
    groups.get(head)!.push(n.type === "seq" ? sequence(...n.items.slice(1)) : EMPTY_STRING);
  }
  return choice(
    out.map((o) => {
      if (typeof o !== "string") return o;
      const rests = groups.get(o)!;
      return rests.length === 1 ? sequence(ref(o), rests[0]) : sequence(ref(o), merged(rests) ?? EMPTY_STRING);
    }),
  );
}

/**
 * The raw text of a value whose strings `root` describes (in the raw syntax), through its close, as
 * one regular expression. New rules go to `rules` under `prefix`.
 */
export function rawTextRegex(
  root: Node,
  rules: Record<string, Node>,
  raw: RawClose,
  prefix: string,
  path: string,
): Lowered {
  const top = resolve(root, rules);
  if (top.type === "repeat" && isAnyChar(top.item, rules)) {
    // any string of min…max characters: the native until node, padding newlines not counted (a
    // bound past the string limit was refused by the lowering)
    return until(raw.close, {
      ...(top.max === null ? {} : { maxLength: top.max }),
      ...(top.min > 0 ? { minLength: top.min } : {}),
      ...(raw.trimNewline && (top.min > 0 || top.max !== null) ? { trimNewline: true } : {}),
    });
  }
  const p = new Product(rules, raw, prefix, path);
  const ends = p.of(root, p.state(0, 0));
  const close = literal(raw.close);
  if (!raw.trimNewline) {
    const all = merged([...ends.values()]);
    return all && sequence(p.share(all), close);
  }
  // The parser strips one newline at the start and one at the end: text = [\n] string [\n], where
  // a string starting (ending) with a newline must have the padding newline written before (after) it.
  const pick = (ok: (s: State) => boolean) => merged([...ends].filter(([s]) => ok(s)).map(([, n]) => n));
  // by whether the string starts (first = 1) and ends (q = -1) with a newline: each class once
  const nlStart = (s: State) => p.first(s) === 1,
    nlEnd = (s: State) => p.q(s) === -1;
  const nl = literal("\n"),
    pad = optional(nl);
  const body = choice([
    wrap(
      pad,
      pick((s) => !nlStart(s) && !nlEnd(s)),
      pad,
    ),
    wrap(
      pad,
      pick((s) => !nlStart(s) && nlEnd(s)),
      nl,
    ),
    wrap(
      nl,
      pick((s) => nlStart(s) && !nlEnd(s)),
      pad,
    ),
    wrap(
      nl,
      pick((s) => nlStart(s) && nlEnd(s)),
      nl,
    ),
  ]);
  return body && sequence(p.share(body), close);
}

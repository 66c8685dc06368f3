// Which parts of a grammar accept at least one string ("productive", as a context-free grammar's
// nonterminals are): a rule that can only go on referring to itself (`x: "[" x "]"`), an empty
// alternative, a class of no characters, or a sequence holding one of those accepts nothing. The
// native compiler finds the same thing when it builds the start state ("the grammar accepts
// nothing"); found here (compileGrammar asks when the native compile fails), the caller can say which
// schema or rule it was.
//
// Recursion depth does not change the answer: a productive rule has a derivation in which no
// rule occurs twice along one path (the shortest one), so expanding each rule at most once per
// path — what maxRecursionDepth 0 allows — already reaches a string.
//
// Linear in the grammar: every node is visited once, and a node is marked productive once, from its
// children (an "and" node counts the children still unproductive, an "or" node needs one). Nodes the
// analysis cannot judge (unknown types, malformed ones, a `jsonSchema` node not yet lowered, a
// reference to no rule) count as productive: the native compiler judges those.
import { EmptyGrammarError } from "./errors.js";
import type { Grammar, GrammarNode } from "./ir.js";
import { departureAcceptsSomething, wellFormedDeparture } from "./departure.js";

type Kind = "and" | "or";

interface Vertex {
  kind: Kind;
  /** Children still unproductive (and), or 1 until one child is productive (or). */
  waiting: number;
  parents: number[];
  productive: boolean;
}

/** The productivity of every node and rule of one grammar. */
export class Productivity {
  private readonly vertices: Vertex[] = [];
  private readonly ids = new Map<object, number>();
  private readonly ruleIds = new Map<string, number>();
  private readonly ready: number[] = [];

  private readonly lookup: (name: string) => GrammarNode | undefined;

  /**
   * `rules`: the grammar's rules, or a lookup of them by name (which must answer a name the same
   * way every time it is asked: an answer is kept).
   */
  constructor(rules: Record<string, GrammarNode> | ((name: string) => GrammarNode | undefined) = {}) {
    this.lookup =
      typeof rules === "function" ? rules : (name) => (Object.hasOwn(rules, name) ? rules[name] : undefined);
  }

  /** Whether `node` (with the rules given) accepts at least one string. */
  accepts(node: GrammarNode): boolean {
    const id = this.vertex(node);
    this.settle();
    return this.vertices[id]!.productive;
  }

  /** Whether the rule `name` accepts at least one string (a rule the grammar lacks counts as one that does). */
  ruleAccepts(name: string): boolean {
    const id = this.rule(name);
    this.settle();
    return this.vertices[id]!.productive;
  }

  /**
   * The first rule (depth first, in the order the grammar writes its parts) that `node` cannot do
   * without and that accepts nothing: where an unproductive node's emptiness comes from a
   * reference. Undefined when `node` accepts a string, or when its emptiness is its own.
   */
  blame(node: GrammarNode): string | undefined {
    if (this.accepts(node)) return undefined;
    const stack: GrammarNode[] = [node];
    const seen = new Set<object>();
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n === null || typeof n !== "object" || seen.has(n)) continue;
      seen.add(n);
      if (n.type === "ref") {
        if (typeof n.name === "string" && !this.ruleAccepts(n.name)) return n.name;
        continue;
      }
      const id = this.ids.get(n);
      if (id === undefined || this.vertices[id]!.productive) continue;
      const { children } = shape(n);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
    return undefined;
  }

  private add(kind: Kind, waiting: number): number {
    const id = this.vertices.length;
    this.vertices.push({ kind, waiting, parents: [], productive: false });
    if (waiting === 0) this.ready.push(id);
    return id;
  }

  private rule(name: string): number {
    let id = this.ruleIds.get(name);
    if (id !== undefined) return id;
    const body = this.lookup(name);
    if (body === undefined) {
      id = this.add("and", 0);
      this.ruleIds.set(name, id);
      return id;
    }
    id = this.add("and", 1);
    this.ruleIds.set(name, id); // before its body: recursion finds it
    this.link(id, this.vertex(body));
    return id;
  }

  private link(parent: number, child: number): void {
    const c = this.vertices[child]!;
    if (c.productive) this.childDone(parent);
    else c.parents.push(parent);
  }

  private childDone(parent: number): void {
    const p = this.vertices[parent]!;
    if (p.productive || p.waiting === 0) return;
    p.waiting = p.kind === "or" ? 0 : p.waiting - 1;
    if (p.waiting === 0) this.ready.push(parent);
  }

  /** The vertex of `node`, built with its children (iteratively: a grammar may nest deeply). */
  private vertex(root: GrammarNode): number {
    const known = this.ids.get(root as object);
    if (known !== undefined) return known;
    // Each entry: a node whose vertex is made and whose children are still to be linked.
    const pending: Array<{ id: number; children: GrammarNode[] }> = [];
    const make = (n: GrammarNode): number => {
      if (n === null || typeof n !== "object") return this.add("and", 0);
      const seen = this.ids.get(n);
      if (seen !== undefined) return seen;
      let id: number;
      const { kind, children, leaf } = shape(n);
      if (n.type === "ref") id = typeof n.name === "string" ? this.rule(n.name) : this.add("and", 0);
      else if (leaf !== undefined) id = this.add("and", leaf ? 0 : 1);
      else {
        // An "or" waits for one child (one of none never comes); an "and" for all of them.
        id = this.add(kind, kind === "or" ? 1 : children.length);
        pending.push({ id, children });
      }
      this.ids.set(n, id);
      return id;
    };
    const top = make(root);
    while (pending.length > 0) {
      const { id, children } = pending.pop()!;
      for (const c of children) this.link(id, make(c));
    }
    return top;
  }

  private settle(): void {
    while (this.ready.length > 0) {
      const id = this.ready.pop()!;
      const v = this.vertices[id]!;
      if (v.productive) continue;
      v.productive = true;
      for (const p of v.parents) this.childDone(p);
      v.parents = [];
    }
  }
}

/** What a node needs of its children: all of them (and) or one (or); or, for a leaf, whether it accepts a string. */
function shape(n: GrammarNode): { kind: Kind; children: GrammarNode[]; leaf?: boolean } {
  const none: GrammarNode[] = [];
  switch (n.type) {
    case "seq":
      return Array.isArray(n.items) ? { kind: "and", children: n.items } : { kind: "and", children: none, leaf: true };
    case "alt":
      return Array.isArray(n.items) ? { kind: "or", children: n.items } : { kind: "and", children: none, leaf: true };
    case "intersect":
      // every item must accept something; whether the items share a string is the lowering's to
      // find (json-schema/rx-automaton.ts), else the native compiler's
      return Array.isArray(n.items) ? { kind: "and", children: n.items } : { kind: "and", children: none, leaf: true };
    case "repeat":
      return typeof n.min === "number" && n.min > 0 && n.item
        ? { kind: "and", children: [n.item] }
        : {
            kind: "and",
            children: none,
            leaf: !(typeof n.max === "number" && typeof n.min === "number" && n.min > n.max),
          };
    case "perm": {
      if (!Array.isArray(n.items)) return { kind: "and", children: none, leaf: true };
      // Optional items that accept nothing are left out; a separator stands between two items.
      const required = n.items.filter((it) => it && it.required !== false).map((it) => it.node);
      return { kind: "and", children: required.length > 1 && n.separator ? [...required, n.separator] : required };
    }
    case "until":
      // with a body, the body's texts that avoid the terminator: a body accepting nothing leaves
      // none (the body's strings that all hold the terminator are the native compiler's to find)
      return n.body ? { kind: "and", children: [n.body] } : { kind: "and", children: none, leaf: true };
    case "charClass":
    case "byteClass":
      return {
        kind: "and",
        children: none,
        leaf: n.negated === true || !Array.isArray(n.ranges) || n.ranges.length > 0,
      };
    case "departure":
      // a malformed one is the native compiler's to report
      return { kind: "and", children: none, leaf: !wellFormedDeparture(n) || departureAcceptsSomething(n) };
    default:
      // literal, text, token, jsonSchema, and whatever the native compiler will refuse.
      return { kind: "and", children: none, leaf: true };
  }
}

/** Throws EmptyGrammarError when `grammar` accepts no string at all. */
export function assertAcceptsSomething(grammar: Grammar): void {
  const p = new Productivity(grammar.rules ?? {});
  if (p.accepts(grammar.root)) return;
  const rule = p.blame(grammar.root);
  throw new EmptyGrammarError(
    `the grammar accepts nothing: every path holds an alternative of nothing, a class of no characters or a rule that only leads back to itself${rule === undefined ? "" : ` (rule ${JSON.stringify(rule)} is one)`}, so no string fits it; give each rule a way out (an alternative that does not refer back to it)`,
  );
}

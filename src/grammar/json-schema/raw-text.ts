// Raw text values (syntax "raw"): the lowering's string grammar (strings as their characters, no
// quotes, no escapes) cut at the value's close. The value is the text up to the FIRST close (the
// parser's rule), so the grammar keeps exactly the strings that do not contain the close: an
// `until` node whose body is the string grammar, which the native builder makes into the product
// of the body's automaton with the close's KMP automaton, over bytes, only the pairs reachable
// from its start (native/core/nfa_until_body.cpp); with trimNewline, one newline after the open
// and one before the close are padding, exactly as the parser strips them. The string grammar
// stays the size it is in JSON: nothing is multiplied out here. (raw-text-product.ts builds the same
// language as one regular expression, for the exports.)
//
// What the lowering decides before that, by walking the string grammar over the close's automaton
// (which states each part can lead to, no nodes built): that some string avoids the close (else
// the schema matches no value), that no string rule refers to itself, and the repetition limit.
//
// A string of any characters (at most a bound) is the native `until` node with its bounds.
//
// An intersection (a string's pattern, format and length at once) is a body like any other: the
// native builder makes the items' product first (nfa_intersect.cpp), its counters kept.
import { complement, mergeRanges } from "../code-ranges.js";
import { until } from "../builders.js";
import type { UntilNode } from "../ir.js";
import { limitError } from "../schema-limits.js";
import { UnsupportedSchemaError } from "./errors.js";
import { choice, type Lowered, type Node } from "./nodes.js";
import { CloseAutomaton, type RawClose, type State } from "./raw-close.js";

export type { RawClose } from "./raw-close.js";

/** Repetitions a bounded repeat whose item moves the close's automaton may have in raw text. */
export const RAW_UNROLL_MAX = 4096;

export const recursionError = (path: string) =>
  new UnsupportedSchemaError(
    path,
    "$ref",
    'a string schema that refers to itself through "$ref" is not supported in a raw-text value; write the string schema without the recursion',
  );

export const unrollError = (path: string, close: string, unroll: number) =>
  limitError(
    "repetition",
    path,
    `a raw-text value repeats a part that may hold ${JSON.stringify(close[0])} or a newline ${unroll} times, more than the limit of ${RAW_UNROLL_MAX} for raw text; lower the bound`,
  );

/** Which states each part of a string grammar can lead a state to (the product's states, without the product). */
class Reach extends CloseAutomaton {
  private readonly memo = new Map<string, Set<State>>();
  private readonly active = new Set<string>();

  constructor(
    private readonly rules: Record<string, Node>,
    raw: RawClose,
    private readonly path: string,
  ) {
    super(raw);
  }

  of(node: Node, s: State): Set<State> {
    switch (node.type) {
      case "literal": {
        let cur: State | undefined = s;
        for (const ch of node.text) {
          cur = this.stepChar(cur, ch.codePointAt(0)!);
          if (cur === undefined) return new Set();
        }
        return new Set([cur]);
      }
      case "charClass": {
        const r = node.negated ? complement(mergeRanges(node.ranges)) : mergeRanges(node.ranges);
        return new Set(this.step(s, r).map(([, t]) => t));
      }
      case "seq":
        return node.items.reduce((cur, item) => this.then(cur, item), new Set([s]));
      case "alt": {
        const out = new Set<State>();
        for (const item of node.items) for (const t of this.of(item, s)) out.add(t);
        return out;
      }
      case "ref": {
        const key = `${node.name}@${s}`;
        const seen = this.memo.get(key);
        if (seen) return seen;
        if (this.active.has(key)) throw recursionError(this.path);
        this.active.add(key);
        const out = this.of(this.rules[node.name]!, s);
        this.active.delete(key);
        this.memo.set(key, out);
        return out;
      }
      case "repeat":
        return this.repeat(node.item, node.min, node.max, s);
      case "intersect": {
        // At most the states every item leads to (the items' common strings lead to no others); a
        // text of any characters leads to every state the others can, and is not walked (its bound
        // may be past what a walk unrolls).
        const walked = node.items.filter((i) => !isAnyText(i, this.rules));
        if (walked.length === 0) return this.of(node.items[0]!, s);
        const sets = walked.map((i) => this.of(i, s));
        return new Set([...sets[0]!].filter((t) => sets.every((x) => x.has(t))));
      }
      default:
        throw new Error(`raw text: a ${node.type} node in a string's grammar`);
    }
  }

  private then(cur: Set<State>, item: Node): Set<State> {
    const out = new Set<State>();
    for (const m of cur) for (const t of this.of(item, m)) out.add(t);
    return out;
  }

  private repeat(item: Node, min: number, max: number | null, s: State): Set<State> {
    const once = this.of(item, s);
    // the item keeps the state: the repeat as it is
    if (once.size === 1 && once.has(s)) return new Set([s]);
    if (once.size === 0) return min === 0 ? new Set([s]) : new Set();
    const unroll = max ?? min;
    if (unroll > RAW_UNROLL_MAX) throw unrollError(this.path, this.raw.close, unroll);
    let cur = new Set([s]);
    for (let i = 0; i < min && cur.size > 0; i++) cur = this.then(cur, item);
    // more items: until no new state (a bounded repeat reaches no more states past that)
    for (let i = min; max === null || i < max; i++) {
      const more = this.then(cur, item);
      const size = cur.size;
      for (const t of more) cur.add(t);
      if (cur.size === size) break;
    }
    return cur;
  }
}

/** Any character: the string grammar's character class of raw text (every code point). */
export function isAnyChar(n: Node, rules: Record<string, Node>): boolean {
  const r = n.type === "ref" ? rules[n.name] : n;
  return r?.type === "charClass" && r.negated === true && r.ranges.every(([a, b]) => a >= 0xd800 && b <= 0xdfff);
}

/** Whether `n` is a string of any characters between two bounds (the native `until` node's language). */
function isAnyText(n: Node, rules: Record<string, Node>): boolean {
  const r = resolve(n, rules);
  return r.type === "repeat" && isAnyChar(r.item, rules);
}

/** `node` resolved through rule references. */
export const resolve = (n: Node, rules: Record<string, Node>): Node => {
  for (let i = 0; n.type === "ref" && i < 16 && rules[n.name]; i++) n = rules[n.name]!;
  return n;
};

/**
 * The raw text of a value whose strings `root` describes (in the raw syntax), through its close;
 * NOTHING when every such string holds the close.
 */
export function rawTextValue(root: Node, rules: Record<string, Node>, raw: RawClose, path: string): Lowered {
  const top = resolve(root, rules);
  // (A | B) then the close is A then the close, or B then it: a text of any characters among the
  // alternatives is an `until` node of its own (its bound counted past 1,024, never unrolled in a
  // body's product), the other alternatives one body together (an enum stays one product).
  if (top.type === "alt" && top.items.some((i) => isAnyText(i, rules))) {
    const rest = top.items.filter((i) => !isAnyText(i, rules));
    return choice([
      ...top.items.filter((i) => isAnyText(i, rules)).map((i) => rawTextValue(i, rules, raw, path)),
      rest.length === 0
        ? undefined
        : rawTextValue(rest.length === 1 ? rest[0]! : { ...top, items: rest }, rules, raw, path),
    ]);
  }
  if (top.type === "repeat" && isAnyChar(top.item, rules)) {
    // any string of min…max characters: the native until node, padding newlines not counted (a
    // bound past the string limit was refused by the lowering)
    return until(raw.close, {
      ...(top.max === null ? {} : { maxLength: top.max }),
      ...(top.min > 0 ? { minLength: top.min } : {}),
      ...(raw.trimNewline && (top.min > 0 || top.max !== null) ? { trimNewline: true } : {}),
    });
  }
  const reach = new Reach(rules, raw, path);
  if (reach.of(root, reach.state(0, 0)).size === 0) return null;
  const node: UntilNode = { type: "until", terminator: raw.close, body: root };
  return raw.trimNewline ? { ...node, trimNewline: true } : node;
}

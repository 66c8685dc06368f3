// The rules of JSON values a schema's grammar is built from: whitespace profiles, strings (any, or
// at most maxStringLength characters), numbers, free-form values nested at most maxFreeNesting
// deep, and objects and arrays of given members and elements. Rules used in more than one place
// are shared by name (rule, share), so the IR grows linearly with the schema.
import type { JsonSchemaOptions, PermNode } from "../ir.js";
import { JSON_SYNTAX, JSON_WS_MAX, literalSyntax, type LiteralSyntax, type QuoteSyntax } from "./syntax.js";
import { describe } from "./errors.js";
import { hasOwn } from "./keywords.js";
import { literal, optional, ref, repeat } from "../builders.js";
import { choice, cls, countNodes, integerRange, sequence, type Lowered, type Node } from "./nodes.js";
import { charExcept } from "./strings.js";
import { INTEGER_MAX, MAG_ANY } from "./numbers.js";
import { SCHEMA_LIMITS, limitError, type LoweringBudget } from "../schema-limits.js";

/** Default for `maxFreeNesting`. */
export const DEFAULT_MAX_FREE_NESTING = 6;
/** A node of more nodes than this, used in two places, becomes a rule. */
export const SHARE_ABOVE = 8;
/** Tuple elements per rule (see arrayOf). */
const PREFIX_CHUNK = 32;

// ---------------------------------------------------------------------------------------------
// Whitespace profiles

interface Ws {
  /** Before each member/element (after `{`, `[` or `,`). */
  lead?: Node;
  beforeColon?: Node;
  afterColon?: Node;
  beforeComma?: Node;
  afterComma?: Node;
  beforeClose?: Node;
}
/** Any JSON whitespace run: the body of the shared rule every "any" position refers to. */
const anyWs = (): Node =>
  repeat(
    cls([
      [0x20, 0x20],
      [0x09, 0x0a],
      [0x0d, 0x0d],
    ]),
    0,
    JSON_WS_MAX,
  );

/** `ws`: a reference to the shared anyWs rule, taken under mode "any" (a node per position, else). */
function wsProfile(mode: NonNullable<JsonSchemaOptions["whitespace"]>, ws: () => Node): Ws {
  if (mode === "compact") return {};
  if (mode === "single") return { afterColon: optional(literal(" ")), afterComma: optional(literal(" ")) };
  const w = ws();
  return { lead: w, beforeColon: w, afterColon: w, beforeComma: w, beforeClose: w };
}

export interface Names {
  shared: string;
  local: string;
}

/**
 * The shared rules one JsonValueRules built, for the next ones of the same lowering
 * (lowerJsonSchemas: one per tool schema) to take instead of building them again: each rule's node
 * and, in order, what its build did to the rules (the shared rules it named, the nodes it shared).
 * A rule is kept only when its build charged nothing to the lowering budget and every rule it
 * named is kept too, so taking it adds exactly the rules and charges (none) building it would.
 */
export type RuleMemo = Map<string, { node: Node; steps: Array<string | [string, Node]> }>;

/** Nodes the rules kept for the process may hold, per namespace (processRuleMemo). */
export const KEPT_RULE_NODES = 200_000;
const keptRules = new Map<string, { memo: RuleMemo; nodes: number }>();

/**
 * The rules kept for every lowering of this process whose shared rules are named under `ns`: a
 * shared rule's name says all its build depends on (the spelling, the quote, a format's or a
 * class's name), so a later lowering takes it as built. Each kept node is frozen (a caller that
 * changes a lowered grammar in place gets a TypeError, not a changed rule for the next lowering).
 * Past KEPT_RULE_NODES nodes the kept rules are dropped and kept afresh.
 */
export function processRuleMemo(ns: string): RuleMemo {
  let kept = keptRules.get(ns);
  if (!kept || kept.nodes > KEPT_RULE_NODES) {
    const memo: RuleMemo = new Map();
    const entry = { memo, nodes: 0 };
    const set = memo.set.bind(memo);
    memo.set = (name, rule) => {
      entry.nodes += freeze(rule.node);
      keptBodies.add(rule.node);
      for (const s of rule.steps)
        if (typeof s !== "string") {
          entry.nodes += freeze(s[1]);
          keptBodies.add(s[1]);
        }
      Object.freeze(rule.steps);
      return set(name, rule);
    };
    keptRules.set(ns, (kept = entry));
  }
  return kept.memo;
}

/** The bodies of the kept rules (under their names, as every lowering of the process adds them). */
const keptBodies = new WeakSet<object>();

/**
 * Whether `body` is a kept rule's body: the same body under the same name in every grammar that
 * holds it, which the native compile may therefore keep across grammars (src/grammar/rule-library.ts).
 */
export function isKeptRule(body: unknown): boolean {
  return typeof body === "object" && body !== null && keptBodies.has(body);
}

/** Freezes `n` and every object under it; the count of those it froze. */
function freeze(n: unknown): number {
  let count = 0;
  const stack = [n];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null || typeof x !== "object" || Object.isFrozen(x)) continue;
    Object.freeze(x);
    count++;
    for (const v of Object.values(x)) if (v !== null && typeof v === "object") stack.push(v);
  }
  return count;
}

/** A shared rule being built. */
interface Scope {
  name: string;
  count: number;
  /** What the build did, for the memo: the shared rules it named, the nodes it shared. */
  steps: Array<string | [string, Node]>;
  /** The build charged the lowering budget itself (not through a rule it built). */
  charged: boolean;
}

/** The rules of JSON values every schema lowers onto: strings, numbers, free values, containers. */
export class JsonValueRules {
  readonly rules: Record<string, Node> = {};
  protected readonly ws: Ws;
  protected readonly sep: Node;
  protected readonly mode: NonNullable<JsonSchemaOptions["whitespace"]>;
  protected readonly nest: number;
  protected readonly cap: number | undefined;
  protected readonly syn: LiteralSyntax;
  protected shared = 0;
  /** The shared rule being built, if any. */
  protected scope: Scope | null = null;

  constructor(
    options: JsonSchemaOptions,
    protected readonly rootPath: string,
    protected readonly names: Names,
    private readonly budget: LoweringBudget,
    private readonly memo?: RuleMemo,
  ) {
    const mode = options.whitespace ?? "single";
    if (mode !== "compact" && mode !== "single" && mode !== "any") {
      throw new RangeError(`JsonSchemaOptions.whitespace must be "compact", "single" or "any", got ${describe(mode)}`);
    }
    const nest = options.maxFreeNesting ?? DEFAULT_MAX_FREE_NESTING;
    if (!Number.isSafeInteger(nest) || nest < 0)
      throw new RangeError(`JsonSchemaOptions.maxFreeNesting must be a non-negative integer, got ${describe(nest)}`);
    if (nest > SCHEMA_LIMITS.schemaNesting)
      throw limitError(
        "schemaNesting",
        rootPath,
        `maxFreeNesting ${nest} exceeds the limit of ${SCHEMA_LIMITS.schemaNesting} nested values; lower it`,
      );
    const syntax = options.syntax ?? "json";
    if (syntax !== "json" && syntax !== "python" && syntax !== "raw")
      throw new RangeError(`JsonSchemaOptions.syntax must be "json", "python" or "raw", got ${describe(syntax)}`);
    this.syn = literalSyntax(syntax);
    const cap = options.maxStringLength;
    if (cap !== undefined && !(Number.isSafeInteger(cap) && cap >= 0))
      throw new RangeError(`JsonSchemaOptions.maxStringLength must be a non-negative integer, got ${describe(cap)}`);
    if (cap !== undefined && cap > SCHEMA_LIMITS.stringLength)
      throw limitError(
        "stringLength",
        rootPath,
        `maxStringLength ${cap} exceeds the limit of ${SCHEMA_LIMITS.stringLength} characters; lower it or leave it out`,
      );
    this.cap = cap;
    this.mode = mode;
    this.nest = nest;
    // One rule for the whitespace between tokens, not a copy per position: the IR of Claude Code
    // 2.1.328's tools in hermes held 372 copies (a fifth of its JSON text).
    this.ws = wsProfile(mode, () => this.rule(`${this.names.shared}.ws`, anyWs));
    this.sep = sequence(this.ws.beforeComma, literal(","), this.ws.afterComma);
  }

  // -- shared rules ---------------------------------------------------------------------------

  protected rule(name: string, build: () => Node): Node {
    if (!hasOwn(this.rules, name)) {
      const kept = this.memo?.get(name);
      if (kept) this.take(name, kept);
      else {
        this.rules[name] = literal(""); // placeholder: build() never refers back to a shared rule
        const outer = this.scope;
        const scope: Scope = (this.scope = { name, count: 0, steps: [], charged: false });
        try {
          this.rules[name] = build();
        } finally {
          this.scope = outer;
        }
        const memo = this.memo;
        if (memo && !scope.charged && scope.steps.every((s) => typeof s !== "string" || memo.has(s)))
          memo.set(name, { node: this.rules[name]!, steps: scope.steps });
      }
    }
    this.scope?.steps.push(name);
    return ref(name);
  }
  /** A kept rule added as its build added it (the same rules, in the same order). */
  private take(name: string, kept: { node: Node; steps: Array<string | [string, Node]> }): void {
    this.rules[name] = literal("");
    for (const s of kept.steps) {
      if (typeof s !== "string") this.rules[s[0]] = s[1];
      else if (!hasOwn(this.rules, s)) {
        const dep = this.memo!.get(s);
        if (!dep) throw new Error(`internal: shared rule ${s} of kept rule ${name} is not kept`);
        this.take(s, dep);
      }
    }
    this.rules[name] = kept.node;
  }
  /** Charges `units` of bounded repetition to the lowering budget (LoweringBudget.repeat). */
  protected charge(units: number, path: string, what: string): void {
    if (this.scope) this.scope.charged = true;
    this.budget.repeat(units, path, what);
  }
  /**
   * `n` itself when small, else a rule holding it: for a node used in more than one place. Inside
   * a shared rule the name derives from that rule's, so equal shared names still mean equal rules.
   */
  protected share(n: Node): Node {
    if (n.type === "ref" || n.type === "literal" || n.type === "charClass" || countNodes(n) <= SHARE_ABOVE) return n;
    const name = this.scope ? `${this.scope.name}.s${this.scope.count++}` : `${this.names.local}.s${this.shared++}`;
    this.rules[name] = n;
    this.scope?.steps.push([name, n]);
    return ref(name);
  }
  /** Shared rules of the Python and raw syntaxes live under `py.` and `raw.`: equal names must mean equal rules. */
  protected sharedName(n: string) {
    return `${this.names.shared}.${this.syn === JSON_SYNTAX ? "" : this.syn.name === "raw" ? "raw." : "py."}${this.cap === undefined ? "" : `max${this.cap}.`}${n}`;
  }
  protected charName(q: QuoteSyntax) {
    return this.syn.quotes.length > 1 ? `char.${q.id}` : "char";
  }
  /** Any one string character inside quote `q`. */
  char(q: QuoteSyntax): Node {
    return this.rule(this.sharedName(this.charName(q)), () => charExcept(new Set(), q));
  }
  /** One string character inside quote `q` that decodes to none of `cps`: a rule per set, as trie levels repeat sets. */
  protected charExcept(cps: number[], q: QuoteSyntax): Node {
    const key = [...new Set(cps)].sort((a, b) => a - b);
    return this.rule(this.sharedName(`${this.charName(q)}-except.${key.join(",")}`), () => charExcept(new Set(key), q));
  }
  /** `body(q)` between quotes `q`, for each quote of the syntax. */
  protected quoted(body: (q: QuoteSyntax) => Lowered): Lowered {
    return choice(
      this.syn.quotes.map((q) => {
        const b = body(q);
        return b && sequence(literal(q.quote), b, literal(q.quote));
      }),
    );
  }
  string(): Node {
    return this.rule(this.sharedName("string"), () => this.quoted((q) => repeat(this.char(q), 0, null))!);
  }
  /** A string value: any string, or at most `maxStringLength` characters. */
  valueString(path: string): Node {
    if (this.cap === undefined) return this.string();
    this.charge(this.cap, path, `a string value of up to ${this.cap} characters (maxStringLength)`);
    return this.rule(this.sharedName("value-string"), () => this.quoted((q) => repeat(this.char(q), 0, this.cap!))!);
  }
  /** The fixed spellings of `texts` (enum/const values, declared keys). */
  protected fixed(texts: string[]): Lowered {
    return choice(texts.map((t) => literal(t)));
  }
  number(): Node {
    return this.rule(this.sharedName("number"), () => sequence(optional(literal("-")), MAG_ANY));
  }
  integer(): Node {
    return this.rule(this.sharedName("integer"), () => integerRange(-INTEGER_MAX, INTEGER_MAX)!);
  }

  /** Any JSON value with at most `d` levels of containers. */
  freeValue(d: number): Node {
    return this.rule(
      this.sharedName(`free.${this.mode}.value${d}`),
      () =>
        choice([
          literal(this.syn.constants.null),
          literal(this.syn.constants.true),
          literal(this.syn.constants.false),
          this.number(),
          this.valueString(this.rootPath),
          d > 0 ? this.freeArray(d) : null,
          d > 0 ? this.freeObject(d) : null,
        ])!,
    );
  }
  /** A free-form object counting as one of `d` container levels. */
  freeObject(d: number): Node {
    return this.rule(this.sharedName(`free.${this.mode}.object${d}`), () =>
      this.objectOf([], d > 0 ? { key: this.string(), value: this.freeValue(d - 1) } : null),
    );
  }
  freeArray(d: number): Node {
    return this.rule(this.sharedName(`free.${this.mode}.array${d}`), () =>
      this.arrayOf([], d > 0 ? this.freeValue(d - 1) : null, 0, null),
    );
  }

  // -- containers -----------------------------------------------------------------------------

  protected member(key: Node, value: Node): Node {
    return sequence(this.ws.lead, key, this.ws.beforeColon, literal(":"), this.ws.afterColon, value);
  }
  protected close(ch: string): Node {
    return sequence(this.ws.beforeClose, literal(ch));
  }

  /** `{ … }` with declared members (any order, at most once) and an optional run of extra members. */
  objectOf(declared: Array<{ node: Node; required: boolean }>, extra: { key: Node; value: Node } | null): Node {
    const items = [...declared];
    if (extra) {
      const m = this.share(this.member(extra.key, extra.value)); // the first extra member and the rest
      items.push({ node: sequence(m, repeat(sequence(this.sep, m), 0, null)), required: false });
    }
    let body: Node | null = null;
    if (items.length === 1) body = items[0]!.required ? items[0]!.node : optional(items[0]!.node);
    else if (items.length > 1) body = { type: "perm", items, separator: this.sep } satisfies PermNode;
    return sequence(literal("{"), body, this.close("}"));
  }

  /**
   * `[ … ]`: element i matches prefix[i] for i < prefix.length, `rest` afterwards
   * (null = no further elements), with the element count in [min, max].
   */
  arrayOf(prefix: Node[], rest: Node | null, min: number, max: number | null): Node {
    const el = (n: Node, i: number) => sequence(i > 0 ? this.sep : null, this.ws.lead, n);
    // Elements from `i` on, once the prefix is used up (or `max` reached).
    const after = (i: number): Lowered => {
      if ((max !== null && i >= max) || !rest) return null;
      const restMin = Math.max(0, min - i),
        restMax = max === null ? null : max - i;
      if (i === 0) {
        const r = this.share(rest); // the first element and the rest
        const core = sequence(
          el(r, 0),
          repeat(el(r, 1), Math.max(0, restMin - 1), restMax === null ? null : restMax - 1),
        );
        return restMin >= 1 ? core : optional(core);
      }
      return repeat(el(rest, i), restMin, restMax);
    };
    // Prefix element i, then the elements after it; optional from `min` on. Built from the end,
    // a rule every PREFIX_CHUNK elements, so a long tuple stays a shallow IR.
    const n = max === null ? prefix.length : Math.min(prefix.length, max);
    let tail = after(n);
    for (let i = n - 1; i >= 0; i--) {
      const body = sequence(el(prefix[i]!, i), tail);
      tail = i >= min ? optional(body) : body;
      if (i > 0 && i % PREFIX_CHUNK === 0) tail = this.share(tail);
    }
    return sequence(literal("["), tail, this.close("]"));
  }
}

// Grammar IR -> the rules an export writes (rule-ast.ts), for one target. Every decision about
// the language is made here, once for all notations; print-ebnf.ts and print-lark.ts only spell.
// All exact unless noted:
// - literal: a string (XGrammar cuts strings at NUL: NUL is a byte class between the pieces);
//   gbnf/lark with wholeTokens: each whole-token text in it also offered as that token.
// - charClass / byteClass: sets.ts (positive code point classes for gbnf and lark; XGrammar
//   0.1.27's byte classes).
// - until / text: automata.ts (an until with a body first becomes a regular expression:
//   until-body.ts); perm: perm.ts.
// - intersect: written out first as the product of its items (intersect.ts), where it has at most
//   maxIntersectStates states; a larger one is refused (EbnfExportError), never written looser.
// - ref: unrolled exactly like the native builder: a rule may be open at most
//   maxRecursionDepth + 1 times on the expansion stack; one written copy per distinct count of
//   the rule's own recursive group on the stack.
// - token: gbnf/lark a token terminal. XGrammar has no token terminal: the token's text is
//   written as a string, which is looser (the text may then be spelled by ordinary tokens, and
//   XGrammar lets the special token itself match that text).
// - repeat: bounds as given; gbnf refuses bounds above 2000 (llama.cpp silently reads larger
//   ones as unbounded). For XGrammar a starred sub-rule followed by more items, `X* rest`, is
//   `L ::= rest | X L` (0.1.27 is pathologically slow on the postfix form).
// - Empty languages (alt of nothing, class of nothing, recursion past the limit) are removed; a
//   grammar that is empty as a whole is an EmptyGrammarError (productive.ts), as for compileGrammar.
import type { Grammar, GrammarNode, TokenNode } from "../ir.js";
import { MAX_CP, type Ranges } from "../code-ranges.js";
import { indexWholeTokens, recursiveGroups } from "./analysis.js";
import { lowerText, lowerUntil } from "./automata.js";
import type { Lowering } from "./context.js";
import { EbnfExportError, TARGET_NAMES, type LowerOptions } from "./options.js";
import { lowerPerm } from "./perm.js";
import {
  altOf,
  EMPTY,
  EPSILON,
  isEpsilon,
  ref,
  seqOf,
  str,
  type Lowered,
  type RuleExpr,
  type RuleSet,
} from "./rule-ast.js";
import { byteSet, codePointSet, normalize } from "./sets.js";
import { assertAcceptsSomething } from "../productive.js";
import { expandUntilBodies } from "./until-body.js";
import { expandIntersections } from "./intersect.js";
import { expandDeparture } from "../departure.js";

const GBNF_MAX_REPEAT = 2000;
const NUL: RuleExpr = { k: "bytes", ranges: [[0, 0]] };

export function lowerForExport(given: Grammar, o: LowerOptions): RuleSet {
  const grammar = expandUntilBodies(expandIntersections(given, o.maxIntersectStates));
  assertAcceptsSomething(grammar); // EmptyGrammarError, naming the rule, as compileGrammar throws
  return new Lowerer(grammar, o).run();
}

class Lowerer implements Lowering {
  readonly memo = new Map<string, Lowered>();
  private readonly rules: RuleSet = [];
  private readonly names = new Set<string>(["root"]);
  /** Rule name -> the alternatives of its body, for loops distributed over them. */
  private readonly alternatives = new Map<string, RuleExpr[]>();
  private readonly maxDepth: number;
  private readonly ruleDefs: Record<string, GrammarNode>;
  private readonly groups: Map<string, string[]>;
  private readonly stack: string[] = [];
  private counter = 0;
  private byFirst?: Map<number, Array<{ cps: number[]; id: number }>>;

  constructor(
    private readonly g: Grammar,
    readonly o: LowerOptions,
  ) {
    this.maxDepth = g.maxRecursionDepth ?? 8;
    this.ruleDefs = g.rules ?? {};
    this.groups = recursiveGroups(this.ruleDefs);
  }

  run(): RuleSet {
    const root = this.expr(this.g.root, "root");
    if (root === EMPTY) throw new EbnfExportError("toEbnf: the grammar accepts no string at all; nothing to export");
    return [{ name: "root", body: root }, ...this.rules];
  }

  // ---- rules -------------------------------------------------------------------------------

  fresh(hint: string): string {
    let base =
      hint
        .replace(/[^A-Za-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 48) || "r";
    if (!/^[A-Za-z]/.test(base)) base = `r-${base}`;
    let name = base;
    while (this.names.has(name)) name = `${base}-${++this.counter}`;
    this.names.add(name);
    return name;
  }

  addRule(name: string, body: RuleExpr): void {
    this.rules.push({ name, body });
    const limit = this.o.maxRules ?? 100_000;
    if (this.rules.length > limit)
      throw new EbnfExportError(`toEbnf: more than ${limit} rules; grammar too large to export`);
  }

  named(hint: string, body: RuleExpr): RuleExpr {
    if (body.k === "ref" || body.k === "str") return body;
    const name = this.fresh(hint);
    this.addRule(name, body);
    return ref(name);
  }

  char(c: number, path: string): RuleExpr {
    return this.literal(String.fromCodePoint(c), path);
  }

  set(ranges: Ranges): Lowered {
    return codePointSet(ranges, this.o);
  }

  wholeToken(T: number[]): number | undefined {
    if (this.o.target === "xgrammar" || !this.o.wholeTokens?.size) return undefined;
    return this.o.wholeTokens.get(String.fromCodePoint(...T));
  }

  // ---- nodes -------------------------------------------------------------------------------

  expr(n: GrammarNode, path: string): Lowered {
    switch (n.type) {
      case "literal":
        // A spelled name is one lexeme per character to llguidance (builders' `spelled`).
        if (n.spelled && this.o.target === "lark") return seqOf(Array.from(n.text, (c) => this.literal(c, path)));
        return this.literal(n.text, path);
      case "charClass":
        return this.set(normalize(n.ranges, n.negated ?? false, MAX_CP, path));
      case "byteClass":
        return byteSet(normalize(n.ranges, n.negated ?? false, 255, path), this.o, path);
      case "seq":
        return this.seq(n.items, 0, path);
      case "alt": {
        const parts: RuleExpr[] = [];
        for (let i = 0; i < n.items.length; i++) {
          const e = this.expr(n.items[i]!, `${path}.items[${i}]`);
          if (e !== EMPTY) parts.push(e);
        }
        return parts.length === 0 ? EMPTY : altOf(parts);
      }
      case "repeat":
        return this.repeat(n.item, n.min, n.max, path);
      case "until":
        return lowerUntil(this, n, path);
      case "text":
        return lowerText(this, n, path);
      case "token":
        return this.token(n, path);
      case "perm":
        return lowerPerm(this, n, path);
      case "ref":
        return this.ref(n.name, path);
      case "departure":
        return this.expr(expandDeparture(n), path);
      case "jsonSchema":
        throw new EbnfExportError(`toEbnf: ${path} is a jsonSchema node; lower it to grammar nodes before exporting`);
      default:
        throw new EbnfExportError(
          `toEbnf: ${path} has unknown node type ${JSON.stringify((n as { type?: unknown }).type)}`,
        );
    }
  }

  /**
   * items[from..] in sequence. For XGrammar, `X* rest` (X not a plain class) becomes
   * `L ::= rest | X L` with X's alternatives distributed: XGrammar 0.1.27 computes masks for a
   * postfix star of a sub-rule followed by more text very slowly (~250 ms per mask on a JSON
   * string body vs ~0.1 ms for this shape). Same language.
   */
  private seq(items: GrammarNode[], from: number, path: string): Lowered {
    const parts: RuleExpr[] = [];
    for (let i = from; i < items.length; i++) {
      const it = items[i]!;
      const ip = `${path}.items[${i}]`;
      if (
        it.type === "repeat" &&
        it.max === null &&
        i < items.length - 1 &&
        this.o.target === "xgrammar" &&
        (this.o.rightRecursiveLoops ?? true) &&
        Number.isInteger(it.min) &&
        it.min >= 0
      ) {
        const x = this.expr(it.item, `${ip}.item`);
        if (x === EMPTY) {
          if (it.min > 0) return EMPTY;
          continue;
        }
        if (isEpsilon(x)) continue;
        if (x.k !== "cls" && x.k !== "bytes") {
          const rest = this.seq(items, i + 1, path);
          if (rest === EMPTY) return EMPTY;
          const loop = this.fresh("loop");
          const choices = x.k === "alt" ? x.items : x.k === "ref" ? (this.alternatives.get(x.name) ?? [x]) : [x];
          this.addRule(loop, altOf([rest, ...choices.map((c) => seqOf([c, ref(loop)]))]));
          if (it.min === 1) parts.push(x);
          else if (it.min > 1) parts.push({ k: "rep", item: x, min: it.min, max: it.min });
          parts.push(ref(loop));
          return seqOf(parts);
        }
      }
      if (it.type === "literal" && !it.marker && this.o.target !== "lark" && (this.o.joinLiterals ?? true)) {
        let j = i,
          text = "";
        for (; j < items.length; j++) {
          const x = items[j]!;
          if (x.type !== "literal" || x.marker) break;
          text += x.text;
        }
        parts.push(this.literal(text, ip));
        i = j - 1;
        continue;
      }
      const e = this.expr(it, ip);
      if (e === EMPTY) return EMPTY;
      parts.push(e);
    }
    return seqOf(parts);
  }

  private literal(text: string, path: string): RuleExpr {
    if (text === "") return EPSILON;
    const cps = Array.from(text, (c) => c.codePointAt(0)!);
    for (const c of cps) {
      if (c >= 0xd800 && c <= 0xdfff)
        throw new EbnfExportError(`toEbnf: ${path} contains a lone surrogate (not valid UTF-8)`);
    }
    if (this.o.target === "xgrammar" && cps.includes(0)) {
      const parts: RuleExpr[] = [];
      let run: number[] = [];
      const flush = () => {
        if (run.length) parts.push(str(run));
        run = [];
      };
      for (const c of cps) {
        if (c === 0) {
          flush();
          parts.push(NUL);
        } else run.push(c);
      }
      flush();
      return seqOf(parts);
    }
    if (this.o.target !== "xgrammar" && this.o.wholeTokens?.size) return this.literalWithTokens(cps);
    return str(cps);
  }

  /** A literal with every whole-token text in it (leftmost, longest) also offered as the token. */
  private literalWithTokens(cps: number[]): RuleExpr {
    const byFirst = (this.byFirst ??= indexWholeTokens(this.o.wholeTokens!));
    const parts: RuleExpr[] = [];
    let run: number[] = [];
    for (let i = 0; i < cps.length; ) {
      const hit = byFirst.get(cps[i]!)?.find((t) => t.cps.every((c, k) => cps[i + k] === c));
      if (!hit) {
        run.push(cps[i]!);
        i++;
        continue;
      }
      if (run.length) parts.push(str(run));
      run = [];
      parts.push({ k: "alt", items: [str(hit.cps), { k: "token", id: hit.id }] });
      i += hit.cps.length;
    }
    if (run.length) parts.push(str(run));
    return seqOf(parts);
  }

  private repeat(item: GrammarNode, min: number, max: number | null, path: string): Lowered {
    if (!Number.isInteger(min) || min < 0 || (max !== null && (!Number.isInteger(max) || max < min)))
      throw new EbnfExportError(`toEbnf: ${path}: repeat needs integers 0 <= min <= max`);
    if (max === 0) return EPSILON;
    const e = this.expr(item, `${path}.item`);
    if (e === EMPTY) return min === 0 ? EPSILON : EMPTY;
    if (isEpsilon(e)) return EPSILON;
    if (this.o.target !== "xgrammar" && (min > GBNF_MAX_REPEAT || (max ?? 0) > GBNF_MAX_REPEAT))
      throw new EbnfExportError(
        `toEbnf: ${path}: repeat bound above ${GBNF_MAX_REPEAT} is not exportable to ${TARGET_NAMES[this.o.target]} (llama.cpp treats it as unbounded)`,
      );
    if (min === 1 && max === 1) return e;
    return { k: "rep", item: e, min, max };
  }

  private token(n: TokenNode, path: string): RuleExpr {
    if (this.o.target !== "xgrammar") {
      const id = n.id ?? (n.piece !== undefined ? this.o.tokenId?.(n.piece) : undefined);
      if (id !== undefined) {
        if (!Number.isInteger(id) || id < 0) throw new EbnfExportError(`toEbnf: ${path}: bad token id ${id}`);
        return { k: "token", id };
      }
      // llama.cpp also reads `<piece>` and tokenizes it, if it is exactly one token.
      if (n.piece !== undefined && /^<[^<>\s]+>$/.test(n.piece)) return { k: "piece", text: n.piece };
      throw new EbnfExportError(
        `toEbnf: ${path}: token ${JSON.stringify(n.piece)} needs an id for ${TARGET_NAMES[this.o.target]} (pass opts.tokenId)`,
      );
    }
    const text = n.piece ?? (n.id !== undefined ? this.o.tokenText?.(n.id) : undefined);
    if (text === undefined)
      throw new EbnfExportError(
        `toEbnf: ${path}: token id ${n.id} needs its text for XGrammar, which has no token terminals (pass opts.tokenText)`,
      );
    return this.literal(text, path);
  }

  private ref(name: string, path: string): Lowered {
    const def = this.ruleDefs[name];
    if (!def) throw new EbnfExportError(`toEbnf: ${path}: ref to undefined rule ${JSON.stringify(name)}`);
    const depth = this.stack.filter((s) => s === name).length;
    if (depth > this.maxDepth) return EMPTY;
    // Expansion of `name` depends only on how often its recursive group is on the stack.
    const group = this.groups.get(name) ?? [];
    const counts = group.map((m) => this.stack.filter((s) => s === m).length);
    const key = `ref\u0000${name}\u0000${counts.join(",")}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;
    this.stack.push(name);
    let body: Lowered;
    try {
      body = this.expr(def, `rules.${name}`);
    } finally {
      this.stack.pop();
    }
    let out: Lowered = body;
    if (body !== EMPTY) {
      const nm = this.fresh(group.length > 0 ? `${name}-d${counts.join("-")}` : name);
      this.addRule(nm, body);
      const alts = body.k === "alt" ? body.items : body.k === "ref" ? this.alternatives.get(body.name) : undefined;
      if (alts) this.alternatives.set(nm, alts);
      out = ref(nm);
    }
    this.memo.set(key, out);
    return out;
  }
}

// Grammar IR -> EBNF text for other engines (XGrammar's EBNF, llama.cpp's GBNF), defining the
// same language our compiler builds, so the engines can be compared and used as oracles.
//
// Export rules (all exact unless noted):
// - literal: a quoted string; printable ASCII kept, `"` and `\` escaped, other code points as
//   \n \t \r or \uXXXX / \UXXXXXXXX (never \x: XGrammar's \x reads hex digits greedily).
// - charClass: the set of code points (negation resolved, surrogates removed as in the native
//   UTF-8 encoder).
//   gbnf: always a positive `[...]`: llama.cpp checks a token that ends inside a multi-byte
//   character against a negated class too strictly (see codePointSet).
//   xgrammar: XGrammar 0.1.27 (the npm WASM build) treats non-ASCII class members as bytes
//   (xgrammar #491, #848; web build never got the fix). So the ASCII part becomes an ASCII class,
//   the non-ASCII part becomes UTF-8 byte-range sequences written as byte classes, and "every
//   non-ASCII code point" (the common `[^"\\]` case) stays a negated ASCII-only class, which
//   0.1.27 matches correctly. A one-member byte class is written `[\u00c3\u00c3]` because XGrammar
//   turns `[\u00c3]` into the code point literal.
// - byteClass: xgrammar: bytes as byte classes (same 0.1.27 behaviour); gbnf works on code points,
//   so bytes >= 0x80 are not exportable (throws).
// - until(T): the KMP automaton of T over code points as a regular grammar: state 0 is
//   `[^T0]* "T0" s1`, state k lists the characters that keep a partial match and sends every
//   other character back to state 0. With maxLength the states also count committed text
//   characters (the native rule: partial terminator characters are not text yet); refused above
//   `maxUntilStates` rules.
// - perm: one rule per reachable subset of used items (refused above `maxPermItems` items).
// - ref: unrolled exactly like the native builder: a rule may be open at most
//   maxRecursionDepth + 1 times on the expansion stack; one emitted copy per distinct count of
//   the rule's own recursive group on the stack.
// - token: gbnf `<[id]>` (llama.cpp token terminal, atomic). XGrammar has no token terminal: the
//   token's text is emitted as a literal, which is looser — the text may then be spelled by
//   ordinary tokens, and XGrammar lets the special token itself match that text.
// - repeat: `X{m,n}`, `X*`, `X+`, `X?`; for XGrammar a starred sub-rule followed by more items,
//   `X* rest`, is written `L ::= rest | X L` (0.1.27 is pathologically slow on the postfix form).
// - Empty languages (alt of nothing, class of nothing, recursion past the limit) are removed
//   before printing, since neither syntax has a "fail" primitive.
import type {
  TextNode, Grammar, GrammarNode, TokenNode, UntilNode, PermNode } from "./ir.js";
import { collectRefs, indexWholeTokens, kmpStep } from "./ebnf-analysis.js";
import { complement, intersect, MAX_CP, mergeRanges, sameRanges, subtract, type Ranges } from "./code-ranges.js";
import { asciiClass, atomic, byteClassText, classRange, quote, utf8Sequences } from "./ebnf-text.js";

export { utf8Sequences };

export interface ToEbnfOptions {
  dialect?: "xgrammar" | "gbnf";
  /** Text of a token id (xgrammar dialect, for `token` nodes given only an id). */
  tokenText?: (id: number) => string | undefined;
  /** Id of a token piece (gbnf dialect, for `token` nodes given only a piece). */
  tokenId?: (piece: string) => number | undefined;
  /** Largest perm exported (2^n subset rules). Default 8. */
  maxPermItems?: number;
  /** Largest bounded until exported, in rules (terminator length x (maxLength + 1)). Default 4096. */
  maxUntilStates?: number;
  /** Refuse output with more rules than this. Default 100000. */
  maxRules?: number;
  /** xgrammar: spell "any non-ASCII code point" as UTF-8 byte sequences too (strict UTF-8). Default false. */
  exactUtf8?: boolean;
  /** xgrammar: write `X* rest` as a right-recursive loop rule (much faster masks in 0.1.27). Default true. */
  rightRecursiveLoops?: boolean;
  /**
   * gbnf: texts that one token spells whole, for engines that read that token only as itself
   * (llguidance reads every added token so, even those marked "special": false): a literal holding
   * such a text writes it `("text" | <[id]>)`, and an until whose terminator is one also closes on
   * `<[id]>` from every state where those characters would close it exactly at their end.
   */
  wholeTokens?: ReadonlyMap<string, number>;
  /**
   * xgrammar: write classes as code point ranges, as native XGrammar reads them (checked on 0.2.8:
   * `[\u00e1-\u00ec]` is á..ì there). Default false: the UTF-8 byte classes 0.1.27 (the npm WASM
   * build) needs, which 0.2.8 would read as other code points. Byte classes >= 0x80 then throw.
   */
  codePointClasses?: boolean;
  /**
   * Adjacent plain literals of a sequence (a name `spelled` one character at a time) written as one
   * string. Default true; toLark passes false, as each literal is a lexeme for llguidance there.
   */
  joinLiterals?: boolean;
}

export class EbnfExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EbnfExportError";
  }
}

const EMPTY = Symbol("empty-language");
type Expr = string | typeof EMPTY;

const SURROGATES: [number, number] = [0xd800, 0xdfff];
const GBNF_MAX_REPEAT = 2000; // llama.cpp silently turns larger bounds into "unbounded"

export function toEbnf(grammar: Grammar | GrammarNode, opts: ToEbnfOptions = {}): string {
  const g: Grammar = "type" in grammar ? { root: grammar } : grammar;
  return new Exporter(g, opts).run();
}

class Exporter {
  private readonly dialect: "xgrammar" | "gbnf";
  private readonly rules: Array<[string, string]> = [];
  private readonly names = new Set<string>(["root"]);
  private readonly memo = new Map<string, Expr>();
  private readonly alternatives = new Map<string, string[]>(); // expression or rule name -> its top-level alternatives
  private readonly maxDepth: number;
  private readonly ruleDefs: Record<string, GrammarNode>;
  private readonly scc = new Map<string, string[]>(); // rule -> members of its recursive group
  private readonly stack: string[] = [];
  private counter = 0;
  private byFirst?: Map<number, Array<{ cps: number[]; id: number }>>;

  constructor(private readonly g: Grammar, private readonly opts: ToEbnfOptions) {
    this.dialect = opts.dialect ?? "xgrammar";
    this.maxDepth = g.maxRecursionDepth ?? 8;
    this.ruleDefs = g.rules ?? {};
    this.findRecursiveGroups();
  }

  run(): string {
    const root = this.expr(this.g.root, "root");
    if (root === EMPTY) throw new EbnfExportError("toEbnf: the grammar accepts no string at all; nothing to export");
    return [`root ::= ${root}`, ...this.rules.map(([n, b]) => `${n} ::= ${b}`)].join("\n") + "\n";
  }

  // ---- rules -------------------------------------------------------------------------------

  /** A new rule name from `hint` (GBNF names: letters, digits, '-'), unique in this grammar. */
  private fresh(hint: string): string {
    let base = hint.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48) || "r";
    if (!/^[A-Za-z]/.test(base)) base = `r-${base}`;
    let name = base;
    while (this.names.has(name)) name = `${base}-${++this.counter}`;
    this.names.add(name);
    return name;
  }

  private addRule(name: string, body: string): void {
    this.rules.push([name, body]);
    const limit = this.opts.maxRules ?? 100_000;
    if (this.rules.length > limit) throw new EbnfExportError(`toEbnf: more than ${limit} rules; grammar too large to export`);
  }

  /** A rule for `body` unless it is already a single name or atom. */
  private named(hint: string, body: string): string {
    if (/^[A-Za-z][A-Za-z0-9-]*$/.test(body) || /^"(?:[^"\\]|\\.)*"$/.test(body)) return body;
    const name = this.fresh(hint);
    this.addRule(name, body);
    return name;
  }

  // ---- nodes -------------------------------------------------------------------------------

  private expr(n: GrammarNode, path: string): Expr {
    switch (n.type) {
      case "literal": return this.literal(n.text, path);
      case "charClass": return this.codePointSet(normalize(n.ranges, n.negated ?? false, MAX_CP, path));
      case "byteClass": return this.byteSet(normalize(n.ranges, n.negated ?? false, 255, path), path);
      case "seq": return this.seq(n.items, 0, path);
      case "alt": {
        const parts: string[] = [];
        for (let i = 0; i < n.items.length; i++) {
          const e = this.expr(n.items[i]!, `${path}.items[${i}]`);
          if (e !== EMPTY && !parts.includes(e)) parts.push(e);
        }
        if (parts.length === 0) return EMPTY;
        if (parts.length === 1) return parts[0]!;
        const out = `(${parts.join(" | ")})`;
        this.alternatives.set(out, parts);
        return out;
      }
      case "repeat": return this.repeat(n.item, n.min, n.max, path);
      case "until": return this.until(n, path);
      case "text": return this.text(n, path);
      case "token": return this.token(n, path);
      case "perm": return this.perm(n, path);
      case "ref": return this.ref(n.name, path);
      case "jsonSchema":
        throw new EbnfExportError(`toEbnf: ${path} is a jsonSchema node; lower it to grammar nodes before exporting`);
      default:
        throw new EbnfExportError(`toEbnf: ${path} has unknown node type ${JSON.stringify((n as { type?: unknown }).type)}`);
    }
  }

  /**
   * items[from..] in sequence. For XGrammar, `X* rest` (X not a plain class) becomes
   * `L ::= rest | X L` with X's alternatives distributed: XGrammar 0.1.27 computes masks for a
   * postfix star of a sub-rule followed by more text very slowly (~250 ms per mask on a JSON
   * string body vs ~0.1 ms for this shape). Same language.
   */
  private seq(items: GrammarNode[], from: number, path: string): Expr {
    const parts: string[] = [];
    const join = (): string => (parts.length === 0 ? '""' : parts.length === 1 ? parts[0]! : `(${parts.join(" ")})`);
    for (let i = from; i < items.length; i++) {
      const it = items[i]!;
      const ip = `${path}.items[${i}]`;
      if (it.type === "repeat" && it.max === null && i < items.length - 1 && this.dialect === "xgrammar" &&
          (this.opts.rightRecursiveLoops ?? true) && Number.isInteger(it.min) && it.min >= 0) {
        const x = this.expr(it.item, `${ip}.item`);
        if (x === EMPTY) { if (it.min > 0) return EMPTY; continue; }
        if (x === '""') continue;
        if (!/^\[(?:[^\]\\]|\\.)*\]$/.test(x)) {
          const rest = this.seq(items, i + 1, path);
          if (rest === EMPTY) return EMPTY;
          const loop = this.fresh("loop");
          const choices = this.alternatives.get(x) ?? [x];
          this.addRule(loop, [rest, ...choices.map((c) => `${c} ${loop}`)].join(" | "));
          if (it.min === 1) parts.push(x);
          else if (it.min > 1) parts.push(`(${atomic(x)}{${it.min}})`);
          parts.push(loop);
          return join();
        }
      }
      if (it.type === "literal" && !it.marker && (this.opts.joinLiterals ?? true)) {
        let j = i, text = "";
        for (; j < items.length; j++) {
          const x = items[j]!;
          if (x.type !== "literal" || x.marker) break;
          text += x.text;
        }
        const e = this.literal(text, ip);
        if (e === EMPTY) return EMPTY;
        if (e !== '""') parts.push(e);
        i = j - 1;
        continue;
      }
      const e = this.expr(it, ip);
      if (e === EMPTY) return EMPTY;
      if (e !== '""') parts.push(e);
    }
    return join();
  }

  private literal(text: string, path: string): Expr {
    if (text === "") return '""';
    const cps = Array.from(text, (c) => c.codePointAt(0)!);
    for (const c of cps) {
      if (c >= 0xd800 && c <= 0xdfff) throw new EbnfExportError(`toEbnf: ${path} contains a lone surrogate (not valid UTF-8)`);
    }
    // XGrammar cuts strings at NUL: spell NUL as a (byte) class between string pieces.
    if (this.dialect === "xgrammar" && cps.includes(0)) {
      const parts: string[] = [];
      let run: number[] = [];
      const flush = () => { if (run.length) parts.push(quote(run)); run = []; };
      for (const c of cps) {
        if (c === 0) { flush(); parts.push("[\\u0000\\u0000]"); } else run.push(c);
      }
      flush();
      return parts.length === 1 ? parts[0]! : `(${parts.join(" ")})`;
    }
    if (this.dialect === "gbnf" && this.opts.wholeTokens?.size) return this.literalWithTokens(cps);
    return quote(cps);
  }

  /** A gbnf literal with every whole-token text in it (leftmost, longest) also offered as the token. */
  private literalWithTokens(cps: number[]): string {
    const byFirst = (this.byFirst ??= indexWholeTokens(this.opts.wholeTokens!));
    const parts: string[] = [];
    let run: number[] = [];
    for (let i = 0; i < cps.length;) {
      const hit = byFirst.get(cps[i]!)?.find((t) => t.cps.every((c, k) => cps[i + k] === c));
      if (!hit) { run.push(cps[i]!); i++; continue; }
      if (run.length) parts.push(quote(run));
      run = [];
      parts.push(`(${quote(hit.cps)} | <[${hit.id}]>)`);
      i += hit.cps.length;
    }
    if (run.length) parts.push(quote(run));
    return parts.length === 1 ? parts[0]! : `(${parts.join(" ")})`;
  }

  /** The token id whose whole text is `T` (gbnf, wholeTokens), or undefined. */
  private wholeToken(T: number[]): number | undefined {
    if (this.dialect !== "gbnf" || !this.opts.wholeTokens?.size) return undefined;
    return this.opts.wholeTokens.get(String.fromCodePoint(...T));
  }

  private repeat(item: GrammarNode, min: number, max: number | null, path: string): Expr {
    if (!Number.isInteger(min) || min < 0 || (max !== null && (!Number.isInteger(max) || max < min)))
      throw new EbnfExportError(`toEbnf: ${path}: repeat needs integers 0 <= min <= max`);
    if (max === 0) return '""';
    const e = this.expr(item, `${path}.item`);
    if (e === EMPTY) return min === 0 ? '""' : EMPTY;
    if (e === '""') return '""';
    if (this.dialect === "gbnf" && (min > GBNF_MAX_REPEAT || (max ?? 0) > GBNF_MAX_REPEAT))
      throw new EbnfExportError(`toEbnf: ${path}: repeat bound above ${GBNF_MAX_REPEAT} is not exportable to GBNF (llama.cpp treats it as unbounded)`);
    const x = atomic(e);
    if (min === 1 && max === 1) return e;
    if (max === null) return min === 0 ? `(${x}*)` : min === 1 ? `(${x}+)` : `(${x}{${min},})`;
    if (min === 0 && max === 1) return `(${x}?)`;
    return min === max ? `(${x}{${min}})` : `(${x}{${min},${max}})`;
  }

  private token(n: TokenNode, path: string): Expr {
    if (this.dialect === "gbnf") {
      const id = n.id ?? (n.piece !== undefined ? this.opts.tokenId?.(n.piece) : undefined);
      if (id !== undefined) {
        if (!Number.isInteger(id) || id < 0) throw new EbnfExportError(`toEbnf: ${path}: bad token id ${id}`);
        return `<[${id}]>`;
      }
      // llama.cpp also reads `<piece>` and tokenizes it, if it is exactly one token.
      if (n.piece !== undefined && /^<[^<>\s]+>$/.test(n.piece)) return n.piece;
      throw new EbnfExportError(`toEbnf: ${path}: token ${JSON.stringify(n.piece)} needs an id for GBNF (pass opts.tokenId)`);
    }
    const text = n.piece ?? (n.id !== undefined ? this.opts.tokenText?.(n.id) : undefined);
    if (text === undefined)
      throw new EbnfExportError(`toEbnf: ${path}: token id ${n.id} needs its text for XGrammar, which has no token terminals (pass opts.tokenText)`);
    return this.literal(text, path);
  }

  // ---- until: KMP automaton over code points ------------------------------------------------

  /** Text not containing X: the KMP states of X, every one of them may end, X never completes. */
  private text(n: TextNode, path: string): Expr {
    const X = Array.from(n.exclude, (c) => c.codePointAt(0)!);
    if (X.length === 0) throw new EbnfExportError(`toEbnf: ${path}: text needs a non-empty exclude`);
    if (n.maxLength !== undefined) throw new EbnfExportError(`toEbnf: ${path}: text with maxLength is not exportable`);
    const key = `text\u0000${n.exclude}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;
    const L = X.length;
    const delta = kmpStep(X);
    const base = this.fresh(`text-${n.exclude}`);
    const names = Array.from({ length: L }, (_, k) => (k === 0 ? base : this.fresh(`${base}-s${k}`)));
    this.memo.set(key, base);
    const lit = (c: number) => this.literal(String.fromCodePoint(c), path) as string;
    for (let k = 0; k < L; k++) {
      if (k === 0) {
        // Ordinary characters loop in state 0 as a star, not one recursion per character
        // (Earley parsers such as llguidance's grow with right recursion).
        const other = this.codePointSet(complement([[X[0]!, X[0]!]], MAX_CP));
        const loop = other === EMPTY ? "" : `${atomic(other)}*`;
        const next = L > 1 ? `(${lit(X[0]!)} ${names[1]})?` : "";
        this.addRule(base, [loop, next].filter(Boolean).join(" ") || '""');
        continue;
      }
      const moves = new Map<number, number>();
      for (const c of new Set(X.slice(0, k + 1))) moves.set(c, delta(k, c));
      const alts = ['""'];
      for (const [c, d] of moves) if (d < L) alts.push(d === 0 ? `${lit(c)} ${names[0]}` : `${lit(c)} ${names[d]}`);
      const other = this.codePointSet(complement([...moves.keys()].map((c) => [c, c] as [number, number]), MAX_CP));
      if (other !== EMPTY) alts.push(`${other} ${names[0]}`);
      this.addRule(names[k]!, alts.join(" | "));
    }
    return base;
  }

  private until(n: UntilNode, path: string): Expr {
    const T = Array.from(n.terminator, (c) => c.codePointAt(0)!);
    if (T.length === 0) throw new EbnfExportError(`toEbnf: ${path}: until needs a non-empty terminator`);
    const maxLen = n.maxLength;
    if (maxLen !== undefined && (!Number.isInteger(maxLen) || maxLen < 0))
      throw new EbnfExportError(`toEbnf: ${path}: maxLength must be a non-negative integer`);
    const key = `until\u0000${n.terminator}\u0000${maxLen ?? ""}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;

    const L = T.length;
    const delta = kmpStep(T);
    // Characters that keep (or restart) a partial match from state k; all others go to 0.
    const keep = (k: number): Array<[number, number]> => {
      const out: Array<[number, number]> = [];
      for (const c of new Set(T.slice(0, k + 1))) {
        const d = delta(k, c);
        if (d > 0) out.push([c, d]);
      }
      return out;
    };
    const lit = (c: number) => this.literal(String.fromCodePoint(c), path) as string;
    const base = this.fresh(`until-${n.terminator}`);

    // The terminator as one token: from state k its characters must close T exactly at their end.
    const tokenId = this.wholeToken(T);
    const closesAtEnd = (k: number): boolean => {
      let s = k;
      for (let i = 0; i < L; i++) { s = delta(s, T[i]!); if (s === L) return i === L - 1; }
      return false;
    };
    const whole = (k: number): string | undefined => (tokenId !== undefined && closesAtEnd(k) ? `<[${tokenId}]>` : undefined);

    if (maxLen === undefined) {
      const stateNames = Array.from({ length: L }, (_, k) => (k === 0 ? base : this.fresh(`${base}-s${k}`)));
      const name = (k: number) => stateNames[k]!;
      this.memo.set(key, base);
      for (let k = 0; k < L; k++) {
        const next = (d: number) => (d === L ? "" : ` ${name(d)}`);
        if (k === 0) {
          // [^T0]* T0 s1: every other character just loops in state 0.
          const other = this.codePointSet(complement([[T[0]!, T[0]!]], MAX_CP)) as string;
          const t = whole(0);
          this.addRule(name(0), t ? `${atomic(other)}* (${lit(T[0]!)}${next(1)} | ${t})` : `${atomic(other)}* ${lit(T[0]!)}${next(1)}`);
          continue;
        }
        const ks = keep(k);
        const alts = ks.map(([c, d]) => `${lit(c)}${next(d)}`);
        const t = whole(k);
        if (t) alts.push(t);
        const other = this.codePointSet(complement(ks.map(([c]) => [c, c]), MAX_CP));
        if (other !== EMPTY) alts.push(`${other} ${name(0)}`);
        this.addRule(name(k), alts.join(" | "));
      }
      return base;
    }

    // Bounded: state (k, j) = KMP state k, j committed text characters (j <= maxLen).
    const limit = this.opts.maxUntilStates ?? 4096;
    if (L * (maxLen + 1) > limit)
      throw new EbnfExportError(`toEbnf: ${path}: until with maxLength ${maxLen} and a ${L}-character terminator needs up to ${L * (maxLen + 1)} rules (limit ${limit}); not exportable`);
    const ids = new Map<string, string>();
    const work: Array<[number, number]> = [];
    const state = (k: number, j: number): string => {
      const sk = `${k},${j}`;
      let nm = ids.get(sk);
      if (nm === undefined) {
        nm = k === 0 && j === 0 ? base : this.fresh(`${base}-s${k}-${j}`);
        ids.set(sk, nm);
        work.push([k, j]);
      }
      return nm;
    };
    state(0, 0);
    this.memo.set(key, base);
    while (work.length > 0) {
      const [k, j] = work.pop()!;
      const ks = keep(k);
      const alts: string[] = [];
      for (const [c, d] of ks) {
        if (d === L) { alts.push(lit(c)); continue; }
        const j2 = j + k + 1 - d;
        if (j2 <= maxLen) alts.push(`${lit(c)} ${state(d, j2)}`);
      }
      if (j + k + 1 <= maxLen) {
        const other = this.codePointSet(complement(ks.map(([c]) => [c, c]), MAX_CP));
        if (other !== EMPTY) alts.push(`${other} ${state(0, j + k + 1)}`);
      }
      // The token: the k pending characters become text.
      const t = whole(k);
      if (t && j + k <= maxLen) alts.push(t);
      this.addRule(state(k, j), alts.join(" | "));
    }
    return base;
  }

  // ---- perm: one rule per subset of used items ---------------------------------------------

  private perm(n: PermNode, path: string): Expr {
    const limit = this.opts.maxPermItems ?? 8;
    if (n.items.length > limit)
      throw new EbnfExportError(`toEbnf: ${path}: any-order set of ${n.items.length} items is above the export limit of ${limit} (2^n rules)`);
    const base = this.fresh("perm");
    const items: Array<string | null> = [];
    let required = 0;
    for (let i = 0; i < n.items.length; i++) {
      const it = n.items[i]!;
      const e = this.expr(it.node, `${path}.items[${i}].node`);
      if (e === EMPTY) {
        if (it.required) return EMPTY;
        items.push(null); // an optional item that matches nothing is simply never used
        continue;
      }
      if (it.required) required |= 1 << i;
      items.push(this.named(`${base}-i${i}`, e));
    }
    let sep = "";
    if (n.separator) {
      const e = this.expr(n.separator, `${path}.separator`);
      if (e === EMPTY) {
        // Only single-item sequences remain possible.
        const alts = items.flatMap((x, i) => (x !== null && (required & ~(1 << i)) === 0 ? [x] : []));
        if (required === 0) alts.push('""');
        return alts.length === 0 ? EMPTY : alts.length === 1 ? alts[0]! : `(${alts.join(" | ")})`;
      }
      if (e !== '""') sep = this.named(`${base}-sep`, e) + " ";
    }
    const full = (1 << n.items.length) - 1;
    const stateName = new Map<number, string>();
    const work: number[] = [];
    const ref = (s: number): string => {
      // A state with every item used can only stop.
      if (s === full || items.every((x, i) => x === null || (s & (1 << i)) !== 0)) return "";
      let nm = stateName.get(s);
      if (nm === undefined) {
        nm = this.fresh(`${base}-u${s.toString(16)}`);
        stateName.set(s, nm);
        work.push(s);
      }
      return " " + nm;
    };
    const start: string[] = [];
    for (let i = 0; i < items.length; i++) if (items[i] !== null) start.push(`${items[i]}${ref(1 << i)}`);
    if (required === 0) start.push('""');
    while (work.length > 0) {
      const s = work.pop()!;
      const alts: string[] = [];
      if ((s & required) === required) alts.push('""');
      for (let i = 0; i < items.length; i++) {
        if (items[i] === null || (s & (1 << i)) !== 0) continue;
        alts.push(`${sep}${items[i]}${ref(s | (1 << i))}`);
      }
      this.addRule(stateName.get(s)!, alts.join(" | "));
    }
    if (start.length === 1 && start[0] === '""') return '""';
    return start.length === 1 ? `(${start[0]})` : `(${start.join(" | ")})`;
  }

  // ---- ref: unroll recursion the way the native builder does ------------------------------

  private findRecursiveGroups(): void {
    const names = Object.keys(this.ruleDefs);
    const edges = new Map<string, Set<string>>();
    for (const nm of names) {
      const out = new Set<string>();
      collectRefs(this.ruleDefs[nm]!, out);
      edges.set(nm, out);
    }
    // Tarjan's strongly connected components.
    let index = 0;
    const idx = new Map<string, number>(), low = new Map<string, number>(), on = new Set<string>();
    const st: string[] = [];
    const visit = (v: string): void => {
      idx.set(v, index); low.set(v, index); index++;
      st.push(v); on.add(v);
      for (const w of edges.get(v) ?? []) {
        if (!edges.has(w)) continue;
        if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
        else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const comp: string[] = [];
        let w: string;
        do { w = st.pop()!; on.delete(w); comp.push(w); } while (w !== v);
        const recursive = comp.length > 1 || edges.get(v)!.has(v);
        for (const m of comp) this.scc.set(m, recursive ? comp.sort() : []);
      }
    };
    for (const nm of names) if (!idx.has(nm)) visit(nm);
  }

  private ref(name: string, path: string): Expr {
    const def = this.ruleDefs[name];
    if (!def) throw new EbnfExportError(`toEbnf: ${path}: ref to undefined rule ${JSON.stringify(name)}`);
    const depth = this.stack.filter((s) => s === name).length;
    if (depth > this.maxDepth) return EMPTY;
    // Expansion of `name` depends only on how often its recursive group is on the stack.
    const group = this.scc.get(name) ?? [];
    const counts = group.map((m) => this.stack.filter((s) => s === m).length);
    const key = `ref\u0000${name}\u0000${counts.join(",")}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;
    this.stack.push(name);
    let body: Expr;
    try { body = this.expr(def, `rules.${name}`); } finally { this.stack.pop(); }
    let out: Expr = body;
    if (body !== EMPTY) {
      const nm = this.fresh(group.length > 0 ? `${name}-d${counts.join("-")}` : name);
      this.addRule(nm, body);
      const alts = this.alternatives.get(body);
      if (alts) this.alternatives.set(nm, alts);
      out = nm;
    }
    this.memo.set(key, out);
    return out;
  }

  // ---- character and byte sets --------------------------------------------------------------

  /** A set of code points (merged ranges, no surrogates) as one expression. */
  private codePointSet(set: Ranges): Expr {
    set = subtract(set, [SURROGATES]);
    if (set.length === 0) return EMPTY;
    if (this.dialect === "gbnf" || this.opts.codePointClasses) {
      // Always the positive class: llama.cpp refuses a token that ends inside a multi-byte
      // character when any code point it could become is excluded by a negated class, so a
      // negated class (which must list the surrogates) refuses e.g. a token ending in byte 0xED.
      // (XGrammar cuts strings at NUL: a class there.)
      if (set.length === 1 && set[0]![0] === set[0]![1] && (this.dialect === "gbnf" || set[0]![0] !== 0)) return quote([set[0]![0]]);
      return `[${set.map(classRange).join("")}]`;
    }
    // One code point: a string, which every XGrammar version reads as a code point.
    if (set.length === 1 && set[0]![0] === set[0]![1] && set[0]![0] !== 0) return quote([set[0]![0]]);
    const ascii = intersect(set, [[0, 0x7f]]);
    const high = intersect(set, [[0x80, MAX_CP]]);
    const allHigh = subtract([[0x80, MAX_CP]], [SURROGATES]);
    const alts: string[] = [];
    if (!this.opts.exactUtf8 && sameRanges(high, allHigh)) {
      // 0.1.27 matches ASCII-only negated classes correctly (any non-ASCII code point passes).
      const missing = complement(ascii, 0x7f);
      if (missing.length > 0) return `[^${missing.map(classRange).join("")}]`;
      alts.push("[\\u0000-\\u007f]", "[^\\u0000-\\u007f]");
      return `(${alts.join(" | ")})`;
    }
    if (ascii.length > 0) alts.push(asciiClass(ascii));
    for (const seq of utf8Sequences(high)) alts.push(seq.map(byteClassText).join(" "));
    return alts.length === 1 ? alts[0]! : `(${alts.join(" | ")})`;
  }

  private byteSet(set: Ranges, path: string): Expr {
    if (set.length === 0) return EMPTY;
    const ascii = intersect(set, [[0, 0x7f]]);
    const high = intersect(set, [[0x80, 0xff]]);
    if (this.dialect === "gbnf" || this.opts.codePointClasses) {
      if (high.length > 0) throw new EbnfExportError(`toEbnf: ${path}: byteClass with bytes >= 0x80 is not exportable to ${this.dialect === "gbnf" ? "GBNF" : "code point classes"} (it matches code points, not bytes)`);
      return this.codePointSet(ascii);
    }
    const alts: string[] = [];
    if (ascii.length > 0) alts.push(asciiClass(ascii));
    if (high.length > 0) alts.push(byteClassText(high));
    return alts.length === 1 ? alts[0]! : `(${alts.join(" | ")})`;
  }
}

// ---- helpers ---------------------------------------------------------------------------------

function normalize(ranges: Ranges, negated: boolean, max: number, path: string): Ranges {
  for (const r of ranges) {
    if (!Array.isArray(r) || r.length !== 2 || !Number.isInteger(r[0]) || !Number.isInteger(r[1]) || r[0] < 0 || r[1] > max || r[0] > r[1])
      throw new EbnfExportError(`toEbnf: ${path}: range ${JSON.stringify(r)} must satisfy 0 <= lo <= hi <= ${max}`);
  }
  const merged = mergeRanges(ranges);
  return negated ? complement(merged, max) : merged;
}

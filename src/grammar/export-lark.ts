// Grammar IR -> llguidance's Lark dialect (docs/syntax.md of guidance-ai/llguidance), by way of
// the GBNF export: one exporter decides the language (until/text automata, perm subsets,
// recursion unrolling), this file only changes the notation, as llguidance's own gbnf_to_lark does.
//
// Notation: `name: body` rules, all lowercase (uppercase names are lexer terminals in Lark),
// `root` becomes `start`; strings as JSON strings; a character class becomes a one-character
// regex `/[\u{..}-\u{..}]/` (Rust regex syntax); `<[id]>` special tokens, `x{m,n}`, `*`, `+`, `?`
// as in GBNF; empty strings are folded into `(...)?`.
//
// Every lexeme is a literal or a single character, so llguidance's greedy lexer cannot change
// the language; the price is speed on long free text (llguidance prefers multi-character regex
// terminals there).
import type { Vocabulary } from "../vocab/vocabulary.js";
import { resolveForVocabulary, type GrammarInput } from "./compile.js";
import { EbnfExportError, toEbnf, type ToEbnfOptions } from "./export-ebnf.js";
import type { Grammar, GrammarNode } from "./ir.js";
import { lowerJsonSchemas } from "./json-schema.js";

export type ToLarkOptions = Pick<ToEbnfOptions, "maxPermItems" | "maxUntilStates" | "maxRules" | "tokenId">;

/**
 * The grammar in llguidance's Lark syntax. With a vocabulary, markers become that vocabulary's
 * special tokens (as compileGrammar does); without one they stay text.
 */
export function toLark(grammar: GrammarInput, vocabulary?: Vocabulary, opts: ToLarkOptions = {}): string {
  const g: Grammar = vocabulary ? resolveForVocabulary(grammar, vocabulary) : lowerJsonSchemas(asGrammar(grammar));
  return gbnfToLark(toEbnf(g, { ...opts, dialect: "gbnf", joinLiterals: false, ...(vocabulary ? { wholeTokens: wholeTokenTexts(vocabulary) } : {}) }));
}

/**
 * The vocabulary's added text tokens by their text. llguidance reads every added token of a
 * tokenizer only as itself (never as text, even "special": false ones such as Qwen3's
 * <tool_call>), so where our grammar has their text the Lark offers the token too.
 */
function wholeTokenTexts(v: Vocabulary): Map<string, number> {
  const out = new Map<string, number>();
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  for (const id of v.addedTextIds) {
    let text: string;
    try { text = utf8.decode(v.tokenBytes(id)); } catch { continue; }
    if (text.length > 0 && !out.has(text)) out.set(text, id);
  }
  return out;
}

function asGrammar(g: GrammarInput): Grammar {
  if ("root" in g) return g as Grammar;
  if ("jsonSchema" in g && !("type" in g)) return { root: { type: "jsonSchema", schema: g.jsonSchema } };
  return { root: g as GrammarNode };
}

// ---- GBNF (as our exporter writes it) -> syntax tree ------------------------------------------

type Atom =
  | { k: "name"; v: string } | { k: "str"; v: string } | { k: "cls"; v: Array<[number, number]> }
  | { k: "tok"; v: string } | { k: "group"; v: Alt };
interface Item { atom: Atom; op: string }
type Alt = Item[][];

const TOKEN = /\s*(?:([A-Za-z][A-Za-z0-9-]*)|("(?:[^"\\]|\\.)*")|(\[(?:[^\]\\]|\\.)*\])|(<\[\d+\]>)|(\{\d+(?:,\d*)?\}|[()|*+?]))/y;

function parseBody(src: string, rule: string): Alt {
  let at = 0;
  const peek = (): RegExpExecArray | null => { TOKEN.lastIndex = at; return TOKEN.exec(src); };
  const alt = (): Alt => {
    const out: Alt = [[]];
    for (;;) {
      const m = peek();
      if (!m) break;
      if (m[5] === ")") break;
      at = TOKEN.lastIndex;
      if (m[5] === "|") { out.push([]); continue; }
      let atom: Atom;
      if (m[1]) atom = { k: "name", v: m[1] };
      else if (m[2]) atom = { k: "str", v: unescape(m[2].slice(1, -1)) };
      else if (m[3]) atom = { k: "cls", v: classRanges(m[3]) };
      else if (m[4]) atom = { k: "tok", v: m[4] };
      else if (m[5] === "(") {
        atom = { k: "group", v: alt() };
        const close = peek();
        if (!close || close[5] !== ")") throw new EbnfExportError(`toLark: unbalanced parentheses in rule ${rule}`);
        at = TOKEN.lastIndex;
      } else throw new EbnfExportError(`toLark: unexpected ${JSON.stringify(m[0])} in rule ${rule}`);
      const op = peek();
      let postfix = "";
      if (op && op[5] && /^[*+?{]/.test(op[5])) { postfix = op[5]; at = TOKEN.lastIndex; }
      out[out.length - 1]!.push({ atom, op: postfix });
    }
    return out;
  };
  const body = alt();
  if (src.slice(at).trim() !== "") throw new EbnfExportError(`toLark: cannot read ${JSON.stringify(src.slice(at, at + 20))} in rule ${rule}`);
  return body;
}

/** GBNF escapes (\n \t \r \" \\ \- \] \[ \uXXXX \UXXXXXXXX) and plain characters; `dash`: an unescaped '-'. */
function chars(s: string): Array<{ cp: number; dash: boolean }> {
  const out: Array<{ cp: number; dash: boolean }> = [];
  for (let i = 0; i < s.length;) {
    if (s[i] !== "\\") {
      const cp = s.codePointAt(i)!;
      out.push({ cp, dash: cp === 0x2d });
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = s[i + 1]!;
    if (e === "u" || e === "U") {
      const n = e === "u" ? 4 : 8;
      out.push({ cp: parseInt(s.slice(i + 2, i + 2 + n), 16), dash: false });
      i += 2 + n;
    } else {
      out.push({ cp: e === "n" ? 10 : e === "t" ? 9 : e === "r" ? 13 : e.codePointAt(0)!, dash: false });
      i += 2;
    }
  }
  return out;
}

function unescape(s: string): string {
  return String.fromCodePoint(...chars(s).map((c) => c.cp));
}

/** Our GBNF writes only positive classes of single characters and `a-b` ranges. */
function classRanges(text: string): Array<[number, number]> {
  if (text.startsWith("[^")) throw new EbnfExportError("toLark: negated classes are not expected from the GBNF export");
  const cs = chars(text.slice(1, -1));
  const out: Array<[number, number]> = [];
  for (let i = 0; i < cs.length; i++) {
    if (i + 2 < cs.length && cs[i + 1]!.dash) { out.push([cs[i]!.cp, cs[i + 2]!.cp]); i += 2; }
    else out.push([cs[i]!.cp, cs[i]!.cp]);
  }
  return out;
}

// ---- syntax tree -> Lark ---------------------------------------------------------------------

const hex = (c: number) => `\\u{${c.toString(16)}}`;

function printAlt(a: Alt, name: (n: string) => string): string {
  // "" (and any repetition of it) is the empty string: dropped from sequences.
  const seqs = a.map((s) => s.filter((it) => !(it.atom.k === "str" && it.atom.v === "")));
  const nonEmpty = seqs.filter((s) => s.length > 0);
  const uniq = [...new Set(nonEmpty.map((s) => s.map((it) => printItem(it, name)).join(" ")))];
  if (uniq.length === 0) return '""';
  const body = uniq.join(" | ");
  return nonEmpty.length < seqs.length ? `(${body})?` : body;
}

function printItem(it: Item, name: (n: string) => string): string {
  const a = it.atom;
  const op = it.op;
  let s: string;
  switch (a.k) {
    case "name": s = name(a.v); break;
    case "str": s = JSON.stringify(a.v); break;
    case "cls": s = `/[${a.v.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join("")}]/`; break;
    case "tok": s = a.v; break;
    case "group": {
      const inner = printAlt(a.v, name);
      // Without an operator, a group of one sequence needs no parentheses.
      if (op === "" && (a.v.length === 1 || (inner.startsWith("(") && inner.endsWith(")?")))) return inner;
      s = `(${inner})`;
      break;
    }
  }
  return s + op;
}

/** GBNF as written by toEbnf(…, {dialect: "gbnf"}) in llguidance's Lark syntax. */
export function gbnfToLark(gbnf: string): string {
  const rules: Array<[string, string]> = [];
  for (const line of gbnf.split("\n")) {
    if (line.trim() === "") continue;
    const m = /^([A-Za-z][A-Za-z0-9-]*) ::= (.*)$/.exec(line);
    if (!m) throw new EbnfExportError(`toLark: cannot read GBNF line ${JSON.stringify(line.slice(0, 60))}`);
    rules.push([m[1]!, m[2]!]);
  }
  // Lark rule names are lowercase; keep them unique after lowering.
  const names = new Map<string, string>([["root", "start"]]);
  const used = new Set(["start"]);
  for (const [n] of rules) {
    if (names.has(n)) continue;
    const base = n.toLowerCase();
    let out = base, k = 1;
    while (used.has(out)) out = `${base}-${++k}`;
    used.add(out);
    names.set(n, out);
  }
  const name = (n: string) => {
    const out = names.get(n);
    if (!out) throw new EbnfExportError(`toLark: reference to undefined rule ${n}`);
    return out;
  };
  return rules.map(([n, body]) => {
    let tree = parseBody(body, n);
    // A body that is one parenthesised group is that group.
    while (tree.length === 1 && tree[0]!.length === 1 && tree[0]![0]!.atom.k === "group" && tree[0]![0]!.op === "") tree = tree[0]![0]!.atom.v;
    return `${name(n)}: ${printAlt(tree, name)}`;
  }).join("\n") + "\n";
}

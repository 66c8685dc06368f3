// A Lark grammar (https://lark-parser.readthedocs.io/en/latest/grammar.html) read as a regular
// expression over code points (pattern.ts's Rx), for the Responses API's custom tools with
// `format: {type: "grammar", syntax: "lark"}`: the tool's input must be a string of the grammar's
// language. Read: rules and terminals (`name: …`, `NAME: …`, with the `?`/`!` prefixes and a
// `.priority`, which change the parse tree only), alternatives `|` (on continuation lines too),
// sequences, groups `( … )`, optional `[ … ]`, `?` `*` `+`, `~ n` and `~ n..m`, string literals
// `"…"` (Python escapes), ranges `"a".."z"`, regular expressions `/…/` (read by pattern.ts: the
// ECMAScript subset JSON Schema's "pattern" takes; Lark compiles them with Python's re, whose "."
// matches "\r" where this one does not), `-> alias` (ignored), `//` comments, and
// `%import common.NAME` for the common terminals below. A rule that refers to itself, directly or
// through others, is refused: the language of a grammar without recursion is regular, and that is
// what a pattern's lowering constrains. Refused with the construct named: recursion, `%ignore`
// (Lark's tokens are separated by what it ignores; here the input is one string, every character
// given), `%declare`, `%override`, `%extend`, templates, literal or regexp flags, an unknown
// common terminal, an undefined name, no `start` rule.
import { parsePattern, type Rx } from "./json-schema/pattern.js";
import { UnsupportedSchemaError } from "./json-schema/errors.js";
import { SCHEMA_LIMITS } from "./schema-limits.js";

/** A construct this reader refuses, named in `construct`; `message` says what to do. */
export class LarkGrammarError extends Error {
  constructor(
    readonly construct: string,
    message: string,
  ) {
    super(message);
    this.name = "LarkGrammarError";
  }
}

type Expr =
  | { k: "alt"; items: Expr[] }
  | { k: "seq"; items: Expr[] }
  | { k: "rep"; item: Expr; min: number; max: number | null }
  | { k: "lit"; text: string }
  | { k: "range"; from: number; to: number }
  | { k: "re"; source: string }
  | { k: "ref"; name: string };

const set = (lo: number, hi = lo): Rx => ({ k: "set", r: [[lo, hi]] });
const litRx = (text: string): Rx => ({ k: "seq", items: Array.from(text, (c) => set(c.codePointAt(0)!)) });

/** Lark's common.lark terminals this reader knows, as expressions. */
const COMMON: Record<string, string> = {
  LF: '"\\n"',
  CR: '"\\r"',
  NEWLINE: "(CR? LF)+",
  WS_INLINE: '(" " | "\\t")+',
  WS: '(" " | "\\t" | "\\f" | "\\r" | "\\n")+',
  DIGIT: '"0".."9"',
  HEXDIGIT: '"a".."f" | "A".."F" | DIGIT',
  INT: "DIGIT+",
  LCASE_LETTER: '"a".."z"',
  UCASE_LETTER: '"A".."Z"',
  LETTER: "UCASE_LETTER | LCASE_LETTER",
  WORD: "LETTER+",
  CNAME: '("_" | LETTER) ("_" | LETTER | DIGIT)*',
};

function fail(construct: string, message: string): never {
  throw new LarkGrammarError(construct, message);
}

/** The definitions of a grammar's text: name → expression. */
function definitions(src: string): Map<string, Expr> {
  const defs = new Map<string, Expr>();
  // Join continuation lines (those starting with "|" after blanks) to the definition above them.
  const lines: string[] = [];
  for (const raw of src.split(/\r?\n/)) {
    const line = stripComment(raw);
    if (line.trim() === "") continue;
    if (/^\s+\|/.test(line) || (/^\s/.test(line) && lines.length > 0)) lines[lines.length - 1] += ` ${line.trim()}`;
    else lines.push(line.trim());
  }
  for (const line of lines) {
    if (line.startsWith("%")) {
      const group = /^%import\s+common\s*\(([A-Z0-9_,\s]+)\)\s*$/.exec(line);
      const names = group ? group[1]!.split(",").map((n) => n.trim()) : [];
      for (const name of names) {
        if (COMMON[name] === undefined)
          fail(`common.${name}`, `%import common.${name} is not supported; it knows ${Object.keys(COMMON).join(", ")}`);
        importCommon(name, defs);
      }
      if (group) continue;
      const m = /^%import\s+common\.([A-Z_][A-Z0-9_]*)\s*$/.exec(line);
      if (!m) {
        const word = /^%\w+/.exec(line)?.[0] ?? line.slice(0, 20);
        fail(
          word,
          `${word} is not supported${word === "%ignore" ? ": the input is one string, every character of it given by the grammar (write the whitespace where it may appear)" : ""}; this server reads %import common.NAME and %import common (NAME, …) only`,
        );
      }
      const name = m[1]!;
      const def = COMMON[name];
      if (def === undefined)
        fail(`common.${name}`, `%import common.${name} is not supported; it knows ${Object.keys(COMMON).join(", ")}`);
      importCommon(name, defs);
      continue;
    }
    const head = /^([?!]?)([A-Za-z_][A-Za-z0-9_]*)(\.-?\d+)?\s*(\{)?/.exec(line);
    if (!head)
      fail("definition", `cannot read ${JSON.stringify(line.slice(0, 40))}: a definition is "name: expansion"`);
    if (head[4]) fail("template", `${head[2]}{…}: templates are not supported`);
    const rest = line.slice(head[0].length);
    if (!rest.startsWith(":")) fail("definition", `${head[2]} must be followed by ":"`);
    if (defs.has(head[2]!) && !(head[2]! in COMMON)) fail("definition", `${head[2]} is defined twice`);
    const reader = new Reader(rest.slice(1));
    defs.set(head[2]!, reader.expression());
    reader.end();
  }
  return defs;
}

/** Lark's common terminal `name` and those it refers to, into `defs`. */
function importCommon(name: string, defs: Map<string, Expr>): void {
  if (defs.has(name)) return;
  const e = new Reader(COMMON[name]!).expression();
  defs.set(name, e);
  const refs = (x: Expr): string[] =>
    x.k === "ref"
      ? [x.name]
      : x.k === "alt" || x.k === "seq"
        ? x.items.flatMap(refs)
        : x.k === "rep"
          ? refs(x.item)
          : [];
  for (const dep of refs(e)) importCommon(dep, defs);
}

/** `line` without its `//` comment (outside literals and regular expressions). */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"') quote = c;
    else if (c === "/" && line[i + 1] === "/") return line.slice(0, i);
    else if (c === "/") quote = "/";
  }
  return line;
}

/** A recursive-descent reader of one expansion. */
class Reader {
  private i = 0;
  constructor(private readonly s: string) {}
  private blank(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
  private peek(): string | undefined {
    this.blank();
    return this.s[this.i];
  }
  end(): void {
    if (this.peek() !== undefined) fail("syntax", `cannot read ${JSON.stringify(this.s.slice(this.i, this.i + 20))}`);
  }
  expression(): Expr {
    const items = [this.alternative()];
    while (this.peek() === "|") {
      this.i++;
      items.push(this.alternative());
    }
    return items.length === 1 ? items[0]! : { k: "alt", items };
  }
  private alternative(): Expr {
    const items: Expr[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === "|" || c === ")" || c === "]") break;
      if (this.s.startsWith("->", this.i)) {
        this.i += 2;
        this.blank();
        if (!/^[A-Za-z_]\w*/.test(this.s.slice(this.i))) fail("alias", "-> must be followed by a name");
        this.i += /^[A-Za-z_]\w*/.exec(this.s.slice(this.i))![0].length;
        break;
      }
      items.push(this.quantified());
    }
    return items.length === 1 ? items[0]! : { k: "seq", items };
  }
  private quantified(): Expr {
    let e = this.atom();
    for (;;) {
      const c = this.s[this.i];
      if (c === "?") e = { k: "rep", item: e, min: 0, max: 1 };
      else if (c === "*") e = { k: "rep", item: e, min: 0, max: null };
      else if (c === "+") e = { k: "rep", item: e, min: 1, max: null };
      else if (this.peek() === "~") {
        const m = /^~\s*(\d+)(?:\s*\.\.\s*(\d+))?/.exec(this.s.slice(this.i));
        if (!m) fail("~", "~ must be followed by a count n or a range n..m");
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : Number(m[2]);
        if (max < min) fail("~", `~ ${min}..${max}: the range is empty`);
        if (max > SCHEMA_LIMITS.repetition)
          fail("~", `~ ${max} exceeds the limit of ${SCHEMA_LIMITS.repetition} repetitions`);
        this.i += m[0].length;
        e = { k: "rep", item: e, min, max };
        continue;
      } else return e;
      this.i++;
    }
  }
  private atom(): Expr {
    const c = this.peek();
    if (c === "(" || c === "[") {
      this.i++;
      const inner = this.expression();
      if (this.peek() !== (c === "(" ? ")" : "]")) fail("syntax", `a group opened with "${c}" is not closed`);
      this.i++;
      return c === "[" ? { k: "rep", item: inner, min: 0, max: 1 } : inner;
    }
    if (c === '"') {
      const text = this.literal();
      if (this.s[this.i] === "i") fail('"…"i', "case-insensitive literals are not supported");
      this.blank();
      if (this.s.startsWith("..", this.i)) {
        this.i += 2;
        this.blank();
        const to = this.literal();
        if ([...text].length !== 1 || [...to].length !== 1)
          fail('".."', 'a range "a".."z" takes one character on each side');
        return { k: "range", from: text.codePointAt(0)!, to: to.codePointAt(0)! };
      }
      return { k: "lit", text };
    }
    if (c === "/") {
      let j = this.i + 1;
      let source = "";
      while (j < this.s.length && this.s[j] !== "/") {
        if (this.s[j] === "\\" && this.s[j + 1] === "/") {
          source += "/";
          j += 2;
          continue;
        }
        if (this.s[j] === "\\") source += this.s[j++];
        source += this.s[j++];
      }
      if (j >= this.s.length) fail("/…/", "a regular expression is not closed with /");
      this.i = j + 1;
      const flags = /^[imslux]+/.exec(this.s.slice(this.i));
      if (flags) fail(`/…/${flags[0]}`, `regular expression flags (${flags[0]}) are not supported`);
      return { k: "re", source };
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i));
    if (name) {
      this.i += name[0].length;
      if (this.s[this.i] === "{") fail("template", `${name[0]}{…}: templates are not supported`);
      return { k: "ref", name: name[0] };
    }
    return fail("syntax", `cannot read ${JSON.stringify(this.s.slice(this.i, this.i + 20))}`);
  }
  private literal(): string {
    let out = "";
    let j = this.i + 1;
    for (; j < this.s.length && this.s[j] !== '"'; j++) {
      if (this.s[j] !== "\\") {
        out += this.s[j];
        continue;
      }
      const e = this.s[++j];
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        f: "\f",
        v: "\v",
        "0": "\0",
        "\\": "\\",
        '"': '"',
        "'": "'",
      };
      if (e !== undefined && e in simple) out += simple[e];
      else if (e === "x" || e === "u" || e === "U") {
        const n = e === "x" ? 2 : e === "u" ? 4 : 8;
        const hex = this.s.slice(j + 1, j + 1 + n);
        if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) fail('"\\' + e + '"', `\\${e} takes ${n} hex digits`);
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        j += n;
      } else fail(`"\\${e ?? ""}"`, `the escape \\${e ?? ""} in a literal is not supported`);
    }
    if (j >= this.s.length) fail('"…"', "a string literal is not closed");
    this.i = j + 1;
    return out;
  }
}

/**
 * The language of `src`'s `start` rule as an Rx. Throws LarkGrammarError naming the construct it
 * cannot read (recursion among them).
 */
export function larkToRx(src: string): Rx {
  const defs = definitions(src);
  if (!defs.has("start")) fail("start", 'the grammar has no "start" rule');
  const done = new Map<string, Rx>();
  const open: string[] = [];
  const rx = (e: Expr): Rx => {
    switch (e.k) {
      case "alt":
      case "seq":
        return { k: e.k, items: e.items.map(rx) };
      case "rep":
        return { k: "rep", item: rx(e.item), min: e.min, max: e.max };
      case "lit":
        return litRx(e.text);
      case "range":
        if (e.to < e.from)
          fail('".."', `the range ${String.fromCodePoint(e.from)}..${String.fromCodePoint(e.to)} is empty`);
        return set(e.from, e.to);
      case "re":
        return regex(e.source);
      case "ref": {
        const known = done.get(e.name);
        if (known) return known;
        if (open.includes(e.name))
          fail(
            "recursion",
            `${[...open.slice(open.indexOf(e.name)), e.name].join(" -> ")} is recursive; this server reads Lark grammars without recursion (their language is regular): write the repetition with + or * instead`,
          );
        const def = defs.get(e.name);
        if (!def)
          fail(
            e.name,
            `${e.name} is used but not defined${/^[A-Z]/.test(e.name) ? ` (for Lark's own, %import common.${e.name})` : ""}`,
          );
        open.push(e.name);
        const out = rx(def);
        open.pop();
        done.set(e.name, out);
        return out;
      }
    }
  };
  const out = rx({ k: "ref", name: "start" });
  // Rules used more than once are one shared Rx here, but written out once per use: bound the
  // expansion before anything writes it (a rule used twice by each of 40 rules above it is 2^40 copies).
  const sizes = new Map<Rx, number>();
  const size = (x: Rx): number => {
    const known = sizes.get(x);
    if (known !== undefined) return known;
    const n = x.k === "set" ? 1 : x.k === "rep" ? 1 + size(x.item) : x.items.reduce((a, y) => a + size(y), 1);
    sizes.set(x, Math.min(n, EXPANSION_LIMIT + 1));
    return Math.min(n, EXPANSION_LIMIT + 1);
  };
  if (size(out) > EXPANSION_LIMIT)
    fail(
      "size",
      `the grammar written out, each rule once per use, has more than ${EXPANSION_LIMIT} parts; use fewer nested rules that are each used many times`,
    );
  return out;
}

/** Parts (characters, groups, repetitions) of a grammar written out with each rule once per use. */
export const EXPANSION_LIMIT = 100_000;

/** A `/…/` terminal as an Rx: the whole of it (anchors add nothing to a terminal). */
function regex(source: string): Rx {
  try {
    const alts = parsePattern(source, "");
    return alts.length === 1 ? alts[0]!.rx : { k: "alt", items: alts.map((a) => a.rx) };
  } catch (e) {
    if (e instanceof UnsupportedSchemaError)
      fail(`/${source.length > 30 ? `${source.slice(0, 30)}…` : source}/`, e.message.replace(/^: "pattern": /, ""));
    throw e;
  }
}

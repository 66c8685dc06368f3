// Rules -> llguidance's Lark notation (docs/syntax.md of guidance-ai/llguidance): `name: body`
// rules, all lowercase (uppercase names are lexer terminals in Lark), `root` becomes `start`;
// strings as JSON strings; a class as a one-character regex `/[\u{..}-\u{..}]/` (Rust regex
// syntax); `<[id]>` tokens, `x{m,n}`, `*`, `+`, `?` as in GBNF; Lark has no empty string, so an
// empty alternative makes its group optional, `(…)?`, and an empty sequence item is left out.
import { EbnfExportError } from "./options.js";
import { repeatOp } from "./print-ebnf.js";
import type { RuleExpr, RuleSet } from "./rule-ast.js";

const hex = (c: number) => `\\u{${c.toString(16)}}`;

/** Printed text and its binding strength (0 alternatives, 1 sequence, 2 postfix, 3 atom); null: the empty string. */
type Printed = { text: string; prec: number } | null;

const wrap = (p: { text: string; prec: number }, need: number) => (p.prec < need ? `(${p.text})` : p.text);

function print(e: RuleExpr, name: (n: string) => string): Printed {
  switch (e.k) {
    case "str":
      return e.cps.length === 0
        ? null
        : { text: JSON.stringify(e.cps.map((c) => String.fromCodePoint(c)).join("")), prec: 3 };
    case "cls":
      if (e.negated)
        throw new EbnfExportError(
          "toLark: a negated class reached the Lark printer (the lowering writes positive classes)",
        );
      return {
        text: `/[${e.ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join("")}]/`,
        prec: 3,
      };
    case "bytes":
      throw new EbnfExportError("toLark: a byte class reached the Lark printer (Lark classes are code points)");
    case "token":
      return { text: `<[${e.id}]>`, prec: 3 };
    case "piece":
      return { text: e.text, prec: 3 };
    case "ref":
      return { text: name(e.name), prec: 3 };
    case "seq": {
      const parts = e.items.map((x) => print(x, name)).filter((p) => p !== null);
      if (parts.length === 0) return null;
      if (parts.length === 1) return parts[0]!;
      return { text: parts.map((p) => wrap(p, 1)).join(" "), prec: 1 };
    }
    case "alt": {
      const printed = e.items.map((x) => print(x, name));
      const parts = printed.filter((p) => p !== null);
      const texts = [...new Set(parts.map((p) => wrap(p, 0)))];
      if (texts.length === 0) return null;
      const body =
        texts.length === 1 ? parts.find((p) => wrap(p, 0) === texts[0])! : { text: texts.join(" | "), prec: 0 };
      return parts.length < printed.length ? { text: `(${body.text})?`, prec: 2 } : body;
    }
    case "rep": {
      const item = print(e.item, name);
      return item === null ? null : { text: wrap(item, 3) + repeatOp(e.min, e.max), prec: 2 };
    }
  }
}

export function printLark(rules: RuleSet): string {
  // Lark rule names are lowercase; kept unique after lowering.
  const names = new Map<string, string>([["root", "start"]]);
  const used = new Set(["start"]);
  for (const { name: n } of rules) {
    if (names.has(n)) continue;
    const base = n.toLowerCase();
    let out = base,
      k = 1;
    while (used.has(out)) out = `${base}-${++k}`;
    used.add(out);
    names.set(n, out);
  }
  const name = (n: string) => {
    const out = names.get(n);
    if (!out) throw new EbnfExportError(`toLark: reference to undefined rule ${n}`);
    return out;
  };
  return rules.map((r) => `${name(r.name)}: ${print(r.body, name)?.text ?? '""'}`).join("\n") + "\n";
}

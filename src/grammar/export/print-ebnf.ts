// Rules -> EBNF text, the notation llama.cpp's GBNF and XGrammar's EBNF share: `name ::= body`
// lines from root, quoted strings (printable ASCII kept, `"` and `\` escaped, other code points
// as \n \t \r or \uXXXX / \UXXXXXXXX, never \x: XGrammar's \x reads hex digits greedily),
// `[...]` classes, `<[id]>` tokens, `x*` `x+` `x?` `x{m,n}`, parentheses only where precedence
// needs them. Which of these a target gets is the lowering's decision (lower.ts).
import type { Ranges } from "../code-ranges.js";
import type { RuleExpr, RuleSet } from "./rule-ast.js";

/** Escape a code point for a quoted string or a class (both syntaxes). */
function escapeCp(c: number, inClass: boolean): string {
  if (c === 0x0a) return "\\n";
  if (c === 0x09) return "\\t";
  if (c === 0x0d) return "\\r";
  if (c === 0x22 || c === 0x5c) return "\\" + String.fromCharCode(c);
  if (inClass && (c === 0x5d || c === 0x5b || c === 0x2d)) return "\\" + String.fromCharCode(c);
  if (inClass && c === 0x5e) return "\\u005e"; // llama.cpp has no \^ escape
  if (c >= 0x20 && c < 0x7f) return String.fromCharCode(c);
  return c <= 0xffff ? `\\u${c.toString(16).padStart(4, "0")}` : `\\U${c.toString(16).padStart(8, "0")}`;
}

function quote(cps: number[]): string {
  return `"${cps.map((c) => escapeCp(c, false)).join("")}"`;
}

function classRange([lo, hi]: [number, number]): string {
  if (lo === hi) return escapeCp(lo, true);
  if (hi === lo + 1) return escapeCp(lo, true) + escapeCp(hi, true);
  return `${escapeCp(lo, true)}-${escapeCp(hi, true)}`;
}

/** A byte class for XGrammar 0.1.27 (values >= 0x80 are bytes there); never a single member. */
function byteClassText(set: Ranges | [number, number]): string {
  const rs: Ranges = typeof set[0] === "number" ? [set as [number, number]] : (set as Ranges);
  if (rs.length === 1 && rs[0]![0] === rs[0]![1]) {
    const e = escapeCp(rs[0]![0], true);
    return `[${e}${e}]`;
  }
  return `[${rs.map(classRange).join("")}]`;
}

/** Binding strength: alternatives 0, sequences 1, postfix operators 2, atoms 3. */
function precedence(e: RuleExpr): number {
  switch (e.k) {
    case "alt":
      return e.items.length === 1 ? precedence(e.items[0]!) : 0;
    case "seq":
      return e.items.length === 0 ? 3 : e.items.length === 1 ? precedence(e.items[0]!) : 1;
    case "rep":
      return 2;
    default:
      return 3;
  }
}

export function repeatOp(min: number, max: number | null): string {
  if (max === null) return min === 0 ? "*" : min === 1 ? "+" : `{${min},}`;
  if (min === 0 && max === 1) return "?";
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

/** `e` as text, in parentheses when it binds more loosely than `need`. */
function print(e: RuleExpr, need: number): string {
  let text: string;
  switch (e.k) {
    case "str":
      text = quote(e.cps);
      break;
    case "cls":
      text = `[${e.negated ? "^" : ""}${e.ranges.map(classRange).join("")}]`;
      break;
    case "bytes":
      text = byteClassText(e.ranges);
      break;
    case "token":
      text = `<[${e.id}]>`;
      break;
    case "piece":
      text = e.text;
      break;
    case "ref":
      text = e.name;
      break;
    case "seq":
      if (e.items.length === 0) return '""';
      if (e.items.length === 1) return print(e.items[0]!, need);
      text = e.items.map((x) => print(x, 1)).join(" ");
      break;
    case "alt":
      if (e.items.length === 1) return print(e.items[0]!, need);
      text = e.items.map((x) => print(x, 0)).join(" | ");
      break;
    case "rep":
      text = print(e.item, 3) + repeatOp(e.min, e.max);
      break;
  }
  return precedence(e) < need ? `(${text})` : text;
}

export function printEbnf(rules: RuleSet): string {
  return rules.map((r) => `${r.name} ::= ${print(r.body, 0)}`).join("\n") + "\n";
}

// Grammar IR -> EBNF text for other engines (XGrammar's EBNF, llama.cpp's GBNF), defining the
// same language our compiler builds, so the engines can be compared and used as oracles:
// lower.ts decides the rules for the target, print-ebnf.ts writes them.
import type { Grammar, GrammarNode } from "../ir.js";
import { lowerForExport } from "./lower.js";
import { EbnfExportError, type ToEbnfOptions } from "./options.js";
import { printEbnf } from "./print-ebnf.js";

export { EbnfExportError, type ToEbnfOptions };
export { utf8Sequences } from "./sets.js";

export function toEbnf(grammar: Grammar | GrammarNode, opts: ToEbnfOptions = {}): string {
  const g: Grammar = "type" in grammar ? { root: grammar } : grammar;
  const { target: given, dialect, ...rest } = opts;
  const target = given ?? dialect ?? "xgrammar";
  if (target !== "xgrammar" && target !== "gbnf")
    throw new EbnfExportError(
      `toEbnf: target must be "xgrammar" or "gbnf", got ${JSON.stringify(target)} (llguidance's Lark: toLark)`,
    );
  return printEbnf(lowerForExport(g, { ...rest, target }));
}

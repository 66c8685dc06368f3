// Grammar IR -> EBNF text for other engines (XGrammar's EBNF, llama.cpp's GBNF), defining the
// same language our compiler builds, so the engines can be compared and used as oracles:
// lower.ts decides the rules for the target, print-ebnf.ts writes them.
import type { Grammar, GrammarNode } from "../ir.js";
import { lowerForExport } from "./lower.js";
import type { ToEbnfOptions } from "./options.js";
import { printEbnf } from "./print-ebnf.js";

export { EbnfExportError, type ToEbnfOptions } from "./options.js";
export { utf8Sequences } from "./sets.js";

export function toEbnf(grammar: Grammar | GrammarNode, opts: ToEbnfOptions = {}): string {
  const g: Grammar = "type" in grammar ? { root: grammar } : grammar;
  const { target, dialect, ...rest } = opts;
  return printEbnf(lowerForExport(g, { ...rest, target: target ?? dialect ?? "xgrammar" }));
}

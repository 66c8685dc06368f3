// The request's grammar in the syntax an engine's backend reads: XGrammar's EBNF (vLLM's and
// SGLang's default backend; classes as code points, as native XGrammar 0.2.8 reads them) or
// llguidance's Lark (their `guidance` / `llguidance` backend). Markers resolve to the model's
// special tokens, as the local mask resolves them.
import { resolveForVocabulary } from "../../grammar/compile.js";
import { toEbnf } from "../../grammar/export/ebnf.js";
import { toLark } from "../../grammar/export/lark.js";
import type { Grammar } from "../../grammar/ir.js";
import type { Vocabulary } from "../../vocab/vocabulary.js";

export type GrammarSyntax = "ebnf" | "lark";
export const GRAMMAR_SYNTAXES: readonly GrammarSyntax[] = ["ebnf", "lark"];

export function grammarText(ir: Grammar, vocabulary: Vocabulary, syntax: GrammarSyntax): string {
  if (syntax === "lark") return toLark(ir, vocabulary);
  const utf8 = new TextDecoder();
  return toEbnf(resolveForVocabulary(ir, vocabulary), {
    target: "xgrammar",
    codePointClasses: true,
    tokenText: (id) => utf8.decode(vocabulary.tokenBytes(id)),
  });
}

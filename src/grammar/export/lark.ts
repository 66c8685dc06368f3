// Grammar IR -> llguidance's Lark syntax (docs/syntax.md of guidance-ai/llguidance): the rules
// lower.ts decides for the "lark" target (those of GBNF, literals never joined), written by
// print-lark.ts.
//
// Every lexeme is a literal or a single character, so llguidance's greedy lexer cannot change
// the language; the price is speed on long free text (llguidance prefers multi-character regex
// terminals there).
import type { Vocabulary } from "../../vocab/vocabulary.js";
import { resolveForVocabulary, type GrammarInput } from "../compile.js";
import type { Grammar, GrammarNode } from "../ir.js";
import { lowerJsonSchemas } from "../json-schema/index.js";
import { lowerForExport } from "./lower.js";
import type { ToEbnfOptions } from "./options.js";
import { printLark } from "./print-lark.js";

export type ToLarkOptions = Pick<ToEbnfOptions, "maxPermItems" | "maxUntilStates" | "maxRules" | "tokenId">;

/**
 * The grammar in llguidance's Lark syntax. With a vocabulary, markers become that vocabulary's
 * special tokens (as compileGrammar does); without one they stay text.
 */
export function toLark(grammar: GrammarInput, vocabulary?: Vocabulary, opts: ToLarkOptions = {}): string {
  const g: Grammar = vocabulary ? resolveForVocabulary(grammar, vocabulary) : lowerJsonSchemas(asGrammar(grammar));
  return printLark(
    lowerForExport(g, { ...opts, target: "lark", ...(vocabulary ? { wholeTokens: wholeTokenTexts(vocabulary) } : {}) }),
  );
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
    try {
      text = utf8.decode(v.tokenBytes(id));
    } catch {
      continue;
    }
    if (text.length > 0 && !out.has(text)) out.set(text, id);
  }
  return out;
}

function asGrammar(g: GrammarInput): Grammar {
  if ("root" in g) return g as Grammar;
  if ("jsonSchema" in g && !("type" in g)) return { root: { type: "jsonSchema", schema: g.jsonSchema } };
  return { root: g as GrammarNode };
}

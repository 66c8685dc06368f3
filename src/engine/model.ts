// loadModel: a GGUF loaded into llama.cpp (off the JS thread), with the vocabulary read from the
// loaded model itself and the chat template and dialect from its metadata.
import { availableParallelism } from "node:os";
import { loadNative, type NativeLlamaModel } from "../native.js";
import { Vocabulary } from "../vocab/vocabulary.js";
import { detectModelDialect, stderrNotice } from "./detect-dialect.js";
import { readGgufModelName } from "../vocab/gguf.js";
import { ensureLlamaLibrary, type GpuOption } from "./llama-library.js";
import { noticeCpuFallback } from "./gpu-notice.js";
import { checkOptionNames, optionNames } from "./options-check.js";
import { existsSync, statSync } from "node:fs";

export interface LoadModelOptions {
  path: string;
  /**
   * "auto" (default): the CUDA build when node-llama-cpp's CUDA package and an NVIDIA driver are
   * here, else the Vulkan build when its package and a Vulkan loader are, else the CPU build (Metal
   * on Apple silicon), with a one-line notice on stderr when no GPU ends up in use (once per
   * process; TOOLMASK_QUIET=1 silences it); "cuda" / "vulkan": that build or an error; false: CPU
   * only, silently. With a GPU build every layer is offloaded when llama.cpp finds a GPU device.
   */
  gpu?: GpuOption;
  /** CPU threads for decoding. Default: see defaultThreads(). */
  threads?: number;
  /** Tokens per generation's context (prompt + output). Default: the trained context, at most 4096. */
  contextSize?: number;
  /**
   * Generations decoded together, as sequences of one llama.cpp context (more wait in a queue).
   * Default 4 (llama-server's default slot count). The KV cache holds contextSize × parallel
   * tokens, allocated when the first generation starts: lower it where memory is tight.
   */
  parallel?: number;
  /**
   * true (default): a prompt's logits are those a decode of it alone from an empty cache gives, bit
   * for bit, whatever the prompt cache holds and whatever else decodes: each prompt chunk goes in a
   * llama_decode of its own, cached rows are reused only where the batch that decoded them had the
   * size class a fresh decode gives them, and the previous answer's rows are decoded again
   * (docs/decoding.md, "The prompt cache"). false: llama-server's way: one llama_decode a step for
   * every sequence's tokens and prompt chunks, and any cached prefix reused, the previous answer's
   * rows included: fewer rows and passes with several conversations, logits that differ from a fresh
   * decode in their last bits (greedy picks can differ).
   */
  exactPrompts?: boolean;
  /** Called while the weights load with the fraction done (0..1), on the JS thread. */
  onProgress?: (fraction: number) => void;
  /**
   * Told when the chat template shows no tool-call format and the generic dialect is assumed
   * (also in `model.dialectNotice`). Default: one line on stderr, silenced by TOOLMASK_QUIET=1.
   */
  onNotice?: (notice: string) => void;
}

const LOAD_MODEL_OPTION_NAMES = optionNames<LoadModelOptions>({
  path: true,
  gpu: true,
  threads: true,
  contextSize: true,
  parallel: true,
  exactPrompts: true,
  onProgress: true,
  onNotice: true,
});

/**
 * One thread per two logical CPUs, at least one. Measured here (2 cores shared with other work,
 * the tiny test model): 1 thread beat 2 by 4–5×, and node-llama-cpp's default of 4 ran ~25× slower.
 */
export function defaultThreads(): number {
  return Math.max(1, Math.floor(availableParallelism() / 2));
}

/** Sequences decoded together by default (see LoadModelOptions.parallel). */
export const DEFAULT_PARALLEL = 4;

export class LlamaModel {
  readonly path: string;
  /** The vocabulary as llama.cpp reads it from this model (compile grammars on it). */
  readonly vocabulary: Vocabulary;
  /** The GGUF's tokenizer.chat_template ("" when it has none). */
  readonly chatTemplate: string;
  /** The tool-call dialect the template writes, when it is obvious from the template. */
  readonly dialect: string | undefined;
  /**
   * Why `dialect` is not the one the template names: "generic" when the template shows no tool-call
   * format, or the model's own dialect picked by its GGUF general.name (undefined otherwise).
   */
  readonly dialectNotice: string | undefined;
  readonly bosToken: string;
  readonly eosToken: string;
  readonly threads: number;
  readonly contextSize: number;
  /** Generations decoded at once; more wait for a free slot. */
  readonly parallel: number;
  /** LoadModelOptions.exactPrompts. */
  readonly exactPrompts: boolean;
  /** Where the layers run: the GPU build in use when offloaded, else false. */
  readonly gpu: "cuda" | "vulkan" | "metal" | false;
  /** @internal */ readonly native: NativeLlamaModel;

  /** @internal */
  constructor(
    native: NativeLlamaModel,
    path: string,
    threads: number,
    contextSize: number,
    parallel: number,
    gpu: LlamaModel["gpu"],
    exactPrompts: boolean,
    onNotice?: (notice: string) => void,
  ) {
    this.native = native;
    this.gpu = gpu;
    this.path = path;
    const v = native.vocabulary();
    const tokenBytes: Uint8Array[] = [];
    for (let i = 0; i + 1 < v.offsets.length; i++) tokenBytes.push(v.bytes.subarray(v.offsets[i], v.offsets[i + 1]));
    this.vocabulary = Vocabulary.fromData({
      tokenBytes,
      kinds: v.kinds,
      pieces: v.pieces,
      source: `llama.cpp vocabulary of ${path}`,
    });
    this.chatTemplate = native.chatTemplate;
    let notice: string | undefined;
    this.dialect = detectModelDialect(this.chatTemplate, modelName(path), {
      name: `the chat template of ${path}`,
      onNotice: (n) => {
        notice = n;
        (onNotice ?? stderrNotice)(n);
      },
    });
    this.dialectNotice = notice;
    this.bosToken = native.bosToken;
    this.eosToken = native.eosToken;
    this.threads = threads;
    this.contextSize = contextSize;
    this.parallel = parallel;
    this.exactPrompts = exactPrompts;
    native.startDecoding({ parallel, contextSize, threads, exactPrompts });
  }

  #holds = 0;
  #disposed = false;

  /**
   * Frees the weights once running and queued generations finish, including those whose prompt
   * and grammar are still being prepared; the model cannot be used afterwards.
   */
  dispose(): void {
    this.#disposed = true;
    if (this.#holds === 0) this.native.dispose();
  }

  /**
   * @internal Keeps dispose() from freeing the model until the returned release is called (a
   * generation between its start and its submission to the engine). Throws once disposed.
   */
  hold(): () => void {
    if (this.#disposed) throw new Error("the model was disposed; load it again");
    this.#holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#holds === 0 && this.#disposed) this.native.dispose();
    };
  }
}

function positiveInt(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1)
    throw new RangeError(`${what} must be a positive integer, got ${String(v)}`);
  return v;
}

export async function loadModel(options: LoadModelOptions): Promise<LlamaModel> {
  if (options === null || typeof options !== "object" || typeof options.path !== "string")
    throw new TypeError("loadModel({ path }) needs the path of a .gguf file");
  checkOptionNames("loadModel", options, LOAD_MODEL_OPTION_NAMES);
  const { path } = options;
  if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`loadModel: no model file at ${path}`);
  const cores = availableParallelism();
  const threads = options.threads === undefined ? defaultThreads() : positiveInt(options.threads, "threads");
  const parallel = options.parallel === undefined ? DEFAULT_PARALLEL : positiveInt(options.parallel, "parallel");
  if (parallel > 256) throw new RangeError(`parallel: ${parallel} is more than 256 sequences`);
  if (threads > cores)
    throw new RangeError(
      `threads: ${threads} is more than the ${cores} CPUs here; more threads than cores slows decoding down`,
    );
  const { build, fallback } = ensureLlamaLibrary(options.gpu ?? "auto");
  const offload = options.gpu !== false && loadNative().llamaSupportsGpuOffload();
  if ((options.gpu ?? "auto") === "auto" && !offload)
    noticeCpuFallback(
      fallback ??
        `llama.cpp's ${build === "cpu" ? (process.platform === "darwin" ? "Metal" : "CPU") : build} build found no GPU device`,
    );
  if ((options.gpu === "cuda" || options.gpu === "vulkan") && !offload)
    throw new Error(
      `gpu: "${options.gpu}": llama.cpp found no usable ${options.gpu} device here (use gpu: "auto" or false)`,
    );
  if (options.exactPrompts !== undefined && typeof options.exactPrompts !== "boolean")
    throw new TypeError(`exactPrompts must be true or false, got ${JSON.stringify(options.exactPrompts)}`);
  if (options.onProgress !== undefined && typeof options.onProgress !== "function")
    throw new TypeError("onProgress must be a function");
  if (options.onNotice !== undefined && typeof options.onNotice !== "function")
    throw new TypeError("onNotice must be a function");
  const native = await loadNative().llamaLoadModel(path, offload ? 999 : 0, options.onProgress ?? (() => {}));
  const trained = native.trainedContext > 0 ? native.trainedContext : 4096;
  const contextSize =
    options.contextSize === undefined ? Math.min(trained, 4096) : positiveInt(options.contextSize, "contextSize");
  const gpu = !offload ? false : build === "cpu" ? (process.platform === "darwin" ? "metal" : false) : build;
  return new LlamaModel(
    native,
    path,
    threads,
    contextSize,
    parallel,
    gpu,
    options.exactPrompts ?? true,
    options.onNotice,
  );
}

/** general.name of the GGUF llama.cpp loaded, or undefined when it cannot be read. */
function modelName(path: string): string | undefined {
  try {
    return readGgufModelName(path);
  } catch {
    return undefined;
  }
}

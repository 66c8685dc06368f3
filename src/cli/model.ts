// Opening a model for a command: the test model written when missing, load failures turned into
// what to do (model-file.ts), load progress on stderr.
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadModel, type LlamaModel } from "../engine/model.js";
import type { GpuOption } from "../engine/llama-library.js";
import { writeTestModel } from "../model/test-model.js";
import { CliError } from "./errors.js";
import { modelFileProblem, modelLoadProblem } from "./model-file.js";
import { progress } from "./progress.js";

const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where the test model lives by default: .cache/test-model/ of the package. */
export function defaultTestModelPath(seed = 1): string {
  return join(PACKAGE_ROOT, ".cache", "test-model", `qwen3-tiny-seed${seed}.gguf`);
}

/**
 * Writes the test model at `path` unless it exists; atomically, so a half-written file is never
 * loaded. Returns the seconds it took, or undefined when it was there.
 */
export function ensureTestModel(path: string, seed = 1): number | undefined {
  if (existsSync(path)) return undefined;
  const t = performance.now();
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeTestModel({ path: tmp, seed });
    renameSync(tmp, path);
  } catch (e) {
    throw new CliError(`cannot write the test model to ${path}: ${(e as Error).message}`);
  }
  return (performance.now() - t) / 1000;
}

export interface OpenOptions {
  gpu?: GpuOption;
  threads?: number;
  showProgress: boolean;
}

export async function openModel(path: string, o: OpenOptions): Promise<LlamaModel> {
  const abs = resolve(path);
  const problem = modelFileProblem(abs);
  if (problem) throw new CliError(problem);
  const bar = progress("loading model", o.showProgress);
  try {
    const model = await loadModel({
      path: abs,
      gpu: o.gpu ?? false,
      ...(o.threads !== undefined ? { threads: o.threads } : {}),
      onProgress: (f) => bar.update(f),
    });
    bar.done();
    return model;
  } catch (e) {
    const file = modelLoadProblem(abs, e);
    if (file) throw new CliError(file);
    // Not the file: the addon's errors say how to build it; the library's where it comes from.
    throw new CliError(
      `cannot load llama.cpp or the model: ${(e as Error).message}\n` +
        "(the llama.cpp library comes from node-llama-cpp's prebuilt package for this platform, or from the folder TOOLMASK_LLAMA_LIB_DIR names)",
    );
  }
}

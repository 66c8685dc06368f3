// What the decode benchmarks share: their flags (./bench-flags.mjs, re-exported), the model they
// run on (the test model, written when missing, unless --model names one), the free-text logit bias
// that keeps every run going to its token limit, and the median they report.
import { mkdirSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { arg, smallest } from "./bench-flags.mjs";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The command line, read by readFlags before any work; --smallest: every case at the least work that still runs its code path (npm test runs each bench so). */
export { arg, args, has, intArg, readFlags, smallest } from "./bench-flags.mjs";

/** --out as a path, else `dflt` (relative to the repo root); under --smallest without --out, null: nothing is written. */
export const outPath = (dflt) => {
  const given = arg("out", null);
  if (given) return path.resolve(root, given);
  return smallest ? null : path.resolve(root, dflt);
};

/** --model, or the test model (written on first use). */
export async function benchModelPath() {
  const given = arg("model", null);
  if (given) return given;
  const modelPath = path.join(root, ".cache", "test-model", "qwen3-tiny-seed1.gguf");
  try {
    statSync(modelPath);
  } catch {
    const { writeTestModel } = await import(path.join(root, "dist", "model", "test-model.js"));
    mkdirSync(path.dirname(modelPath), { recursive: true });
    // Written aside and renamed: a test or bench started meanwhile never reads half a model.
    const tmp = `${modelPath}.${process.pid}.tmp`;
    writeTestModel({ path: tmp, seed: 1 });
    renameSync(tmp, modelPath);
  }
  return modelPath;
}

/** Free text under a tool grammar, end of generation and newlines (Qwen3 ids 198, 271) forbidden: the mask runs every step and no run ends early. */
export function freeTextBias(model) {
  const bias = { 198: -100, 271: -100 };
  for (const id of model.vocabulary.endOfGenerationIds) bias[id] = -100;
  return bias;
}

/** The value at fraction `q` (0..1) of the sorted numbers (the element at floor(q·n), the last at most); null for none. */
export const quantile = (xs, q) => {
  const a = Float64Array.from(xs).sort();
  return a.length ? a[Math.min(a.length - 1, Math.floor(q * a.length))] : null;
};

export const median = (xs) => {
  const a = [...xs].sort((p, q) => p - q);
  return a[Math.floor(a.length / 2)];
};

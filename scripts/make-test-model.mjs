#!/usr/bin/env node
// Writes the random-weight Qwen3 test model (real vocabulary and chat template; ~45 MB; seconds).
//   node scripts/make-test-model.mjs [--out PATH] [--seed N]
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let args;
try {
  args = parseArgs({ options: { out: { type: "string" }, seed: { type: "string", default: "1" }, help: { type: "boolean", short: "h" } } }).values;
} catch (e) {
  console.error(`make-test-model: ${e.message}\nusage: node scripts/make-test-model.mjs [--out PATH] [--seed N]`);
  process.exit(2);
}
if (args.help) {
  console.log("usage: node scripts/make-test-model.mjs [--out PATH] [--seed N]\nWrites a tiny Qwen3-architecture GGUF with random weights and Qwen3's real vocabulary and chat template.");
  process.exit(0);
}
const seed = Number(args.seed);
if (!/^\d+$/.test(args.seed) || seed > 0xffffffff) {
  console.error(`make-test-model: --seed must be an integer in [0, 4294967295], got ${JSON.stringify(args.seed)}`);
  process.exit(2);
}
const out = resolve(args.out ?? join(root, ".cache", "test-model", `qwen3-tiny-seed${seed}.gguf`));
const { writeTestModel } = await import(join(root, "dist", "model", "test-model.js"));
mkdirSync(dirname(out), { recursive: true });
const t0 = performance.now();
const info = writeTestModel({ path: out, seed });
console.log(`wrote ${info.path} (${(info.bytes / 1e6).toFixed(1)} MB, ${info.vocabSize} tokens, seed ${seed}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

#!/usr/bin/env node
// Prompt tokenizing as the text grows: toolmask's tokenizer (native/llama/prompt_tokenizer.hpp)
// and llama.cpp's own llama_tokenize (parse_special true), on the test model's Qwen3 vocabulary
// (loaded without weights), for a flood of "<|im_start|>", a chat-shaped prompt (turns of special
// tokens around plain text) and plain text. Prints milliseconds (median of 3) and, per doubling
// of the text, the ratio of the times: about 2 for linear work, about 4 for quadratic. llama.cpp
// is timed up to --llama-max bytes (default 256 KiB; its flood of 20,000 tokens took 5.3 s in a
// server). Then the most the length bound lets through at a 4,096-token context in one piece
// (below). Writes bench/results/tokenize.json. Options: --steps N (doublings, default 4), --out FILE.
// --smallest: each shape at 1,000 and 2,000 units (one doubling), each time taken once, nothing
// written unless --out (test/test-model/bench-smallest-tokenize.test.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { arg, benchModelPath, outPath, readFlags, smallest } from "./lib/bench-setup.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
readFlags(import.meta.url, {
  command: "npm run bench:tokenize --",
  flags: {
    steps: "N (4)",
    "llama-max": "BYTES (262144)",
    model: "FILE",
    out: "FILE (bench/results/tokenize.json)",
    smallest: false,
  },
});
const opt = (name, fallback) => Number(arg(name, fallback));
const steps = opt("steps", smallest ? 2 : 4);
const base = smallest ? 1_000 : 10_000;
const llamaMax = opt("llama-max", 256 * 1024);

const { ensureLlamaLibrary } = await import(join(root, "dist", "engine", "llama-library.js"));
const { loadNative } = await import(join(root, "dist", "native.js"));
const modelPath = await benchModelPath();
ensureLlamaLibrary(false);
const native = await loadNative().llamaLoadModel(modelPath, 0, () => {}, true);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function time(run, times = smallest ? 1 : 3) {
  const ms = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await run();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

const shapes = {
  flood: (n) => "<|im_start|>".repeat(n),
  chat: (n) => "<|im_start|>user\nhello there<|im_end|>\n".repeat(n / 4),
  plain: (n) => "hello world, ".repeat(n),
};
const rows = [];
for (const [shape, make] of Object.entries(shapes)) {
  let prev;
  for (let k = 0; k < steps; k++) {
    const n = base * 2 ** k;
    const text = make(n);
    const bytes = Buffer.byteLength(text);
    const out = await native.tokenize(text, { special: true }).done;
    const ours = await time(() => native.tokenize(text, { special: true }).done);
    const llama = bytes <= llamaMax ? await time(() => native.llamaTokenize(text, true), 1) : undefined;
    if (llama !== undefined && native.llamaTokenize(text, true).join() !== out.tokens.join())
      throw new Error(`${shape} ${n}: the tokens differ from llama_tokenize's`);
    const row = {
      shape,
      bytes,
      tokens: out.tokens.length,
      oursMs: ours,
      llamaMs: llama,
      oursRatio: prev ? ours / prev.oursMs : undefined,
      llamaRatio: prev?.llamaMs !== undefined && llama !== undefined ? llama / prev.llamaMs : undefined,
      work: out.work,
    };
    rows.push(row);
    prev = row;
    const f = (x) => (x === undefined ? "-" : x.toFixed(x < 10 ? 2 : 0));
    console.log(
      `${shape.padEnd(6)} ${String(bytes).padStart(8)} B ${String(row.tokens).padStart(7)} tokens  ours ${f(ours).padStart(7)} ms (x${f(row.oursRatio)})  llama.cpp ${f(llama).padStart(7)} ms (x${f(row.llamaRatio)})`,
    );
  }
}

// The most work the length bound lets through at a 4,096-token context: one plain piece of
// 4,095 × M bytes (M the most bytes one token's text or piece holds) that llama_tokenize takes in
// one call, which cannot be stopped; a run of spaces, which one 128-space token covers in Qwen3.
const v = native.vocabulary();
let M = 1;
for (let id = 0; id < v.pieces.length; id++)
  M = Math.max(M, v.offsets[id + 1] - v.offsets[id], Buffer.byteLength(v.pieces[id]));
const worst = {};
for (const [name, unit] of [
  ["spaces", " "],
  ["letters", "abcdefghijklmnopqrstuvwxyz"],
]) {
  const text = unit.repeat(Math.ceil((4095 * M) / unit.length)).slice(0, 4095 * M);
  let out;
  const ms = await time(async () => (out = await native.tokenize(text, { special: true, maxTokens: 4095 }).done), 1);
  worst[name] = {
    bytes: text.length,
    ms,
    tooLong: out.tooLong,
    tokens: out.tokens?.length ?? null,
    atLeast: out.atLeast,
  };
  console.log(
    `worst admitted at context 4096 (M = ${M}): ${name}, ${text.length} B: ${ms.toFixed(0)} ms, ${out.tokens ? `${out.tokens.length} tokens (over the context: refused after)` : `refused, at least ${out.atLeast}`}`,
  );
}
native.dispose();
const out = outPath("bench/results/tokenize.json");
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), rows, maxTokenBytes: M, worst }, null, 2)}\n`);
  console.log(`wrote ${out}`);
}

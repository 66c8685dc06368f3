#!/usr/bin/env node
// Parallel decoding benchmark: aggregate tokens/s of 1 generation alone vs N at once on ONE model
// (N sequences of one llama_context, decoded in one batch per step), masked, same options; the
// ratio says what batching buys. Alternating rounds, medians.
// Usage: node scripts/bench/bench-parallel.mjs [--model file.gguf] [--n 4] [--tokens 150] [--reps 3] [--threads N] [--out bench/results/parallel.json]
//   --smallest: 2 at once, 16 tokens each, one round of each, nothing written unless --out
//   (test/test-model/bench-smallest-parallel.test.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { arg, benchModelPath, freeTextBias, median, outPath, readFlags, root, smallest } from "./lib/bench-setup.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:parallel --",
  flags: {
    model: "FILE",
    n: "N (4)",
    tokens: "N (150)",
    reps: "N (3)",
    threads: "N",
    out: "FILE (bench/results/parallel.json)",
    smallest: false,
  },
});

const { loadModel, generate } = await import(path.join(root, "dist", "index.js"));

const modelPath = await benchModelPath();
const N = Number(arg("n", smallest ? 2 : 4));
const TOKENS = Number(arg("tokens", smallest ? 16 : 150));
const REPS = Number(arg("reps", smallest ? 1 : 3));
const threads = arg("threads", null);
const model = await loadModel({ path: modelPath, parallel: N, ...(threads ? { threads: Number(threads) } : {}) });

// Free text under a tool grammar (the mask runs every step; nothing stops before maxTokens).
const bias = freeTextBias(model);
const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];
const options = (seed) => ({
  messages: [{ role: "user", content: "hi" }],
  tools,
  seed,
  maxTokens: TOKENS,
  temperature: 1,
  logitBias: bias,
});

async function round(n) {
  const t0 = performance.now();
  const rs = await Promise.all(Array.from({ length: n }, (_, i) => generate(model, options(i + 1))));
  const ms = performance.now() - t0;
  const tokens = rs.reduce((s, r) => s + r.usage.completion_tokens, 0);
  return { tokens, ms: +ms.toFixed(1), tokensPerSecond: +((tokens * 1000) / ms).toFixed(1) };
}

await round(1); // warm-up: the context is created on the first generation
const runs = { one: [], many: [] };
for (let i = 0; i < REPS; i++) {
  runs.one.push(await round(1));
  runs.many.push(await round(N));
}
const summary = (rs) => ({ tokensPerSecond: median(rs.map((r) => r.tokensPerSecond)), runs: rs });
const result = {
  date: new Date().toISOString(),
  model: path.basename(modelPath),
  threads: model.threads,
  cpus: os.availableParallelism(),
  loadavg: os.loadavg(),
  tokensPerGeneration: TOKENS,
  reps: REPS,
  parallel: N,
  one: summary(runs.one),
  concurrent: summary(runs.many),
};
result.ratio_concurrent_one = +(result.concurrent.tokensPerSecond / result.one.tokensPerSecond).toFixed(3);
const out = outPath("bench/results/parallel.json");
if (out) {
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
}
console.log(
  `1 generation: ${result.one.tokensPerSecond} tok/s; ${N} at once on one model: ${result.concurrent.tokensPerSecond} tok/s aggregate; ` +
    `ratio ${result.ratio_concurrent_one} (threads ${result.threads}, load ${result.loadavg.map((x) => x.toFixed(1)).join(" ")})${out ? `; written to ${path.relative(root, out)}` : ""}`,
);
model.dispose();

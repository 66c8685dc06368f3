#!/usr/bin/env node
// How the mask travels into llama.cpp's sampling graph, measured: the backend sampling path
// unmasked, with the dense input (one F32 per logit), the packed input (16 mask bits per F32,
// unpacked by graph ops) and the resident table (each state's mask uploaded once, a row index per
// step), and for reference the host path (logits copied out, the mask as a sampler on the host)
// unmasked and masked; alternating runs on the same model, median ms/token of each and the ratios.
// The native side reads the input's form per generation (TOOLMASK_BACKEND_MASK). Host work per
// token, two medians: hostMaskMicrosPerToken, the mask's own (filling and uploading the input, or
// the row index and any new row, inside llama_decode; on the host path the mask sampler's apply),
// and hostStepMicros, everything the host does per sampled token between one decode's end and the
// next batch (sampling or reading the graph's pick, accept, streaming; native stepHostMicros).
// Usage: node scripts/bench/bench-backend-mask.mjs [--model file.gguf] [--gpu auto|cuda|false] [--tokens 200]
//        [--reps 5] [--threads N] [--dialect NAME] [--out bench/results/backend-mask.json]
//   --dialect: for a model whose chat template names no tool-call dialect (SmolLM2: hermes)
//   --smallest: 16 tokens a run, one run of each kind, nothing written unless --out
//   (test/test-model/bench-smallest-backend-mask.test.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { arg, benchModelPath, freeTextBias, median, outPath, readFlags, root, smallest } from "./lib/bench-setup.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:backend-mask --",
  flags: {
    model: "FILE",
    gpu: "auto|cuda|false (auto)",
    tokens: "N (200)",
    reps: "N (5)",
    threads: "N",
    dialect: "NAME",
    out: "FILE (bench/results/backend-mask.json)",
    smallest: false,
  },
});

const { loadModel } = await import(path.join(root, "dist", "index.js"));
const { prepareGeneration, runGeneration, resultOf } = await import(path.join(root, "dist", "engine", "generate.js"));

const modelPath = await benchModelPath();
const TOKENS = Number(arg("tokens", smallest ? 16 : 200));
const REPS = Number(arg("reps", smallest ? 1 : 5));
const gpuArg = arg("gpu", "auto");
const threads = arg("threads", null);
const model = await loadModel({
  path: modelPath,
  gpu: gpuArg === "false" ? false : gpuArg,
  ...(threads ? { threads: Number(threads) } : {}),
});

// Free text under a tool grammar, end of generation forbidden: the mask runs every step, no run ends early.
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
const dialect = arg("dialect", null);
const options = {
  messages: [{ role: "user", content: "hi" }],
  tools,
  seed: 1,
  maxTokens: TOKENS,
  temperature: 1,
  logitBias: bias,
  ...(dialect ? { dialect } : {}),
};

// kind → [mask path, backend input form or null when unmasked]
const kinds = {
  unmasked: ["backend", null],
  dense: ["backend", "dense"],
  packed: ["backend", "packed"],
  resident: ["backend", "resident"],
  hostUnmasked: ["cpu", null],
  hostMasked: ["cpu", "dense"],
};
const runs = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
// generate()'s own steps, with the native step times recorded (as bench-decode-calls does).
const run = async (maskPath, representation, extra = {}) => {
  if (representation) process.env.TOOLMASK_BACKEND_MASK = representation;
  const prepared = await prepareGeneration(model, { ...options, maskPath, mask: representation !== null, ...extra });
  prepared.request.recordStepTimes = true;
  const native = await runGeneration(model, prepared, undefined, () => {});
  return { ...resultOf(native, "", undefined, prepared.prepareMillis, []), stepHostMicros: native.stepHostMicros };
};
for (const [maskPath, representation] of Object.values(kinds)) await run(maskPath, representation, { maxTokens: 8 }); // warm-up
for (let i = 0; i < REPS; i++) {
  for (const [kind, [maskPath, representation]] of Object.entries(kinds)) {
    const r = await run(maskPath, representation);
    runs[kind].push({
      msPerToken: r.timings.decodeMillis / r.usage.completion_tokens,
      maskMicros: r.timings.maskMicrosPerToken,
      stepMicros: median(Array.from(r.stepHostMicros ?? [0])),
      maskPath: r.maskPath,
      ...(r.maskTable ? { maskTable: r.maskTable } : {}),
    });
  }
}
delete process.env.TOOLMASK_BACKEND_MASK;
const summary = (rs) => {
  const ms = median(rs.map((r) => r.msPerToken));
  return {
    msPerToken: +ms.toFixed(4),
    tokensPerSecond: +(1000 / ms).toFixed(1),
    hostMaskMicrosPerToken: +median(rs.map((r) => r.maskMicros)).toFixed(1),
    hostStepMicros: +median(rs.map((r) => r.stepMicros)).toFixed(1),
    maskPaths: [...new Set(rs.map((r) => r.maskPath))],
    runs: rs,
  };
};
const result = {
  date: new Date().toISOString(),
  model: path.basename(modelPath),
  dialect: dialect ?? model.dialect ?? null,
  gpu: model.gpu,
  threads: model.threads,
  vocabularySize: model.vocabulary.size,
  cpus: os.availableParallelism(),
  loadavg: os.loadavg(),
  tokensPerRun: TOKENS,
  reps: REPS,
  unmasked: summary(runs.unmasked),
  dense: summary(runs.dense),
  packed: summary(runs.packed),
  resident: summary(runs.resident),
  hostUnmasked: summary(runs.hostUnmasked),
  hostMasked: summary(runs.hostMasked),
};
result.ratio_host_masked_unmasked = +(result.hostMasked.tokensPerSecond / result.hostUnmasked.tokensPerSecond).toFixed(
  3,
);
result.ratio_dense_unmasked = +(result.dense.tokensPerSecond / result.unmasked.tokensPerSecond).toFixed(3);
result.ratio_packed_unmasked = +(result.packed.tokensPerSecond / result.unmasked.tokensPerSecond).toFixed(3);
result.ratio_packed_dense = +(result.packed.tokensPerSecond / result.dense.tokensPerSecond).toFixed(3);
result.ratio_resident_unmasked = +(result.resident.tokensPerSecond / result.unmasked.tokensPerSecond).toFixed(3);
result.ratio_resident_dense = +(result.resident.tokensPerSecond / result.dense.tokensPerSecond).toFixed(3);
const out = outPath("bench/results/backend-mask.json");
if (out) {
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
}
console.log(
  `backend sampling on ${model.gpu || "cpu"} (${result.model}, ${TOKENS} tokens × ${REPS}): unmasked ${result.unmasked.msPerToken} ms/token; ` +
    `dense ${result.dense.msPerToken} ms/token (host ${result.dense.hostMaskMicrosPerToken} µs, ratio ${result.ratio_dense_unmasked}); ` +
    `packed ${result.packed.msPerToken} ms/token (host ${result.packed.hostMaskMicrosPerToken} µs, ratio ${result.ratio_packed_unmasked}); packed/dense ${result.ratio_packed_dense}; ` +
    `resident ${result.resident.msPerToken} ms/token (host ${result.resident.hostMaskMicrosPerToken} µs, ratio ${result.ratio_resident_unmasked}); resident/dense ${result.ratio_resident_dense}; ` +
    `host path: unmasked ${result.hostUnmasked.msPerToken} ms/token, masked ${result.hostMasked.msPerToken} ms/token (ratio ${result.ratio_host_masked_unmasked})${out ? `; written to ${path.relative(root, out)}` : ""}`,
);
model.dispose();

#!/usr/bin/env node
// Decode benchmark, first slice: the same model, unmasked vs masked (CPU sampler) vs masked
// (llama.cpp backend sampling path), same sampling options, alternating runs; median ms/token,
// tok/s and the mask's µs/token; and the peer, node-llama-cpp 3.21.1 on the same prompt tokens,
// unconstrained and under the GBNF our dialect exports (scripts/bench/bench-decode-peer.mjs).
// Usage: node scripts/bench/bench-decode.mjs [--model file.gguf] [--tokens 200] [--reps 3] [--threads N] [--out bench/results/decode.json]
//   --smallest: 16 tokens a run, one run of each kind, nothing written unless --out
//   (test/test-model/bench-smallest-decode.test.ts).
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { arg, benchModelPath, freeTextBias, median, outPath, readFlags, root, smallest } from "./lib/bench-setup.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:decode --",
  flags: {
    model: "FILE",
    tokens: "N (200)",
    reps: "N (3)",
    threads: "N",
    out: "FILE (bench/results/decode.json)",
    smallest: false,
  },
});

const { loadModel, generate } = await import(path.join(root, "dist", "index.js"));
const { prepareGeneration } = await import(path.join(root, "dist", "engine", "generate.js"));
const { buildToolGrammar, toGbnf } = await import(path.join(root, "dist", "index.js"));
const { openPeer, peerTokenBias, runPeer, closePeer } = await import("./bench-decode-peer.mjs");

const modelPath = await benchModelPath();
const TOKENS = Number(arg("tokens", smallest ? 16 : 200));
const REPS = Number(arg("reps", smallest ? 1 : 3));
const threads = arg("threads", null);
const model = await loadModel({ path: modelPath, ...(threads ? { threads: Number(threads) } : {}) });

// Free text under a tool grammar: the mask runs every step and neither run stops early.
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
const options = {
  messages: [{ role: "user", content: "hi" }],
  tools,
  seed: 1,
  maxTokens: TOKENS,
  temperature: 1,
  logitBias: bias,
};

// unmaskedBackend: the same chain attached to the context without the mask, to tell the cost of
// backend sampling itself from the mask's.
const runs = { unmasked: [], masked: [], unmaskedBackend: [], maskedBackend: [] };
const warm = await generate(model, { ...options, maxTokens: 8 }); // warm-up

// The peer: the grammar generate() masks with, as GBNF for this vocabulary; the same sampling
// values our chain uses (native defaults top-k 40, top-p 0.95, min-p 0.05; no repeat penalty).
const prepared = await prepareGeneration(model, options);
prepared.request.grammar?.dispose(); // only the prompt and the resolved request are used here
const gbnf = toGbnf(buildToolGrammar(prepared.resolved), model.vocabulary);
const peer = await openPeer({
  modelPath,
  threads: model.threads,
  contextSize: model.contextSize,
  prompt: prepared.request.prompt,
  promptTokens: warm.usage.prompt_tokens,
});
const peerGrammar = await peer.llama.createGrammar({ grammar: gbnf });
const peerOptions = {
  maxTokens: TOKENS,
  temperature: options.temperature,
  topK: 40,
  topP: 0.95,
  minP: 0.05,
  seed: options.seed,
  tokenBias: peerTokenBias(peer.model, bias),
};
const peerRuns = { peerUnconstrained: [], peerGbnf: [] };
await runPeer(peer, { ...peerOptions, maxTokens: 8, grammar: peerGrammar }); // warm-up

for (let i = 0; i < REPS; i++) {
  for (const kind of Object.keys(runs)) {
    const r = await generate(model, {
      ...options,
      mask: kind.startsWith("masked"),
      maskPath: kind.endsWith("Backend") ? "backend" : "cpu",
    });
    runs[kind].push({
      msPerToken: r.timings.decodeMillis / r.usage.completion_tokens,
      maskMicros: r.timings.maskMicrosPerToken,
      tokens: r.usage.completion_tokens,
    });
  }
  for (const kind of Object.keys(peerRuns))
    peerRuns[kind].push(
      await runPeer(peer, { ...peerOptions, ...(kind === "peerGbnf" ? { grammar: peerGrammar } : {}) }),
    );
}
const summary = (rs) => {
  const ms = median(rs.map((r) => r.msPerToken));
  return {
    msPerToken: +ms.toFixed(3),
    tokensPerSecond: +(1000 / ms).toFixed(1),
    maskMicrosPerToken: +median(rs.map((r) => r.maskMicros)).toFixed(1),
    runs: rs,
  };
};
const result = {
  date: new Date().toISOString(),
  model: path.basename(modelPath),
  threads: model.threads,
  cpus: os.availableParallelism(),
  loadavg: os.loadavg(),
  tokensPerRun: TOKENS,
  reps: REPS,
  unmasked: summary(runs.unmasked),
  masked: summary(runs.masked),
  unmaskedBackend: summary(runs.unmaskedBackend),
  maskedBackend: summary(runs.maskedBackend),
};
result.ratio_masked_unmasked = +(result.masked.tokensPerSecond / result.unmasked.tokensPerSecond).toFixed(3);
// Whole-run timings on a shared machine swing by ±15% from run to run (same tokens every time), far
// more than the mask costs; two steadier readings beside the medians: the fastest run of each kind,
// and the unmasked time plus the mask's own measured cost per token.
const fastest = (rs) => Math.min(...rs.map((r) => r.msPerToken));
result.ratio_masked_unmasked_fastest = +(fastest(runs.unmasked) / fastest(runs.masked)).toFixed(3);
result.ratio_masked_unmasked_from_mask_cost = +(
  result.unmasked.msPerToken /
  (result.unmasked.msPerToken + result.masked.maskMicrosPerToken / 1000)
).toFixed(4);
result.ratio_masked_backend_unmasked_backend = +(
  result.maskedBackend.tokensPerSecond / result.unmaskedBackend.tokensPerSecond
).toFixed(3);
const peerSummary = (rs) => {
  const ms = median(rs.map((r) => r.msPerToken));
  return { msPerToken: +ms.toFixed(3), tokensPerSecond: +(1000 / ms).toFixed(1), runs: rs };
};
result.nodeLlamaCpp = {
  version: "3.21.1",
  threads: peer.threads,
  gbnfChars: gbnf.length,
  unconstrained: peerSummary(peerRuns.peerUnconstrained),
  gbnf: peerSummary(peerRuns.peerGbnf),
};
// > 1: we are faster than node-llama-cpp under the same grammar.
result.ratio_masked_nodeLlamaCppGbnf = +(
  result.masked.tokensPerSecond / result.nodeLlamaCpp.gbnf.tokensPerSecond
).toFixed(3);
result.ratio_nodeLlamaCppGbnf_unconstrained = +(
  result.nodeLlamaCpp.gbnf.tokensPerSecond / result.nodeLlamaCpp.unconstrained.tokensPerSecond
).toFixed(3);
result.ratio_unmasked_nodeLlamaCppUnconstrained = +(
  result.unmasked.tokensPerSecond / result.nodeLlamaCpp.unconstrained.tokensPerSecond
).toFixed(3);
const out = outPath("bench/results/decode.json");
if (out) writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
console.log(
  `unmasked ${result.unmasked.msPerToken} ms/token; masked, cpu path ${result.masked.msPerToken} ms/token (mask ${result.masked.maskMicrosPerToken} µs/token, ratio ${result.ratio_masked_unmasked}, fastest runs ${result.ratio_masked_unmasked_fastest}, from the mask's cost ${result.ratio_masked_unmasked_from_mask_cost}); ` +
    `backend sampling: unmasked ${result.unmaskedBackend.msPerToken} ms/token, masked ${result.maskedBackend.msPerToken} ms/token ` +
    `(mask ${result.maskedBackend.maskMicrosPerToken} µs/token, ratio ${result.ratio_masked_backend_unmasked_backend})${out ? `; written to ${path.relative(root, out)}` : ""}`,
);
console.log(
  `node-llama-cpp ${result.nodeLlamaCpp.version}: unconstrained ${result.nodeLlamaCpp.unconstrained.msPerToken} ms/token, ` +
    `our GBNF ${result.nodeLlamaCpp.gbnf.msPerToken} ms/token (${result.nodeLlamaCpp.gbnf.tokensPerSecond} tok/s; GBNF/unconstrained ${result.ratio_nodeLlamaCppGbnf_unconstrained}); ` +
    `our masked / node-llama-cpp GBNF tok/s ${result.ratio_masked_nodeLlamaCppGbnf}, our unmasked / node-llama-cpp unconstrained ${result.ratio_unmasked_nodeLlamaCppUnconstrained}`,
);
await closePeer(peer);
model.dispose();

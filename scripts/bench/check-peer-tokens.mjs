#!/usr/bin/env node
// Checks that bench:decode's rows compare like with like: with the bench's options, our masked run,
// node-llama-cpp under our GBNF and node-llama-cpp unconstrained sample the same 200 tokens (then
// node-llama-cpp's grammar never rejected a sampled token: it only checked one token per step).
// Prints the first index where two differ (-1: identical). Usage: node scripts/bench/check-peer-tokens.mjs
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readFlags } from "./lib/bench-flags.mjs";

readFlags(import.meta.url, { command: "node scripts/bench/check-peer-tokens.mjs", flags: {} });
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { loadModel, generate, buildToolGrammar, toGbnf } = await import(path.join(root, "dist", "index.js"));
const { prepareGeneration } = await import(path.join(root, "dist", "engine", "generate.js"));
const { openPeer, peerTokenBias, closePeer } = await import(
  path.join(root, "scripts", "bench", "bench-decode-peer.mjs")
);
const modelPath = path.join(root, ".cache/test-model/qwen3-tiny-seed1.gguf");
const model = await loadModel({ path: modelPath, threads: 1 });
const bias = { 198: -100, 271: -100 };
for (const id of model.vocabulary.endOfGenerationIds) bias[id] = -100;
const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];
const opts = {
  messages: [{ role: "user", content: "hi" }],
  tools,
  seed: 1,
  maxTokens: 200,
  temperature: 1,
  logitBias: bias,
};
const ours = await generate(model, opts);
const p = await prepareGeneration(model, opts);
p.request.grammar?.dispose(); // only the prompt and the dialect options are used here
const peer = await openPeer({
  modelPath,
  threads: 1,
  contextSize: model.contextSize,
  prompt: p.request.prompt,
  promptTokens: ours.usage.prompt_tokens,
});
const grammar = await peer.llama.createGrammar({
  grammar: toGbnf(buildToolGrammar(p.resolved), model.vocabulary),
});
const o = {
  maxTokens: 200,
  temperature: 1,
  topK: 40,
  topP: 0.95,
  minP: 0.05,
  seed: 1,
  tokenBias: peerTokenBias(peer.model, bias),
};
const g = [];
await peer.completion.generateCompletion(peer.tokens, { ...o, grammar, onToken: (t) => g.push(...t) });
const u = [];
await peer.completion.generateCompletion(peer.tokens, { ...o, onToken: (t) => u.push(...t) });
const firstDiff = (a, b) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
};
console.log({
  gbnfVsUnconstrained: firstDiff(g, u),
  oursMaskedVsPeerGbnf: firstDiff(ours.tokens, g),
  lens: [g.length, u.length, ours.tokens.length],
  oursText: JSON.stringify(ours.text.slice(0, 80)),
});
await closePeer(peer);
model.dispose();

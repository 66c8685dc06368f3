// The peer for bench-decode.mjs: node-llama-cpp decoding the same prompt tokens on the same model,
// unconstrained and under the GBNF our dialect exports (toGbnf), through its own sampler chain
// (LlamaCompletion). Timed like our rows: sampling + decode per token, prompt evaluation excluded
// (from the first sampled token to the last, over n - 1 steps).
import { getLlama, LlamaCompletion, TokenBias } from "node-llama-cpp";

/**
 * Opens node-llama-cpp on `modelPath` with the same threads and context size as our model.
 * `prompt` is the text our generate() renders; `promptTokens` the count our run reports, to check
 * both sides decode the same tokens.
 */
export async function openPeer({ modelPath, threads, contextSize, prompt, promptTokens }) {
  const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
  const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
  const context = await model.createContext({ contextSize, threads: { ideal: threads, min: threads }, sequences: 1 });
  const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
  // Our native side tokenizes with add_special false, parse_special true: the same here.
  const tokens = model.tokenize(prompt, true);
  if (tokens.length !== promptTokens)
    throw new Error(`node-llama-cpp tokenizes the prompt into ${tokens.length} tokens, our run into ${promptTokens}: the rows would not be comparable`);
  return { llama, model, context, completion, tokens, threads: context.currentThreads };
}

/**
 * node-llama-cpp's TokenBias drops end-of-generation ids ("never" has no effect on them), but our
 * rows push them to -100 so no run stops early; its addon takes the same map, so the ids go in
 * directly. Fails loudly if the private field moves in another release.
 */
export function peerTokenBias(model, bias) {
  const tb = new TokenBias(model.tokenizer);
  if (!(tb._biases instanceof Map)) throw new Error("node-llama-cpp's TokenBias no longer keeps _biases: update bench-decode-peer.mjs");
  for (const [id, logit] of Object.entries(bias)) tb._biases.set(Number(id), logit);
  return tb;
}

/** One generation; `grammar` is a LlamaGrammar or undefined (unconstrained). */
export async function runPeer(peer, { grammar, maxTokens, temperature, topK, topP, minP, seed, tokenBias }) {
  const times = [];
  const res = await peer.completion.generateCompletionWithMeta(peer.tokens, {
    maxTokens, temperature, topK, topP, minP, seed, tokenBias,
    ...(grammar ? { grammar } : {}),
    onToken: (ids) => { const t = performance.now(); for (let i = 0; i < ids.length; i++) times.push(t); },
  });
  const n = times.length;
  return { msPerToken: n > 1 ? (times[n - 1] - times[0]) / (n - 1) : NaN, tokens: n, stopReason: res.metadata.stopReason };
}

export async function closePeer(peer) {
  await peer.context.dispose();
  await peer.model.dispose();
  await peer.llama.dispose();
}

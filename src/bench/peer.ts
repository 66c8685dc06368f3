// The peer: node-llama-cpp decoding the same prompt tokens on the same model, unconstrained or
// under the GBNF our dialect exports (toGbnf), through its own sampler chain (LlamaCompletion).
// Timed like our rows: sampling + decode per token, prompt evaluation excluded (from the first
// sampled token to the last, over n - 1 steps).
import {
  getLlama,
  LlamaCompletion,
  TokenBias,
  type Llama,
  type LlamaContext,
  type LlamaGrammar,
  type LlamaModel as PeerModel,
  type Token,
} from "node-llama-cpp";

export interface Peer {
  llama: Llama;
  model: PeerModel;
  context: LlamaContext;
  completion: LlamaCompletion;
  threads: number;
}

/** node-llama-cpp on `modelPath` with the same threads and context size as our model (CPU only). */
export async function openPeer({
  modelPath,
  threads,
  contextSize,
}: {
  modelPath: string;
  threads: number;
  contextSize: number;
}): Promise<Peer> {
  const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" as never });
  const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
  const context = await model.createContext({ contextSize, threads: { ideal: threads, min: threads }, sequences: 1 });
  const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
  return { llama, model, context, completion, threads: context.currentThreads };
}

/**
 * The prompt as node-llama-cpp tokenizes it (add_special false, parse_special true, as our native
 * side does); `promptTokens` is our run's count, to check both sides decode the same tokens.
 */
export function peerPrompt(peer: Peer, prompt: string, promptTokens: number): Token[] {
  const tokens = peer.model.tokenize(prompt, true);
  if (tokens.length !== promptTokens)
    throw new Error(
      `node-llama-cpp tokenizes the prompt into ${tokens.length} tokens, our run into ${promptTokens}: the rows would not be comparable`,
    );
  return tokens;
}

/**
 * node-llama-cpp's TokenBias drops end-of-generation ids ("never" has no effect on them), but our
 * rows may bias them; its addon takes the same map, so the ids go in directly. Fails loudly if the
 * private field moves in another release.
 */
export function peerTokenBias(model: PeerModel, bias: Record<number, number>): TokenBias {
  const tb = new TokenBias(model.tokenizer);
  const biases = (tb as unknown as { _biases?: unknown })._biases;
  if (!(biases instanceof Map))
    throw new Error("node-llama-cpp's TokenBias no longer keeps _biases: update src/bench/peer.ts");
  for (const [id, logit] of Object.entries(bias)) biases.set(Number(id), logit);
  return tb;
}

export interface PeerRunOptions {
  grammar?: LlamaGrammar;
  maxTokens: number;
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  seed: number;
  tokenBias?: TokenBias;
}

export interface PeerRun {
  msPerToken: number;
  tokens: number;
  stopReason: string;
  text: string;
  tokenIds: number[];
}

/** One generation from `tokens`; without a grammar it is unconstrained. */
export async function runPeer(peer: Peer, tokens: Token[], o: PeerRunOptions): Promise<PeerRun> {
  const times: number[] = [];
  const ids: number[] = [];
  const res = await peer.completion.generateCompletionWithMeta(tokens, {
    maxTokens: o.maxTokens,
    temperature: o.temperature,
    topK: o.topK,
    topP: o.topP,
    minP: o.minP,
    seed: o.seed,
    ...(o.tokenBias ? { tokenBias: o.tokenBias } : {}),
    ...(o.grammar ? { grammar: o.grammar } : {}),
    onToken: (t) => {
      const now = performance.now();
      for (const id of t) {
        times.push(now);
        ids.push(id);
      }
    },
  });
  const n = times.length;
  return {
    msPerToken: n > 1 ? (times[n - 1]! - times[0]!) / (n - 1) : NaN,
    tokens: n,
    stopReason: String(res.metadata.stopReason),
    text: res.response,
    tokenIds: ids,
  };
}

export async function closePeer(peer: Peer): Promise<void> {
  await peer.context.dispose();
  await peer.model.dispose();
  await peer.llama.dispose();
}

// The peer for bench-decode.mjs and check-peer-tokens.mjs, on src/bench/peer.ts (built into
// dist/, shared with `toolmask bench`): node-llama-cpp decoding the same prompt tokens on the same
// model, unconstrained and under the GBNF our dialect exports.
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const peer = await import(path.join(root, "dist", "bench", "peer.js"));

/** `prompt` is the text our generate() renders; `promptTokens` the count our run reports. */
export async function openPeer({ modelPath, threads, contextSize, prompt, promptTokens }) {
  const p = await peer.openPeer({ modelPath, threads, contextSize });
  return { ...p, tokens: peer.peerPrompt(p, prompt, promptTokens) };
}

export const peerTokenBias = peer.peerTokenBias;

/** One generation; `grammar` is a LlamaGrammar or undefined (unconstrained). */
export async function runPeer(p, options) {
  const { msPerToken, tokens, stopReason } = await peer.runPeer(p, p.tokens, options);
  return { msPerToken, tokens, stopReason };
}

export const closePeer = peer.closePeer;

// The native mask engines of bench:mask and of the export checks in npm test, run under the venv of
// `npm run pyenv`: src/bench/native-peers.ts (built into dist/) starts them; this file says which
// requirement group installs each and finds its Python.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pythonWith, pyenvHint } from "./pyenv.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { openNativePeer } = await import(path.join(ROOT, "dist/bench/native-peers.js"));

/** Each engine (src/bench/native-peers.ts MASK_ENGINE_NAMES) and the requirement group that installs it. */
export const PEERS = {
  llguidance: { group: "peers" },
  xgrammar: { group: "xgrammar" },
  "outlines-core": { group: "peers" },
  glrmask: { group: "glrmask" },
};

/** The venv python when `name`'s group is installed, else undefined (see pyenvHint). */
export const peerPython = (name) => pythonWith([PEERS[name].group]);
export const peerHint = (name) => pyenvHint([PEERS[name].group]);

/**
 * Starts `name` on `tokenizerJson` (stop ids: the end-of-generation tokens it may end on).
 * Resolves to a peer { name, version, vocabSize, tokenizerMs, request(op), close() } or rejects
 * with why it could not start (package missing: the pyenv hint).
 */
export async function openPeer(name, tokenizerJson, stopIds = []) {
  if (!PEERS[name]) throw new Error(`no mask peer ${name}; the peers are ${Object.keys(PEERS).join(", ")}`);
  const python = peerPython(name);
  if (!python) throw new Error(`${name} is not installed: ${peerHint(name)}`);
  return openNativePeer(python, name, tokenizerJson, stopIds);
}

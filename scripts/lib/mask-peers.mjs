// The native mask engines (llguidance, XGrammar, outlines-core) as child processes: each runs
// python/peers/mask_peer.py in the venv of `npm run pyenv` and answers one JSON line per request.
// Used by bench:mask (timings, masks) and by the export checks in npm test (walk acceptance).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pythonWith, pyenvHint } from "./pyenv.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SERVER = path.join(ROOT, "python/peers/mask_peer.py");

/** Each engine, the requirement group that installs it, and what it reads. */
export const PEERS = {
  llguidance: { group: "peers", grammar: "lark" },
  xgrammar: { group: "xgrammar", grammar: "ebnf" },
  "outlines-core": { group: "peers", grammar: "regex or json_schema" },
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
  const child = spawn(python, [SERVER, name, tokenizerJson, stopIds.join(",")], {
    cwd: path.dirname(SERVER), stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  let exited = null;
  lines.on("line", (line) => {
    const w = waiting.shift();
    if (!w) return;
    let msg;
    try { msg = JSON.parse(line); } catch { w.reject(new Error(`${name}: not JSON: ${line.slice(0, 200)}`)); return; }
    if (msg.error) w.reject(new Error(`${name}: ${msg.error}`)); else w.resolve(msg);
  });
  child.on("exit", (code, signal) => {
    exited = `${name} exited (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}`;
    for (const w of waiting.splice(0)) w.reject(new Error(exited));
  });
  child.on("error", (e) => { exited = `${name}: ${e.message}`; for (const w of waiting.splice(0)) w.reject(e); });
  const next = () => new Promise((resolve, reject) => (exited ? reject(new Error(exited)) : waiting.push({ resolve, reject })));
  const hello = await next().catch((e) => { child.kill(); throw e; });
  return {
    name,
    version: hello.version,
    vocabSize: hello.vocab_size,
    tokenizerMs: hello.tokenizer_ms,
    importMs: hello.import_ms,
    request(req) {
      const p = next();
      child.stdin.write(JSON.stringify(req) + "\n");
      return p;
    },
    close() {
      child.stdin.end();
      return new Promise((resolve) => (exited ? resolve() : child.once("exit", () => resolve())));
    },
  };
}

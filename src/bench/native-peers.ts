// The native mask engines (llguidance, XGrammar, outlines-core) as child processes: each runs
// python/peers/mask_peer.py under a Python that has the engine installed and answers one JSON line
// per request. `toolmask bench --peers` and bench:mask (scripts/lib/mask-peers.mjs) time them.
// The engine reads a Hugging Face tokenizer.json, or the vocabulary file writeVocabularyFile makes
// from a model's own token bytes (a GGUF has no tokenizer.json).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { TokenKind } from "../vocab/types.js";
import type { Vocabulary } from "../vocab/vocabulary.js";

/** The engines: llguidance reads Lark, XGrammar EBNF, outlines-core a regex or a JSON schema. */
export const NATIVE_PEER_NAMES = ["llguidance", "xgrammar", "outlines-core"] as const;
export type NativePeerName = (typeof NATIVE_PEER_NAMES)[number];
/**
 * Every engine the adapter runs: the native peers, and GLRMask, which bench:structured gives JSON
 * schemas (its own compiler) and no other bench times yet.
 */
export const MASK_ENGINE_NAMES = [...NATIVE_PEER_NAMES, "glrmask"] as const;

/** python/peers/mask_peer.py of this package (dist/bench/ → the package root). */
export const PEER_ADAPTER = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "python",
  "peers",
  "mask_peer.py",
);

export interface NativePeer {
  name: string;
  version: string;
  vocabSize: number;
  tokenizerMs: number;
  importMs: number;
  request(req: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
  /** Ends the engine's process now, in the middle of a request too (a compile past a bench's limit). */
  kill(): void;
}

/**
 * Writes `vocab` as the token-bytes vocabulary file the adapter reads: every token's bytes in
 * hex, and the tokens that are not text (control, end of generation, unused), which the engines
 * match only as themselves.
 */
export function writeVocabularyFile(vocab: Vocabulary, file: string): void {
  const tokens: string[] = [],
    special: number[] = [];
  for (let id = 0; id < vocab.size; id++) {
    tokens.push(Buffer.from(vocab.tokenBytes(id)).toString("hex"));
    if (vocab.kind(id) !== TokenKind.Normal) special.push(id);
  }
  writeFileSync(file, JSON.stringify({ toolmask_vocabulary: 1, tokens, special }));
}

/**
 * Starts engine `name` under `python` on `vocabulary` (a tokenizer.json or a vocabulary file);
 * `stopIds`: the end-of-generation tokens a grammar may end on. Rejects with why it could not
 * start (the engine not installed in that Python, the Python missing).
 */
export async function openNativePeer(
  python: string,
  name: string,
  vocabulary: string,
  stopIds: readonly number[] = [],
): Promise<NativePeer> {
  if (!(MASK_ENGINE_NAMES as readonly string[]).includes(name))
    throw new Error(`no mask peer ${JSON.stringify(name)}; the peers are ${MASK_ENGINE_NAMES.join(", ")}`);
  // The adapter runs in its own folder: a Python given as a path is the caller's, resolved here; a
  // bare name is looked up on PATH.
  const exe = python.includes("/") || python.includes("\\") ? resolve(python) : python;
  const child = spawn(exe, [PEER_ADAPTER, name, resolve(vocabulary), stopIds.join(",")], {
    cwd: dirname(PEER_ADAPTER),
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr = (stderr + String(d)).slice(-4000);
  });
  const lines = createInterface({ input: child.stdout });
  const waiting: Array<{ resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }> = [];
  let exited: string | null = null;
  lines.on("line", (line) => {
    const w = waiting.shift();
    if (!w) return;
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      w.reject(new Error(`${name}: not JSON: ${line.slice(0, 200)}`));
      return;
    }
    if (typeof msg.error === "string") w.reject(new Error(`${name}: ${msg.error}`));
    else w.resolve(msg);
  });
  child.on("exit", (code, signal) => {
    exited = `${name} exited (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}`;
    for (const w of waiting.splice(0)) w.reject(new Error(exited));
  });
  child.on("error", (e) => {
    exited = `${name}: cannot run ${exe}: ${e.message}`;
    for (const w of waiting.splice(0)) w.reject(new Error(exited));
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) =>
      exited ? reject(new Error(exited)) : waiting.push({ resolve, reject }),
    );
  const hello = await next().catch((e: Error) => {
    child.kill();
    throw e;
  });
  return {
    name,
    version: String(hello.version),
    vocabSize: Number(hello.vocab_size),
    tokenizerMs: Number(hello.tokenizer_ms),
    importMs: Number(hello.import_ms),
    request(req) {
      const p = next();
      child.stdin.write(JSON.stringify(req) + "\n");
      return p;
    },
    kill() {
      child.kill("SIGKILL");
    },
    close() {
      child.stdin.end();
      return new Promise((resolve) => (exited ? resolve() : child.once("exit", () => resolve())));
    },
  };
}

// llama.cpp's GBNF sampler (node-llama-cpp's prebuilt libllama) over Qwen3's vocabulary, as a
// test oracle: one long-lived process (scripts/oracles/llama-grammar/grammar.cpp) answers in order.
// The scripts are plain ESM without declarations: imported by URL and typed here.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

const BUILD_URL: string = new URL("../../scripts/oracles/llama-grammar/build.mjs", import.meta.url).href;
const VOCAB_URL: string = new URL("../../scripts/oracles/llama-grammar/qwen3-vocab.mjs", import.meta.url).href;

export interface LlamaVocabDump {
  eog: boolean[];
  pieces: Buffer[];
}

export interface LlamaGrammarOracle {
  /** Parses `gbnf` with llama.cpp's grammar parser; throws with its message if it refuses. */
  load(gbnf: string): Promise<void>;
  /** The tokens llama.cpp's sampler allows now (same layout as our bitmask). */
  mask(): Promise<Uint32Array>;
  /** Which of `ids` llama.cpp's sampler allows now (a full mask costs ~30-100 ms on Qwen3; this, ~1 ms). */
  check(ids: number[]): Promise<Set<number>>;
  /** Advances if allowed; false (and no change) otherwise. */
  accept(id: number): Promise<boolean>;
  reset(): Promise<void>;
  /** Every token's piece (llama_token_to_piece, special = true) and whether it ends generation. */
  vocab(): Promise<LlamaVocabDump>;
  close(): void;
}

/** Builds the program if needed (~2 s), writes the Qwen3 vocab GGUF if needed, starts one process. */
export async function startLlamaGrammar(): Promise<LlamaGrammarOracle> {
  const { buildLlamaGrammar } = (await import(BUILD_URL)) as { buildLlamaGrammar(): Promise<string> };
  const { qwen3VocabPath } = (await import(VOCAB_URL)) as { qwen3VocabPath(): Promise<string> };
  const [binary, gguf] = await Promise.all([buildLlamaGrammar(), qwen3VocabPath()]);
  const dir = mkdtempSync(path.join(tmpdir(), "llama-grammar-"));
  const child = spawn(binary, [gguf], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d: string) => {
    stderr = (stderr + d).slice(-8000);
  });
  const waiting: Array<{ resolve(line: string): void; reject(e: Error): void }> = [];
  let dead: Error | undefined;
  const die = (e: Error) => {
    dead ??= e;
    for (const w of waiting.splice(0)) w.reject(dead);
  };
  child.on("error", (e) => die(new Error(`llama-grammar: ${e.message}`)));
  child.on("exit", (code, signal) =>
    die(new Error(`llama-grammar exited (code ${code}, signal ${signal}); stderr:\n${stderr}`)),
  );
  child.stdin.on("error", (e) => die(new Error(`llama-grammar stdin: ${e.message}`)));
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => waiting.shift()?.resolve(line));

  const ask = (request: string): Promise<string> => {
    if (dead) return Promise.reject(dead);
    return new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.stdin.write(`${request}\n`);
    });
  };
  const ok = async (request: string, what: string) => {
    const r = await ask(request);
    if (r !== "ok") throw new Error(`llama-grammar: ${what} failed: ${r}; stderr:\n${stderr}`);
  };
  let grammars = 0;
  return {
    async load(gbnf) {
      const file = path.join(dir, `g${grammars++}.gbnf`);
      writeFileSync(file, gbnf);
      stderr = "";
      await ok(`grammar ${file}`, "llama_sampler_init_grammar");
    },
    async mask() {
      const r = await ask("mask");
      if (!r.startsWith("mask ")) throw new Error(`llama-grammar: mask failed: ${r}`);
      const hex = r.slice(5);
      const out = new Uint32Array(hex.length / 8);
      for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 8, i * 8 + 8), 16);
      return out;
    },
    async check(ids) {
      const r = await ask(`check ${ids.join(" ")}`);
      if (!r.startsWith("check")) throw new Error(`llama-grammar: check failed: ${r}`);
      return new Set(r.slice(5).trim().split(" ").filter(Boolean).map(Number));
    },
    async accept(id) {
      const r = await ask(`accept ${id}`);
      if (r !== "0" && r !== "1") throw new Error(`llama-grammar: accept failed: ${r}`);
      return r === "1";
    },
    async reset() {
      await ok("reset", "reset");
    },
    async vocab() {
      const file = path.join(dir, "vocab.bin");
      await ok(`vocab ${file}`, "vocab dump");
      const b = readFileSync(file);
      const eog: boolean[] = [],
        pieces: Buffer[] = [];
      for (let at = 0; at < b.length; ) {
        eog.push(b[at] === 1);
        const len = b.readUInt32LE(at + 1);
        pieces.push(b.subarray(at + 5, at + 5 + len));
        at += 5 + len;
      }
      return { eog, pieces };
    },
    close() {
      die(new Error("llama-grammar: closed"));
      child.stdin.end();
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

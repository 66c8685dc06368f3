// llama.cpp's own chat parser (common_chat_parse, from node-llama-cpp's prebuilt libllama-common)
// as a test oracle: one long-lived process (scripts/oracles/llama-oracle/oracle.cpp) answers JSON-lines
// requests in order, so a test can parse thousands of model outputs the way llama-server would.
//
// Loading: scripts/oracles/llama-oracle/build.mjs is plain ESM without type declarations; it is imported by
// URL (a non-literal specifier, so TypeScript needs no declaration file) and typed here.
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const BUILD_URL: string = new URL("../../scripts/oracles/llama-oracle/build.mjs", import.meta.url).href;

/** An OpenAI tool: `{ type: "function", function: { name, description?, parameters } }`. */
export interface OracleTool {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown };
}

export interface OracleRequest {
  /** Path of a chat template (.jinja); see `templatePath`. */
  template: string;
  tools?: OracleTool[];
  /** The model's output, after the generation prompt. */
  text: string;
  /** Parse as a stream would mid-generation (llama-server: while tokens still arrive). Default false. */
  is_partial?: boolean;
  /** llama-server's `--reasoning-format`; default "deepseek", as there. */
  reasoning_format?: "auto" | "none" | "deepseek" | "deepseek-legacy";
  /** Default true. */
  parallel_tool_calls?: boolean;
  /** Default a single user message. */
  messages?: unknown[];
  tool_choice?: "auto" | "required" | "none";
  enable_thinking?: boolean;
  bos_token?: string;
  eos_token?: string;
}

export interface OracleToolCall {
  name: string;
  /** As llama.cpp returns it: a JSON text, not necessarily complete or valid. */
  arguments: string;
  id: string;
}

export interface OracleOk {
  ok: true;
  /** common_chat_format_name() of the format the template selected, e.g. "peg-native". */
  format: string;
  /** Prefix llama.cpp prepends to `text` before parsing (the end of the rendered prompt). */
  generation_prompt: string;
  content: string;
  reasoning_content: string;
  tool_calls: OracleToolCall[];
}

export interface OracleError {
  ok: false;
  /** Where it failed: "request" (bad input), "template", "apply" (rendering/analysis), "parse". */
  stage: string;
  /** The exception's message, e.g. "The model produced output that does not match the expected peg-native format". */
  error: string;
}

export type OracleResult = OracleOk | OracleError;

export interface LlamaOracle {
  parse(req: OracleRequest): Promise<OracleResult>;
  close(): void;
}

/** Absolute path of a template in the bundled llama.cpp source, e.g. `templatePath("Qwen3-Coder.jinja")`. */
export function templatePath(name: string): string {
  // Same folder as scripts/build/llama-source.mjs; startLlamaOracle() makes sure it exists.
  const src = path.resolve(process.env.TOOLMASK_LLAMA_CPP_DIR || path.join(repoRoot, ".cache", "llama.cpp"));
  return path.join(src, "models", "templates", name);
}

interface Pending {
  id: number;
  resolve(r: OracleResult): void;
  reject(e: Error): void;
}

/** Builds the oracle if needed (~15 s the first time, then instant) and starts one process. */
export async function startLlamaOracle(): Promise<LlamaOracle> {
  const { buildLlamaOracle } = (await import(BUILD_URL)) as {
    buildLlamaOracle(options?: { force?: boolean; log?: (line: string) => void }): Promise<string>;
  };
  const binary = await buildLlamaOracle();

  const child = spawn(binary, [], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
  const pending: Pending[] = [];
  let nextId = 0;
  let dead: Error | undefined;
  // llama.cpp's warnings ("unparsed … output") are kept for error reports, not printed, unless asked.
  let stderrTail = "";
  const echoStderr = !!process.env.TOOLMASK_ORACLE_STDERR;
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d: string) => {
    if (echoStderr) process.stderr.write(d);
    stderrTail = (stderrTail + d).slice(-4000);
  });

  const failAll = (err: Error): void => {
    dead ??= err;
    for (const p of pending.splice(0)) p.reject(dead);
  };
  child.on("error", (err) => failAll(new Error(`llama-oracle: ${err.message}`)));
  child.on("exit", (code, signal) =>
    failAll(
      new Error(`llama-oracle exited (code ${code}, signal ${signal})${stderrTail ? `; stderr:\n${stderrTail}` : ""}`),
    ),
  );
  // Writes to a process that died would otherwise surface as an unhandled EPIPE.
  child.stdin.on("error", (err) => failAll(new Error(`llama-oracle stdin: ${err.message}`)));

  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  lines.on("line", (line) => {
    const p = pending.shift();
    if (!p) {
      failAll(new Error(`llama-oracle: unexpected output line: ${line}`));
      return;
    }
    let msg: OracleResult & { id?: unknown };
    try {
      msg = JSON.parse(line) as OracleResult & { id?: unknown };
    } catch {
      p.reject(new Error(`llama-oracle: not JSON: ${line}`));
      return;
    }
    // Responses come in request order; the echoed id proves it (a line that is not valid JSON to
    // the oracle, e.g. with a lone surrogate, gets an error reply without one).
    if (msg.id !== undefined && msg.id !== p.id) {
      failAll(new Error(`llama-oracle: response id ${String(msg.id)} for request ${p.id}`));
      p.reject(dead ?? new Error("llama-oracle: out of order"));
      return;
    }
    delete msg.id;
    p.resolve(msg);
  });

  return {
    parse(req: OracleRequest): Promise<OracleResult> {
      if (dead) return Promise.reject(dead);
      const id = nextId++;
      return new Promise<OracleResult>((resolve, reject) => {
        pending.push({ id, resolve, reject });
        // JSON.stringify escapes newlines, so a request is always one line.
        child.stdin.write(`${JSON.stringify({ ...req, id })}\n`);
      });
    },
    close(): void {
      failAll(new Error("llama-oracle: closed"));
      child.stdin.end();
      child.kill();
    },
  };
}

// Why a model file did not load, in a line that says what to do: missing, a folder, not a GGUF at
// all, a GGUF whose header is cut short, or a whole header that llama.cpp still refused (tensor
// data cut off, an architecture it does not know). llama.cpp's own report is five lines of log
// naming its internal functions; this reads the file itself to tell these apart.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { readGgufMetadata } from "../vocab/gguf.js";

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** The first bytes as text, other bytes as "." ("hell" for a text file, "\x00..." shown "."). */
function firstBytes(path: string, n: number): string {
  const fd = openSync(path, "r");
  try {
    const b = Buffer.alloc(n);
    const got = readSync(fd, b, 0, n, 0);
    return b
      .subarray(0, got)
      .toString("latin1")
      .replace(/[^\x20-\x7e]/g, ".");
  } finally {
    closeSync(fd);
  }
}

/**
 * What is wrong with `path` that can be seen without reading past its first bytes (missing, a
 * folder, empty, not starting with "GGUF"), or undefined. Cheap: run it before loading.
 */
export function modelFileProblem(path: string): string | undefined {
  let st;
  try {
    st = statSync(path);
  } catch {
    return `no model file at ${path}; pass --model the path of a .gguf file`;
  }
  if (st.isDirectory()) return `${path} is a folder, not a model file; pass --model the .gguf file inside it`;
  if (!st.isFile()) return `${path} is not a regular file; pass --model a .gguf file`;
  if (st.size === 0) return `${path} is not a GGUF model file (it is empty); pass --model a .gguf file`;
  const magic = firstBytes(path, 4);
  if (magic !== "GGUF")
    return `${path} is not a GGUF model file (it starts with ${JSON.stringify(magic)}, a GGUF file with "GGUF"); pass --model a .gguf file, llama.cpp's format`;
  return undefined;
}

/** llama.cpp's reason in its load log: the line after "error loading model:", or the first line. */
function llamaReason(message: string): string {
  const lines = message
    .split("\n")
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("(is it"));
  const line = lines.find((l) => l.includes("error loading model")) ?? lines[0] ?? "";
  return (
    line.replace(/^.*error loading model(?: architecture)?:\s*/, "").replace(/^\w+:\s*/, "") || "it gave no reason"
  );
}

/**
 * One line for a model that failed to load because of its file, saying what to do; undefined when
 * the file reads as a whole GGUF header and llama.cpp did not refuse it (the error is elsewhere:
 * the llama.cpp library, the addon, a port).
 */
export function modelLoadProblem(path: string, err: unknown): string | undefined {
  const early = modelFileProblem(path);
  if (early) return early;
  const size = statSync(path).size;
  let architecture: unknown;
  try {
    architecture = readGgufMetadata(path).get("general.architecture");
  } catch (e) {
    const reason = (e as Error).message.replace(`${path}: `, "");
    return /truncated|unexpected end/.test(reason)
      ? `${path} is truncated or damaged (${mb(size)}): its GGUF header ends early (${reason}); download or copy the model again`
      : `${path} is damaged or not a GGUF file llama.cpp can read (${mb(size)}): ${reason}; download or copy the model again`;
  }
  const message = err instanceof Error ? err.message : String(err);
  // The addon's wording for a model llama.cpp refused (native/llama/model.cpp).
  if (!message.startsWith("llama.cpp could not load the model ")) return undefined;
  const what = typeof architecture === "string" ? `a ${architecture} GGUF` : "a GGUF";
  const known = typeof architecture === "string" ? `the ${architecture} architecture` : "its architecture";
  return (
    `llama.cpp could not load ${path} (${what} of ${mb(size)}): ${llamaReason(message)}. ` +
    `If the file is incomplete, download or copy the model again; if this llama.cpp does not know ${known}, update node-llama-cpp`
  );
}

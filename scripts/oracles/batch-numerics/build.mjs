#!/usr/bin/env node
// Builds the batch-numerics probes against node-llama-cpp's prebuilt libllama, into
// <repo>/.cache/batch-numerics/: probe.cpp (is batched decoding bit-identical to solo decoding?)
// and prefix-probe.cpp (are a prompt's logits the same when part of it comes from the prompt
// cache?) and chunk-probe.cpp (several sequences' prompt chunks in one llama_decode or one each:
// time and logits). Prints the paths. Run: .cache/batch-numerics/probe <model.gguf> <bins dir>
// [steps] [chunk], .cache/batch-numerics/prefix-probe <model.gguf> <bins dir> [steps] [threads],
// .cache/batch-numerics/chunk-probe <model.gguf> <bins dir> [prefix] [chunk] [runs].
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildLlamaProgram, runAsScript } from "../../lib/build-llama-program.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const program = (binary) => ({
  name: "batch-numerics",
  sourceFile: path.join(here, `${binary}.cpp`),
  binary,
  includeDirs: ["include", path.join("ggml", "include")],
  headers: [path.join("include", "llama.h")],
  localHeaders: [path.join(here, "probe-common.hpp")],
  libs: ["llama", "ggml", "ggml-base"],
  optimize: "-O1",
});

export const buildProbe = (options = {}) => buildLlamaProgram(program("probe"), options);
export const buildPrefixProbe = (options = {}) => buildLlamaProgram(program("prefix-probe"), options);
export const buildChunkProbe = (options = {}) => buildLlamaProgram(program("chunk-probe"), options);

runAsScript(
  import.meta.url,
  async (options) =>
    `${await buildProbe(options)}\n${await buildPrefixProbe(options)}\n${await buildChunkProbe(options)}`,
);

#!/usr/bin/env node
// Builds probe.cpp (is batched decoding bit-identical to solo decoding?) against node-llama-cpp's
// prebuilt libllama, into <repo>/.cache/batch-numerics/probe. Run: node scripts/oracles/batch-numerics/run.mjs
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildLlamaProgram, runAsScript } from "../../lib/build-llama-program.mjs";

const program = {
  name: "batch-numerics",
  sourceFile: path.join(path.dirname(fileURLToPath(import.meta.url)), "probe.cpp"),
  binary: "probe",
  includeDirs: ["include", path.join("ggml", "include")],
  headers: [path.join("include", "llama.h")],
  libs: ["llama", "ggml", "ggml-base"],
  optimize: "-O1",
};

export const buildProbe = (options = {}) => buildLlamaProgram(program, options);

runAsScript(import.meta.url, buildProbe);

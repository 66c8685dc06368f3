#!/usr/bin/env node
// Builds scripts/oracles/llama-grammar/grammar.cpp into <repo>/.cache/llama-grammar/grammar: llama.cpp's
// GBNF sampler over a vocab-only GGUF as a line-protocol program (see grammar.cpp), linked against
// node-llama-cpp's prebuilt libllama, so this is the grammar engine node-llama-cpp and llama-server
// run. When it rebuilds and how parallel builds are kept apart: scripts/lib/build-llama-program.mjs.
//
//   node scripts/oracles/llama-grammar/build.mjs          build if needed, print the binary's path
//   node scripts/oracles/llama-grammar/build.mjs --force  always rebuild

import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildLlamaProgram, programPath, runAsScript } from "../../lib/build-llama-program.mjs";

const program = {
  name: "llama-grammar",
  sourceFile: path.join(path.dirname(fileURLToPath(import.meta.url)), "grammar.cpp"),
  binary: "grammar",
  includeDirs: ["include", path.join("ggml", "include")],
  headers: [path.join("include", "llama.h")],
  libs: ["llama", "ggml", "ggml-base"],
  optimize: "-O2",
};

export const grammarBinary = programPath(program);

/**
 * Builds the program if needed.
 * @param {{ force?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<string>} absolute path of the program
 */
export const buildLlamaGrammar = (options = {}) => buildLlamaProgram(program, options);

runAsScript(import.meta.url, buildLlamaGrammar);

#!/usr/bin/env node
// Builds scripts/oracles/llama-oracle/oracle.cpp into <repo>/.cache/llama-oracle/oracle: llama.cpp's own
// chat parser as a JSON-lines program (see oracle.cpp), linked against node-llama-cpp's prebuilt
// libllama-common, so the oracle runs exactly the parser node-llama-cpp loads. When it rebuilds and
// how parallel builds are kept apart: scripts/lib/build-llama-program.mjs.
//
//   node scripts/oracles/llama-oracle/build.mjs          build if needed, print the binary's path
//   node scripts/oracles/llama-oracle/build.mjs --force  always rebuild

import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildLlamaProgram,
  prebuiltLibDir as libDir,
  programPath,
  runAsScript,
} from "../../lib/build-llama-program.mjs";

const program = {
  name: "llama-oracle",
  sourceFile: path.join(path.dirname(fileURLToPath(import.meta.url)), "oracle.cpp"),
  binary: "oracle",
  includeDirs: ["common", "include", path.join("ggml", "include"), "vendor"],
  headers: [path.join("common", "chat.h")],
  libs: ["llama-common", "llama", "ggml", "ggml-base"],
  optimize: "-O1",
};

export const oracleBinary = programPath(program);

/** The folder holding node-llama-cpp's prebuilt CPU libraries for this platform. */
export const prebuiltLibDir = () => libDir(program.name);

/**
 * Builds the oracle if needed.
 * @param {{ force?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<string>} absolute path of the oracle binary
 */
export const buildLlamaOracle = (options = {}) => buildLlamaProgram(program, options);

runAsScript(import.meta.url, buildLlamaOracle);

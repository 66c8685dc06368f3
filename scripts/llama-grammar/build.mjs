#!/usr/bin/env node
// Builds scripts/llama-grammar/grammar.cpp into <repo>/.cache/llama-grammar/grammar: llama.cpp's
// GBNF sampler over a vocab-only GGUF as a line-protocol program (see grammar.cpp). Headers come
// from the llama.cpp source node-llama-cpp bundles, the code from its prebuilt libllama, so this
// is the grammar engine node-llama-cpp and llama-server run. Nothing is downloaded.
//
// Rebuilds when the binary is missing or older than its source or the libraries. Parallel builds
// each write a temp file and rename it into place, so a reader never sees half a binary.
//
//   node scripts/llama-grammar/build.mjs   build if needed, print the binary's path

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { llamaSourceDir } from "../llama-source.mjs";
import { prebuiltLibDir } from "../llama-oracle/build.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..", "..");
const sourceFile = path.join(here, "grammar.cpp");
const outDir = path.join(repoRoot, ".cache", "llama-grammar");
export const grammarBinary = path.join(outDir, "grammar");

function libs(dir) {
  const files = readdirSync(dir);
  return [/^libllama(\.v[\d.]+)?\.so$/, /^libggml(\.v[\d.]+)?\.so$/, /^libggml-base(\.v[\d.]+)?\.so$/].map((re) => {
    const hit = files.filter((f) => re.test(f)).sort()[0];
    if (!hit) throw new Error(`llama-grammar: no library matching ${re} in ${dir} (found: ${files.join(", ")})`);
    return hit;
  });
}

/** @returns {Promise<string>} absolute path of the program */
export async function buildLlamaGrammar() {
  const srcDir = await llamaSourceDir();
  const libDir = prebuiltLibDir();
  const names = libs(libDir);
  const inputs = [sourceFile, path.join(srcDir, "include", "llama.h"), ...names.map((l) => path.join(libDir, l))];
  if (existsSync(grammarBinary) && inputs.every((f) => statSync(grammarBinary).mtimeMs >= statSync(f).mtimeMs)) return grammarBinary;

  mkdirSync(outDir, { recursive: true });
  const tmp = `${grammarBinary}.tmp-${process.pid}-${Date.now()}`;
  const args = [
    "-std=c++17", "-O2",
    `-I${path.join(srcDir, "include")}`, `-I${path.join(srcDir, "ggml", "include")}`,
    sourceFile, "-o", tmp,
    `-L${libDir}`, ...names.map((l) => `-l:${l}`),
    // Relative to the binary, so the repository can move ($ORIGIN is not a path.join component).
    `-Wl,-rpath,$ORIGIN/${path.relative(outDir, libDir)}`,
  ];
  const cxx = process.env.CXX || "g++";
  try {
    const r = spawnSync(cxx, args, { cwd: repoRoot, encoding: "utf8" });
    if (r.error) throw new Error(`llama-grammar: cannot run ${cxx} (${r.error.message}); a C++17 compiler is needed`);
    if (r.status !== 0) throw new Error(`llama-grammar: ${cxx} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
    renameSync(tmp, grammarBinary);
  } finally {
    rmSync(tmp, { force: true });
  }
  return grammarBinary;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildLlamaGrammar().then((bin) => console.log(bin), (err) => { console.error(err instanceof Error ? err.message : err); process.exit(1); });
}

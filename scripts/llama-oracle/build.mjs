#!/usr/bin/env node
// Builds scripts/llama-oracle/oracle.cpp into <repo>/.cache/llama-oracle/oracle: llama.cpp's own
// chat parser as a JSON-lines program (see oracle.cpp). Headers come from the llama.cpp source that
// node-llama-cpp ships as a git bundle; the code comes from node-llama-cpp's prebuilt shared
// libraries, so the oracle runs exactly the parser node-llama-cpp loads. Nothing is downloaded.
//
// Rebuilds only when the binary is missing, older than oracle.cpp, or was built by a different
// command (other libraries, other source folder). Safe when several test files race: a lock folder
// lets one compile (to a temp file, renamed into place) while the others wait for its result.
//
//   node scripts/llama-oracle/build.mjs          build if needed, print the binary's path
//   node scripts/llama-oracle/build.mjs --force  always rebuild

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { llamaSourceDir } from "../llama-source.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..", "..");
const sourceFile = path.join(here, "oracle.cpp");
const outDir = path.join(repoRoot, ".cache", "llama-oracle");
export const oracleBinary = path.join(outDir, "oracle");
// The exact command of the last successful build: a change in it (libraries, headers folder,
// compiler flags) forces a rebuild even when the binary is newer than the source.
const stampFile = path.join(outDir, "oracle.cmd");

function fail(message) {
  throw new Error(`llama-oracle: ${message}`);
}

/** The folder holding node-llama-cpp's prebuilt CPU libraries for this platform. */
export function prebuiltLibDir() {
  if (process.platform !== "linux") {
    fail(`only Linux is supported (the prebuilt libraries are linked as .so files); this is ${process.platform}`);
  }
  const plat = `${process.platform}-${process.arch}`;
  const dir = path.join(repoRoot, "node_modules", "@node-llama-cpp", plat, "bins", plat);
  if (!existsSync(dir)) {
    fail(
      `prebuilt llama.cpp libraries not found at ${dir}\n` +
        `(they come with the npm package @node-llama-cpp/${plat}, an optional dependency of node-llama-cpp; run npm install)`,
    );
  }
  return dir;
}

/** Picks the libraries to link by pattern, since their names carry node-llama-cpp's version. */
function findLibs(dir) {
  const files = readdirSync(dir);
  const pick = (what, re) => {
    const hits = files.filter((f) => re.test(f)).sort();
    if (hits.length === 0) fail(`no ${what} in ${dir} (found: ${files.join(", ")})`);
    return hits[0];
  };
  return [
    pick("libllama-common.so", /^libllama-common\.so$/),
    // libllama.v0.4.0.so here; the CUDA/Vulkan builds (libllama.cuda.*) live in other packages.
    pick("libllama.so", /^libllama(\.v[\d.]+)?\.so$/),
    pick("libggml.so", /^libggml(\.v[\d.]+)?\.so$/),
    pick("libggml-base.so", /^libggml-base(\.v[\d.]+)?\.so$/),
  ];
}

function compileArgs(srcDir, libDir, libs, outFile) {
  const includes = ["common", "include", path.join("ggml", "include"), "vendor"].map((d) => {
    const p = path.join(srcDir, d);
    if (!existsSync(p)) fail(`llama.cpp headers missing: ${p} (is ${srcDir} a complete checkout?)`);
    return `-I${p}`;
  });
  if (!existsSync(path.join(srcDir, "common", "chat.h"))) fail(`${srcDir}/common/chat.h not found`);
  // rpath relative to the binary, so the repository can move; the libraries' own RUNPATH ($ORIGIN)
  // then finds libggml-cpu-*.so and each other.
  // (String concatenation: path.join would fold "$ORIGIN/.." away.)
  const rpath = `$ORIGIN/${path.relative(outDir, libDir)}`;
  return [
    "-std=c++17",
    "-O1",
    ...includes,
    sourceFile,
    "-o",
    outFile,
    `-L${libDir}`,
    ...libs.map((l) => `-l:${l}`),
    `-Wl,-rpath,${rpath}`,
  ];
}

function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) =>
      reject(new Error(`llama-oracle: cannot run ${cmd} (${err.message}); a C++17 compiler (g++ >= 9) is needed`)),
    );
    child.on("close", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`llama-oracle: ${cmd} failed (exit ${code}):\n${output}`)),
    );
  });
}

/**
 * Builds the oracle if needed.
 * @param {{ force?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<string>} absolute path of the oracle binary
 */
export async function buildLlamaOracle(options = {}) {
  const log = options.log ?? (() => {});
  const cxx = process.env.CXX || "g++";
  const srcDir = await llamaSourceDir();
  const libDir = prebuiltLibDir();
  const libs = findLibs(libDir);
  const tmpFile = `${oracleBinary}.tmp-${process.pid}-${Date.now()}`;
  const args = compileArgs(srcDir, libDir, libs, tmpFile);
  // The stamp leaves out the temp name, which changes every time.
  const stamp = [cxx, ...compileArgs(srcDir, libDir, libs, oracleBinary)].join("\n");

  // Newer libraries or headers (an updated node-llama-cpp) mean a rebuild, so the two never disagree.
  const inputs = [sourceFile, path.join(srcDir, "common", "chat.h"), ...libs.map((l) => path.join(libDir, l))];
  const upToDate = () =>
    existsSync(oracleBinary) &&
    inputs.every((f) => statSync(oracleBinary).mtimeMs >= statSync(f).mtimeMs) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8") === stamp;
  if (!options.force && upToDate()) return oracleBinary;

  mkdirSync(outDir, { recursive: true });
  // One compiler at a time (test files start in parallel on 2 cores); the others wait, then find
  // the binary up to date.
  await acquireLock();
  try {
    if (!options.force && upToDate()) return oracleBinary;
    log(`llama-oracle: building ${path.relative(repoRoot, oracleBinary)} …`);
    const started = Date.now();
    try {
      await run(cxx, args);
      renameSync(tmpFile, oracleBinary);
    } finally {
      rmSync(tmpFile, { force: true });
    }
    writeFileSync(stampFile, stamp);
    log(`llama-oracle: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return oracleBinary;
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

const lockDir = path.join(outDir, "build.lock");
const lockOwner = path.join(lockDir, "pid");
// Longer than any build; a lock this old was left behind.
const STALE_LOCK_MS = 5 * 60_000;

function lockIsStale() {
  try {
    if (Date.now() - statSync(lockDir).mtimeMs > STALE_LOCK_MS) return true;
    const pid = Number(readFileSync(lockOwner, "utf8"));
    if (!pid) return false; // just created, owner not written yet
    try {
      process.kill(pid, 0); // signal 0: only asks whether the process exists
      return false;
    } catch (err) {
      return !!err && typeof err === "object" && "code" in err && err.code === "ESRCH"; // an interrupted build
    }
  } catch {
    return false; // released meanwhile, or owner file not there yet
  }
}

async function acquireLock() {
  for (;;) {
    try {
      mkdirSync(lockDir); // atomic: exactly one process succeeds
      writeFileSync(lockOwner, String(process.pid));
      return;
    } catch (err) {
      if (!err || typeof err !== "object" || !("code" in err) || err.code !== "EEXIST") throw err;
    }
    if (lockIsStale()) rmSync(lockDir, { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 250));
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildLlamaOracle({ force: process.argv.includes("--force"), log: (l) => console.error(l) }).then(
    (bin) => console.log(bin),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}

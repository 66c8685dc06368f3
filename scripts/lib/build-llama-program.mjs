// Builds one small C++ program against node-llama-cpp's prebuilt shared libraries, with headers
// from the llama.cpp source node-llama-cpp bundles (scripts/build/llama-source.mjs). Nothing is downloaded.
//
// Rebuilds only when the binary is missing, older than one of its inputs (source, headers,
// libraries), or was built by a different command (a stamp next to the binary records it). Safe
// when several test files race: a lock folder lets one compile (to a temp file, renamed into place)
// while the others wait for its result.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { llamaSourceDir } from "../build/llama-source.mjs";
import { withLock } from "./build-lock.mjs";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The folder holding node-llama-cpp's prebuilt CPU libraries for this platform. */
export function prebuiltLibDir(name = "llama-program") {
  if (process.platform !== "linux") {
    throw new Error(
      `${name}: only Linux is supported (the prebuilt libraries are linked as .so files); this is ${process.platform}`,
    );
  }
  const plat = `${process.platform}-${process.arch}`;
  const dir = path.join(repoRoot, "node_modules", "@node-llama-cpp", plat, "bins", plat);
  if (!existsSync(dir)) {
    throw new Error(
      `${name}: prebuilt llama.cpp libraries not found at ${dir}\n` +
        `(they come with the npm package @node-llama-cpp/${plat}, an optional dependency of node-llama-cpp; run npm install)`,
    );
  }
  return dir;
}

/**
 * The libraries by bare name ("llama", "ggml", "llama-common"): matched by pattern, since their
 * file names carry node-llama-cpp's version (libllama.v0.4.0.so); the CUDA/Vulkan builds
 * (libllama.cuda.*) live in other packages.
 */
function findLibs(name, dir, wanted) {
  const files = readdirSync(dir);
  return wanted.map((lib) => {
    const re = new RegExp(`^lib${lib.replace(/\./g, "\\.")}(\\.v[\\d.]+)?\\.so$`);
    const hit = files.filter((f) => re.test(f)).sort()[0];
    if (!hit) throw new Error(`${name}: no lib${lib}.so in ${dir} (found: ${files.join(", ")})`);
    return hit;
  });
}

function run(name, cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (err) =>
      reject(new Error(`${name}: cannot run ${cmd} (${err.message}); a C++17 compiler (g++ >= 9) is needed`)),
    );
    child.on("close", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${name}: ${cmd} failed (exit ${code}):\n${output}`)),
    );
  });
}

/**
 * @typedef {object} LlamaProgram
 * @property {string} name         used in messages and as the folder under .cache/
 * @property {string} sourceFile   the .cpp file
 * @property {string} binary       file name of the program inside .cache/<name>/
 * @property {string[]} includeDirs folders of the llama.cpp source to put on the include path
 * @property {string[]} headers    headers (relative to the source) that must exist; also rebuild inputs
 * @property {string[]} [localHeaders] headers of this repository the program includes (absolute paths); rebuild inputs
 * @property {string[]} libs       libraries to link by bare name, e.g. ["llama", "ggml", "ggml-base"]
 * @property {string} optimize     e.g. "-O2"
 */

/** Where `buildLlamaProgram` puts the program. */
export function programPath(/** @type {Pick<LlamaProgram, "name" | "binary">} */ p) {
  return path.join(repoRoot, ".cache", p.name, p.binary);
}

/**
 * Builds the program if needed.
 * @param {LlamaProgram} p
 * @param {{ force?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<string>} absolute path of the program
 */
export async function buildLlamaProgram(p, options = {}) {
  const log = options.log ?? (() => {});
  const cxx = process.env.CXX || "g++";
  const outDir = path.join(repoRoot, ".cache", p.name);
  const binary = programPath(p);
  // The exact command of the last successful build: a change in it (libraries, headers folder,
  // compiler flags) forces a rebuild even when the binary is newer than the source.
  const stampFile = `${binary}.cmd`;
  const srcDir = await llamaSourceDir();
  const libDir = prebuiltLibDir(p.name);
  const libs = findLibs(p.name, libDir, p.libs);
  const includes = p.includeDirs.map((d) => {
    const dir = path.join(srcDir, d);
    if (!existsSync(dir))
      throw new Error(`${p.name}: llama.cpp headers missing: ${dir} (is ${srcDir} a complete checkout?)`);
    return `-I${dir}`;
  });
  const headers = p.headers.map((h) => {
    const file = path.join(srcDir, h);
    if (!existsSync(file)) throw new Error(`${p.name}: ${file} not found (is ${srcDir} a complete checkout?)`);
    return file;
  });
  // rpath relative to the binary, so the repository can move; the libraries' own RUNPATH ($ORIGIN)
  // then finds libggml-cpu-*.so and each other. (String concatenation: path.join would fold
  // "$ORIGIN/.." away.)
  const compileArgs = (outFile) => [
    "-std=c++17",
    p.optimize,
    ...includes,
    p.sourceFile,
    "-o",
    outFile,
    `-L${libDir}`,
    ...libs.map((l) => `-l:${l}`),
    `-Wl,-rpath,$ORIGIN/${path.relative(outDir, libDir)}`,
  ];
  // The stamp leaves out the temp name, which changes every time.
  const stamp = [cxx, ...compileArgs(binary)].join("\n");

  // Newer libraries or headers (an updated node-llama-cpp) mean a rebuild, so the two never disagree.
  const inputs = [p.sourceFile, ...(p.localHeaders ?? []), ...headers, ...libs.map((l) => path.join(libDir, l))];
  const upToDate = () =>
    existsSync(binary) &&
    inputs.every((f) => statSync(binary).mtimeMs >= statSync(f).mtimeMs) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8") === stamp;
  if (!options.force && upToDate()) return binary;

  mkdirSync(outDir, { recursive: true });
  const lockDir = path.join(outDir, "build.lock");
  // One compiler at a time (test files start in parallel); the others wait, then find the binary
  // up to date.
  return withLock(lockDir, async () => {
    if (!options.force && upToDate()) return binary;
    log(`${p.name}: building ${path.relative(repoRoot, binary)} …`);
    const started = Date.now();
    const tmpFile = `${binary}.tmp-${process.pid}-${Date.now()}`;
    try {
      await run(p.name, cxx, compileArgs(tmpFile));
      renameSync(tmpFile, binary);
    } finally {
      rmSync(tmpFile, { force: true });
    }
    writeFileSync(stampFile, stamp);
    log(`${p.name}: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return binary;
  });
}

/** For a build script's `node <script> [--force]`: build, print the path, exit 1 with the message on failure. */
export function runAsScript(importMetaUrl, build) {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(importMetaUrl)) return;
  build({ force: process.argv.includes("--force"), log: (/** @type {string} */ l) => console.error(l) }).then(
    (/** @type {string} */ bin) => console.log(bin),
    (/** @type {unknown} */ err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}

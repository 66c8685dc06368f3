#!/usr/bin/env node
// Builds llama.cpp's own HTTP server, `llama-server`, from the llama.cpp source that node-llama-cpp
// bundles (scripts/build/llama-source.mjs: a local clone in <repo>/.cache/llama.cpp), into
// <repo>/.cache/llama-server/llama-server, so tests can compare toolmask with the server llama.cpp
// itself ships. Nothing is downloaded: the web UI is left out (an empty asset table), so no
// Hugging Face fetch and no npm build.
//
// Two ways to build it (--strategy=, or options.strategy):
//   prebuilt (default)  compiles only what node-llama-cpp's prebuilt libraries lack: tools/server,
//                       tools/mtmd, vendor/hash and the (empty) UI table, and links them against
//                       node-llama-cpp's libllama, libllama-common and libggml* in
//                       node_modules/@node-llama-cpp/<platform>/bins/<platform> (rpath relative to
//                       the binary, like scripts/lib/build-llama-program.mjs), so the server runs the
//                       same llama.cpp binaries node-llama-cpp loads. cpp-httplib comes from
//                       libllama-common, which carries the whole library (built without OpenSSL, as
//                       is everything here).
//   cmake               llama.cpp's own CMake build of the target llama-server alone (static
//                       libraries, -march=native): compiles all of ggml, libllama and common too.
// Measured on a 2-core machine (g++ 12.2), cold, with
//   time node scripts/oracles/llama-server/build.mjs --force
// prebuilt, -O1 (the server's own code; inference runs in the prebuilt libraries): 200 s
// (68 units). At -O2 it had compiled 7 of 68 units after about 5 minutes. The cmake strategy was not timed.
// An up-to-date binary costs nothing (one `git rev-parse` and a stamp read).
//
// Rebuilds only when the binary is missing or its stamp (<binary>.stamp: strategy, llama.cpp
// commit, compiler, flags, the prebuilt libraries' names and sizes, for cmake the CPU's flags)
// differs. Safe when several processes race: a lock folder (owner pid, heartbeat) lets one build
// while the others wait and then find the binary up to date; the binary is written to a temp name
// and renamed into place.
//
//   node scripts/oracles/llama-server/build.mjs                    build if needed, print the path
//   node scripts/oracles/llama-server/build.mjs --force            always rebuild
//   node scripts/oracles/llama-server/build.mjs --strategy=cmake   the full CMake build
//
// Run it like: llama-server -m model.gguf --port 18123 -c 2048 -np 2 --no-webui

import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { llamaSourceDir } from "../../build/llama-source.mjs";
import { withLock } from "../../lib/build-lock.mjs";
import { prebuiltLibDir, repoRoot, runAsScript } from "../../lib/build-llama-program.mjs";

const NAME = "llama-server";
export const llamaServerDir = path.join(repoRoot, ".cache", NAME);
/** Where the built server lies. */
export const llamaServerBinary = path.join(llamaServerDir, NAME);
const buildRoot = path.join(llamaServerDir, "build");
export const STRATEGIES = ["prebuilt", "cmake"];
export const DEFAULT_STRATEGY = "prebuilt";

const OPTIMIZE = ["-O1", "-DNDEBUG"];

/** Runs a command; rejects with its output on failure. onLine sees each output line as it comes. */
function run(cmd, args, { cwd = repoRoot, onLine, what } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let pending = "";
    const take = (/** @type {Buffer} */ d) => {
      const s = d.toString();
      output += s;
      if (output.length > 4_000_000) output = output.slice(-2_000_000);
      if (!onLine) return;
      pending += s;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const l of lines) onLine(l);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", (err) =>
      reject(new Error(`${NAME}: cannot run ${cmd} (${err.message})${what ? `; ${what}` : ""}`)),
    );
    child.on("close", (code) => {
      if (code === 0) resolve(output);
      else
        reject(
          new Error(`${NAME}: ${cmd} ${args.slice(0, 3).join(" ")} … failed (exit ${code}):\n${output.slice(-20_000)}`),
        );
    });
  });
}

function tryExec(cmd, args, cwd) {
  try {
    return execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

const COMPILER_HINT = "a C++17 compiler is needed (g++ >= 9 or clang++ >= 10; set CXX/CC to choose one)";

function compilerVersion(cmd) {
  const v = tryExec(cmd, ["--version"]);
  if (!v) throw new Error(`${NAME}: cannot run ${cmd}; ${COMPILER_HINT}`);
  return v.split("\n")[0];
}

function sourceCommit(srcDir) {
  const head = tryExec("git", ["rev-parse", "HEAD"], srcDir);
  if (head) return head;
  // No git: the header's mtime stands in for the commit.
  return `no-git:${statSync(path.join(srcDir, "include", "llama.h")).mtimeMs}`;
}

/** A short log that does not flood stderr: every line at most every `everyMs`, plus the last one. */
function throttled(log, everyMs = 15_000) {
  let last = 0;
  return (/** @type {string} */ line) => {
    const now = Date.now();
    if (now - last >= everyMs) {
      last = now;
      log(line);
    }
  };
}

// --- strategy "prebuilt" -------------------------------------------------------------------------

/** node-llama-cpp's libraries by bare name (their file names carry its version: libllama.v0.4.0.so). */
function findLibs(libDir, wanted) {
  const files = readdirSync(libDir);
  return wanted.map((lib) => {
    const re = new RegExp(`^lib${lib.replace(/[.]/g, "\\.")}(\\.v[\\d.]+)?\\.so$`);
    const hit = files.filter((f) => re.test(f)).sort()[0];
    if (!hit) throw new Error(`${NAME}: no lib${lib}.so in ${libDir} (found: ${files.join(", ")}); run npm install`);
    return hit;
  });
}

/** Runs `jobs` at most `parallel` at a time; the first failure stops new starts and rejects. */
async function runPool(jobs, parallel) {
  let next = 0;
  let failed = null;
  const worker = async () => {
    while (!failed && next < jobs.length) {
      const job = jobs[next++];
      try {
        await job();
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, jobs.length)) }, worker));
  if (failed) throw failed;
}

function prebuiltPlan(srcDir) {
  const libDir = prebuiltLibDir(NAME);
  const libs = findLibs(libDir, ["llama-common", "llama", "ggml", "ggml-base"]);
  const cxx = process.env.CXX || "g++";
  const cc = process.env.CC || "gcc";
  const s = (/** @type {string} */ p) => path.join(srcDir, p);
  const server = readdirSync(s("tools/server"))
    .filter((f) => f.endsWith(".cpp"))
    .sort()
    .map((f) => `tools/server/${f}`);
  // tools/mtmd/CMakeLists.txt's source list (the CLI tools and debug/ left out).
  const mtmdCmake = readFileSync(s("tools/mtmd/CMakeLists.txt"), "utf8");
  const mtmdList = mtmdCmake.match(/add_library\(mtmd\s([\s\S]*?)\)/);
  if (!mtmdList) throw new Error(`${NAME}: cannot read the mtmd source list in ${s("tools/mtmd/CMakeLists.txt")}`);
  const mtmd = mtmdList[1]
    .split(/\s+/)
    .filter((f) => f.endsWith(".cpp"))
    .map((f) => `tools/mtmd/${f}`);
  const uiDir = path.join(buildRoot, "prebuilt", "ui");
  const inc = (/** @type {string[]} */ dirs) => dirs.map((d) => `-I${path.isAbsolute(d) ? d : s(d)}`);
  const baseInc = inc(["include", "ggml/include", "common", "vendor"]);
  const cxxFlags = ["-std=c++17", ...OPTIMIZE, "-pthread"];
  // What each target gets in llama.cpp's CMake: llama-common's PUBLIC LLAMA_SUBPROCESS (on by
  // default off mobile/WASM, and node-llama-cpp's libllama-common has it: it exports
  // subprocess_create) reaches the server; mtmd gets MTMD_VIDEO, which needs it.
  const units = [
    ...server.map((f) => ({
      src: f,
      cmd: cxx,
      flags: [...cxxFlags, "-DLLAMA_SUBPROCESS", ...inc(["tools/server", "tools/mtmd", ".", uiDir]), ...baseInc],
    })),
    ...mtmd.map((f) => ({
      src: f,
      cmd: cxx,
      flags: [...cxxFlags, "-DMTMD_VIDEO", "-Wno-cast-qual", ...inc(["tools/mtmd"]), ...baseInc],
    })),
    { src: "vendor/hash/hash.cpp", cmd: cxx, flags: [...cxxFlags, ...inc(["vendor", "vendor/hash"])] },
    // sha1 is compiled as C++ (it lives in a namespace), as vendor/hash/CMakeLists.txt does.
    { src: "vendor/hash/sha1/sha1.c", cmd: cxx, flags: ["-x", "c++", ...cxxFlags, "-w", ...inc(["vendor/hash"])] },
    { src: "vendor/hash/sha256/sha256.c", cmd: cc, flags: [...OPTIMIZE, "-w", ...inc(["vendor/hash"])] },
    { src: "vendor/hash/xxhash/xxhash.c", cmd: cc, flags: [...OPTIMIZE, "-w", ...inc(["vendor/hash"])] },
    { src: path.join(uiDir, "ui.cpp"), cmd: cxx, flags: [...cxxFlags, ...inc([uiDir])], generated: true },
  ];
  const rpath = `$ORIGIN/${path.relative(llamaServerDir, libDir)}`;
  const linkFlags = [`-L${libDir}`, ...libs.map((l) => `-l:${l}`), `-Wl,-rpath,${rpath}`, "-pthread"];
  const libSig = libs.map((l) => `${l}:${statSync(path.join(libDir, l)).size}`);
  return { cxx, cc, units, uiDir, linkFlags, libSig, libDir };
}

async function buildPrebuilt(srcDir, plan, { log, jobs }) {
  const objDir = path.join(buildRoot, "prebuilt", "obj");
  mkdirSync(objDir, { recursive: true });
  mkdirSync(plan.uiDir, { recursive: true });

  // The UI table: llama.cpp's own generator, run without an asset folder (an empty table).
  const embed = path.join(plan.uiDir, "llama-ui-embed");
  await run(plan.cxx, ["-std=c++17", "-O1", path.join(srcDir, "tools/ui/embed.cpp"), "-o", embed], {
    what: COMPILER_HINT,
  });
  await run(embed, [path.join(plan.uiDir, "ui.cpp"), path.join(plan.uiDir, "ui.h")]);

  // An object is reused when a previous (interrupted) build with this same stamp left it: the
  // source checkout is one fixed commit, and a stamp change wipes objDir.
  let done = 0;
  const progress = throttled(log);
  const objects = [];
  const compileJobs = plan.units.map((u) => {
    const srcFile = path.isAbsolute(u.src) ? u.src : path.join(srcDir, u.src);
    const obj = path.join(
      objDir,
      `${(path.isAbsolute(u.src) ? path.basename(u.src) : u.src).replace(/[/\\]/g, "__")}.o`,
    );
    objects.push(obj);
    return async () => {
      if (!u.generated && existsSync(obj)) {
        done++;
        return;
      }
      const tmp = `${obj}.tmp-${process.pid}`;
      await run(u.cmd, [...u.flags, "-c", srcFile, "-o", tmp], { what: COMPILER_HINT });
      renameSync(tmp, obj);
      done++;
      progress(`${NAME}: [${done}/${plan.units.length}] compiled ${path.basename(u.src)}`);
    };
  });
  await runPool(compileJobs, jobs);
  log(`${NAME}: linking against ${path.relative(repoRoot, plan.libDir)}`);
  const tmpBin = `${llamaServerBinary}.tmp-${process.pid}-${Date.now()}`;
  try {
    await run(plan.cxx, [...objects, "-o", tmpBin, ...plan.linkFlags], { what: COMPILER_HINT });
    renameSync(tmpBin, llamaServerBinary);
  } finally {
    rmSync(tmpBin, { force: true });
  }
}

// --- strategy "cmake" ----------------------------------------------------------------------------

const CMAKE_HINT =
  "the cmake strategy needs cmake >= 3.18 (llama.cpp's scripts/ui-assets.cmake asks for it) and a C++17 " +
  "compiler, e.g. apt-get install cmake ninja-build g++; or use --strategy=prebuilt";

function cmakePlan() {
  const version = tryExec("cmake", ["--version"]);
  if (!version) throw new Error(`${NAME}: cmake not found; ${CMAKE_HINT}`);
  const m = version.match(/cmake version (\d+)\.(\d+)/);
  if (!m || Number(m[1]) < 3 || (Number(m[1]) === 3 && Number(m[2]) < 18)) {
    throw new Error(`${NAME}: ${version.split("\n")[0]} is too old; ${CMAKE_HINT}`);
  }
  const ninja = tryExec("ninja", ["--version"]);
  const options = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DGGML_NATIVE=ON", // the binary stays in this machine's .cache; the stamp holds the CPU's flags
    "-DLLAMA_BUILD_COMMON=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF", // no npm build of the web UI
    "-DLLAMA_USE_PREBUILT_UI=OFF", // and no download of it from Hugging Face: an empty asset table
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_LLGUIDANCE=OFF",
  ];
  if (process.env.CXX) options.push(`-DCMAKE_CXX_COMPILER=${process.env.CXX}`);
  if (process.env.CC) options.push(`-DCMAKE_C_COMPILER=${process.env.CC}`);
  const cpuFlags = (() => {
    try {
      return (readFileSync("/proc/cpuinfo", "utf8").match(/^flags\s*:(.*)$/m)?.[1] ?? "").trim();
    } catch {
      return "";
    }
  })();
  return {
    cmake: version.split("\n")[0],
    generator: ninja ? ["-G", "Ninja"] : [],
    options,
    cpuFlags,
  };
}

async function buildCmake(srcDir, plan, { log, jobs }) {
  const dir = path.join(buildRoot, "cmake");
  mkdirSync(dir, { recursive: true });
  log(`${NAME}: cmake configure in ${path.relative(repoRoot, dir)}`);
  await run("cmake", ["-S", srcDir, "-B", dir, ...plan.generator, ...plan.options], { what: CMAKE_HINT });
  const progress = throttled(log);
  await run("cmake", ["--build", dir, "--target", NAME, "-j", String(jobs)], {
    what: CMAKE_HINT,
    onLine: (l) => {
      const m = l.match(/^\[\s*(\d+)\s*\/\s*(\d+)\]|^\[\s*(\d+)%\]/);
      if (m) progress(`${NAME}: ${l.slice(0, 160)}`);
    },
  });
  const built = path.join(dir, "bin", NAME);
  if (!existsSync(built)) throw new Error(`${NAME}: cmake finished but ${built} is missing`);
  const tmpBin = `${llamaServerBinary}.tmp-${process.pid}-${Date.now()}`;
  writeFileSync(tmpBin, readFileSync(built), { mode: 0o755 });
  renameSync(tmpBin, llamaServerBinary);
}

// --- entry ---------------------------------------------------------------------------------------

/**
 * Builds llama-server if needed.
 * @param {{ force?: boolean, log?: (line: string) => void, strategy?: "prebuilt" | "cmake", jobs?: number }} [options]
 * @returns {Promise<string>} absolute path of the binary
 */
/**
 * node-llama-cpp's libggml loads its CPU backend (one libggml-cpu-<arch>.so per CPU family) at run
 * time from the executable's folder: each is linked (relative symlink) beside the binary, or
 * llama-server finds no backend and cannot load a model.
 */
function linkCpuBackends() {
  const libDir = prebuiltLibDir(NAME);
  for (const f of readdirSync(libDir).filter(
    (n) => /^libggml-[a-z0-9]+(-[a-z0-9]+)*\.so$/.test(n) && !/^libggml-base/.test(n),
  )) {
    const link = path.join(llamaServerDir, f);
    const target = path.relative(llamaServerDir, path.join(libDir, f));
    try {
      if (readlinkSync(link) === target) continue;
      rmSync(link, { force: true });
    } catch {}
    symlinkSync(target, link);
  }
}

export async function buildLlamaServer(options = {}) {
  const log = options.log ?? (() => {});
  const strategy = options.strategy ?? process.env.TOOLMASK_LLAMA_SERVER_STRATEGY ?? DEFAULT_STRATEGY;
  if (!STRATEGIES.includes(strategy)) {
    throw new Error(`${NAME}: unknown strategy "${strategy}" (one of: ${STRATEGIES.join(", ")})`);
  }
  if (process.platform !== "linux") {
    throw new Error(`${NAME}: only Linux is supported here (this is ${process.platform})`);
  }
  const jobs = options.jobs ?? os.availableParallelism?.() ?? os.cpus().length;
  const srcDir = await llamaSourceDir();
  if (!existsSync(path.join(srcDir, "tools", "server", "server.cpp"))) {
    throw new Error(`${NAME}: ${srcDir} has no tools/server/server.cpp (is it a complete llama.cpp checkout?)`);
  }
  const commit = sourceCommit(srcDir);
  const done = () => {
    if (strategy === "prebuilt") linkCpuBackends();
    return llamaServerBinary;
  };

  const stampFile = `${llamaServerBinary}.stamp`;
  const stampOf = () => {
    if (strategy === "prebuilt") {
      const plan = prebuiltPlan(srcDir);
      // Paths are written relative to the source, output and library folders: checkouts that share
      // one .cache (git worktrees with a symlinked .cache and node_modules) then agree on the stamp
      // instead of rebuilding the one binary in turn.
      const portable = (/** @type {string} */ s) =>
        s.split(srcDir).join("<llama.cpp>").split(llamaServerDir).join("<out>").split(plan.libDir).join("<libs>");
      const stamp = {
        strategy,
        commit,
        cxx: compilerVersion(plan.cxx),
        cc: compilerVersion(plan.cc),
        optimize: OPTIMIZE,
        units: plan.units.map((u) => portable([u.src, ...u.flags].join(" "))),
        link: plan.linkFlags.map(portable),
        libs: plan.libSig,
      };
      return { plan, stamp: JSON.stringify(stamp, null, 1) };
    }
    const plan = cmakePlan();
    const stamp = { strategy, commit, cmake: plan.cmake, options: plan.options, cpuFlags: plan.cpuFlags };
    return { plan, stamp: JSON.stringify(stamp, null, 1) };
  };
  const upToDate = (/** @type {string} */ stamp) =>
    existsSync(llamaServerBinary) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp;

  const first = stampOf();
  if (!options.force && upToDate(first.stamp)) return done();

  mkdirSync(llamaServerDir, { recursive: true });
  return withLock(
    path.join(llamaServerDir, "build.lock"),
    async () => {
      const { plan, stamp } = stampOf();
      if (!options.force && upToDate(stamp)) return done(); // the lock's previous owner built it
      // A build folder remembers the stamp it was made for; another stamp (or --force) starts afresh.
      const dir = path.join(buildRoot, strategy);
      const dirStamp = path.join(dir, "stamp");
      if (options.force || !existsSync(dirStamp) || readFileSync(dirStamp, "utf8") !== stamp) {
        rmSync(dir, { recursive: true, force: true });
      }
      mkdirSync(dir, { recursive: true });
      writeFileSync(dirStamp, stamp);
      rmSync(stampFile, { force: true });

      log(
        `${NAME}: building ${path.relative(repoRoot, llamaServerBinary)} (strategy ${strategy}, ${jobs} jobs, llama.cpp ${commit.slice(0, 12)}) …`,
      );
      const started = Date.now();
      if (strategy === "prebuilt") await buildPrebuilt(srcDir, plan, { log, jobs });
      else await buildCmake(srcDir, plan, { log, jobs });
      writeFileSync(stampFile, stamp);
      log(`${NAME}: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return done();
    },
    { onWait: () => log(`${NAME}: another process is building (${llamaServerDir}); waiting for it`) },
  );
}

runAsScript(import.meta.url, (/** @type {{ force: boolean, log: (l: string) => void }} */ o) => {
  const arg = process.argv.find((a) => a.startsWith("--strategy="));
  return buildLlamaServer({ ...o, ...(arg ? { strategy: /** @type {any} */ (arg.slice("--strategy=".length)) } : {}) });
});

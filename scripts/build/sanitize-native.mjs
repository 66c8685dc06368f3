#!/usr/bin/env node
// ASan + UBSan: the native test programs, then the engine's vitest suites and 400 server
// requests that each bring a new tool schema, against a sanitized build of the addon (node
// preloads the sanitizer runtimes). ThreadSanitizer: the decode-thread → JS-thread handoff and the
// core tests (shapes shared across threads, the background precompute).
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const sanitizerEnv = {
  ...process.env,
  ASAN_OPTIONS: "detect_leaks=0:abort_on_error=1:halt_on_error=1",
  UBSAN_OPTIONS: "halt_on_error=1:print_stacktrace=1",
};

function run(cmd, args, opts = {}) {
  console.log(`$ ${[cmd, ...args].join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", ...opts });
  if (r.status !== 0) {
    console.error(`sanitizer run failed: ${cmd} exited with ${r.status ?? r.error?.message}`);
    process.exit(1);
  }
}
function runtime(name) {
  const r = spawnSync("g++", [`-print-file-name=${name}`], { encoding: "utf8" });
  return r.stdout.trim();
}

const coreDir = join(root, "build-asan-core");
mkdirSync(coreDir, { recursive: true });
run("cmake", [
  "-S",
  root,
  "-B",
  coreDir,
  "-DTOOLMASK_NATIVE_TESTS=ON",
  "-DTOOLMASK_SANITIZE=ON",
  "-DCMAKE_BUILD_TYPE=Debug",
]);
run("cmake", ["--build", coreDir, "--target", "core_tests", "job_mailbox_tests", "-j", "2"]);
run(join(coreDir, "core_tests"), [], { env: sanitizerEnv });
run(join(coreDir, "job_mailbox_tests"), [], { env: sanitizerEnv });

const tsan = join(coreDir, "job_mailbox_tests_tsan");
run("g++", [
  "-std=c++17",
  "-O1",
  "-g",
  "-fsanitize=thread",
  "-pthread",
  "-o",
  tsan,
  join(root, "native", "tests", "job_mailbox_tests.cpp"),
]);
run(tsan, [], { env: { ...process.env, TSAN_OPTIONS: "halt_on_error=1" } });
// The core under ThreadSanitizer: shapes shared by grammars on four threads, the background precompute.
const coreTsan = join(coreDir, "core_tests_tsan");
// core_tests' files: every test source but the mailbox's own program (CMakeLists.txt's core_tests).
const coreTestSources = readdirSync(join(root, "native", "tests"))
  .filter((f) => f.endsWith(".cpp") && f !== "job_mailbox_tests.cpp")
  .map((f) => join(root, "native", "tests", f));
const coreSources = readdirSync(join(root, "native", "core"))
  .filter((f) => f.endsWith(".cpp"))
  .map((f) => join(root, "native", "core", f));
run("g++", [
  "-std=c++17",
  "-O1",
  "-g",
  "-fsanitize=thread",
  "-pthread",
  "-o",
  coreTsan,
  ...coreTestSources,
  ...coreSources,
]);
run(coreTsan, [], { env: { ...process.env, TSAN_OPTIONS: "halt_on_error=1" } });

run(process.execPath, [join(root, "scripts", "build", "build-native.mjs"), "--sanitize"]);
const addonEnv = {
  ...sanitizerEnv,
  LD_PRELOAD: [runtime("libasan.so"), runtime("libubsan.so")].join(" "),
  TOOLMASK_ADDON: join(root, "build-asan", "Debug", "toolmask.node"),
};
run(
  process.execPath,
  [
    join(root, "node_modules", "vitest", "vitest.mjs"),
    "run",
    "test/test-model/fast-forward",
    "test/test-model/llama-abort",
    "test/test-model/llama-backend",
    "test/test-model/server-varied-schemas",
    "test/test-model/prompt-tokenizer",
    "test/test-model/server-tokenize-bombs",
    "test/no-model/departure-node",
  ],
  { env: { ...addonEnv, TOOLMASK_VARIED_REQUESTS: "400" } },
);
// The backend mask's resident table (native/llama/mask_resident.cpp) for every backend-path
// generation: sequences joining and leaving a shared context, tables freed as graphs are rebuilt.
run(
  process.execPath,
  [
    join(root, "node_modules", "vitest", "vitest.mjs"),
    "run",
    "test/programs/llama-parallel",
    "test/test-model/fast-forward",
  ],
  { env: { ...addonEnv, TOOLMASK_BACKEND_MASK: "resident" } },
);
console.log("sanitizers: clean");

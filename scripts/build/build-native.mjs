#!/usr/bin/env node
// Builds the native addon. Default: cmake-js (uses node-api-headers from npm, nothing downloaded).
//   --if-missing   skip when a local build or a prebuild for this platform already exists (npm install)
//   --gyp          build with node-gyp and binding.gyp instead
//   --sanitize     AddressSanitizer + UBSan build into build-asan/ (see scripts/build/sanitize-native.mjs)
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const args = new Set(process.argv.slice(2));
const require = createRequire(import.meta.url);

const prebuildDir = join(root, "prebuilds", `${process.platform}-${process.arch}`);
const hasPrebuild = existsSync(prebuildDir) && readdirSync(prebuildDir).some((f) => f.endsWith(".node"));
if (args.has("--if-missing") && (existsSync(join(root, "build", "Release", "toolmask.node")) || hasPrebuild))
  process.exit(0);

function run(cmd, argv) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: "inherit" });
  if (r.error) return r.error.message;
  return r.status === 0 ? null : `exit code ${r.status}`;
}

let failure;
// node-gyp ships with npm; outside `npm run` look for it beside this node.
function nodeGyp() {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
  const candidates = [
    join(
      dirname(process.execPath),
      "..",
      "lib",
      "node_modules",
      "npm",
      "node_modules",
      "node-gyp",
      "bin",
      "node-gyp.js",
    ),
    join(dirname(process.execPath), "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js"), // Windows
  ];
  try {
    candidates.unshift(require.resolve("node-gyp/bin/node-gyp.js"));
  } catch {
    /* not installed locally */
  }
  return candidates.find((c) => existsSync(c));
}

// node-gyp downloads Node's headers unless told where they are; an installed Node usually has them
// in <prefix>/include/node (with common.gypi), so the build needs no network.
function localNodeDir() {
  const prefix = join(dirname(process.execPath), "..");
  return existsSync(join(prefix, "include", "node", "common.gypi")) ? prefix : undefined;
}

if (args.has("--gyp")) {
  const gyp = nodeGyp();
  const nodedir = localNodeDir();
  failure = gyp
    ? run(process.execPath, [gyp, "rebuild", ...(nodedir ? [`--nodedir=${nodedir}`] : [])])
    : "node-gyp was not found (it comes with npm; run this through `npm run build:native:gyp`)";
} else {
  const cmakeJs = join(dirname(require.resolve("cmake-js/package.json")), "bin", "cmake-js");
  const extra = args.has("--sanitize") ? ["--out", "build-asan", "--CDTOOLMASK_SANITIZE=ON", "--debug"] : [];
  failure = run(process.execPath, [cmakeJs, "compile", ...extra]);
}
if (failure) {
  console.error(
    `\ntoolmask: building the native addon failed (${failure}).\n` +
      "It needs cmake >= 3.15, git and a C++17 compiler (g++ or clang; Xcode command line tools on macOS; " +
      "Visual Studio Build Tools on Windows). Install them and run `npm run build:native` again, " +
      "or use a toolmask release that ships a prebuild for your platform.",
  );
  process.exit(1);
}

#!/usr/bin/env node
// Builds the addon prebuild this platform ships: prebuilds/<platform>-<arch>/toolmask.node, made by
// prebuildify (N-API, so one file serves every Node >= 20; stripped). prebuildify knows only
// node-gyp, so scripts/build/prebuild-compile.mjs stands in for it and compiles with cmake-js in its own
// folder (build-prebuild/): the development build in build/ is never touched, so tests loading it
// meanwhile are safe. Built on Debian 12 it needs glibc 2.34 and libstdc++ 3.4.29 (GCC 11), as
// node-llama-cpp's own libraries do; test/test-model/check-package.test.ts checks that floor.
//   --if-stale  do nothing when the prebuild is newer than every native source and build file
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const staging = join(root, "build-prebuild");
export const prebuildPath = join(root, "prebuilds", `${process.platform}-${process.arch}`, "toolmask.node");

/** The newest modification time among the files the addon is built from. */
function newestSource() {
  const files = ["CMakeLists.txt", "scripts/build/prebuild.mjs", "scripts/build/prebuild-compile.mjs"].map((f) =>
    join(root, f),
  );
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).forEach((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : files.push(join(dir, e.name)),
    );
  walk(join(root, "native"));
  return Math.max(...files.map((f) => statSync(f).mtimeMs));
}

export function prebuildIsFresh() {
  return existsSync(prebuildPath) && statSync(prebuildPath).mtimeMs >= newestSource();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--if-stale") && prebuildIsFresh()) {
    console.log(`prebuild is up to date: ${prebuildPath}`);
    process.exit(0);
  }
  mkdirSync(staging, { recursive: true });
  const require = createRequire(import.meta.url);
  const prebuildify = join(dirname(require.resolve("prebuildify/package.json")), "bin.js");
  const compile = join(root, "scripts", "build", "prebuild-compile.mjs");
  // prebuildify spawns its "node-gyp" without a shell except on Windows.
  const nodeGyp = process.platform === "win32" ? `"${process.execPath}" "${compile}"` : compile;
  const r = spawnSync(
    process.execPath,
    [prebuildify, "--napi", "--strip", "--name", "toolmask", "--out", root, "--node-gyp", nodeGyp, staging],
    { stdio: "inherit", env: { ...process.env, TOOLMASK_SOURCE_ROOT: root } },
  );
  if (r.status !== 0) {
    console.error("toolmask: the prebuild failed (it needs cmake >= 3.15, a C++17 compiler and strip from binutils)");
    process.exit(r.status ?? 1);
  }
  console.log(`wrote ${prebuildPath}`);
}

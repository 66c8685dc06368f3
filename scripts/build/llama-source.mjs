#!/usr/bin/env node
// Makes the llama.cpp source that node-llama-cpp ships (as a git bundle) available as a plain
// checkout in <repo>/.cache/llama.cpp, and returns its path. Tests and build steps call it.
// The clone is local (no network), done once, and safe when several processes race: each clones
// into its own temp dir and renames it into place; the loser of the rename discards its copy.
// TOOLMASK_LLAMA_CPP_DIR overrides the target folder (e.g. a CI cache).

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
// node-llama-cpp sits in our node_modules in a clone, beside us when toolmask is an installed dependency.
function nodeLlamaCppDir() {
  try {
    return path.dirname(path.dirname(createRequire(import.meta.url).resolve("node-llama-cpp"))); // <pkg>/dist/index.js
  } catch {
    return path.join(repoRoot, "node_modules", "node-llama-cpp");
  }
}
const bundlePath = path.join(nodeLlamaCppDir(), "llama", "gitRelease.bundle");
const targetDir = path.resolve(process.env.TOOLMASK_LLAMA_CPP_DIR || path.join(repoRoot, ".cache", "llama.cpp"));
// Temp clones sit beside the target so the final rename stays on one file system.
const cacheDir = path.dirname(targetDir);
// A file that exists only in a complete checkout; the rename makes it appear atomically.
const marker = path.join("include", "llama.h");

function isComplete(dir) {
  return existsSync(path.join(dir, marker));
}

/** @returns {Promise<string>} absolute path of the llama.cpp source checkout */
export async function llamaSourceDir() {
  if (isComplete(targetDir)) return targetDir;
  if (!existsSync(bundlePath)) {
    throw new Error(`llama.cpp source bundle not found at ${bundlePath} (is node-llama-cpp installed?)`);
  }
  mkdirSync(cacheDir, { recursive: true });
  const tmpDir = path.join(
    cacheDir,
    `${path.basename(targetDir)}.tmp-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  );
  try {
    execFileSync("git", ["clone", "--quiet", "--no-hardlinks", bundlePath, tmpDir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (!isComplete(tmpDir)) throw new Error(`clone of ${bundlePath} has no ${marker}`);
    try {
      renameSync(tmpDir, targetDir);
    } catch (err) {
      // Another process won the race (target exists and is non-empty): use theirs.
      if (!isComplete(targetDir)) {
        // A stale, incomplete target (e.g. an interrupted manual copy): replace it once.
        if (existsSync(targetDir) && statSync(targetDir).isDirectory()) {
          rmSync(targetDir, { recursive: true, force: true });
          renameSync(tmpDir, targetDir);
        } else {
          throw err;
        }
      }
    }
  } catch (err) {
    const stderr = err && typeof err === "object" && "stderr" in err && err.stderr ? String(err.stderr) : "";
    throw new Error(
      `could not prepare llama.cpp source in ${targetDir}: ${err instanceof Error ? err.message : String(err)}${stderr ? `\n${stderr}` : ""}`,
    );
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
  return targetDir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  llamaSourceDir().then(
    (dir) => console.log(dir),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}

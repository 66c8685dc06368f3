#!/usr/bin/env node
// node scripts/build/clang-format.mjs [--check|--write]: runs clang-format (the one `npm run pyenv
// -- format` installs into .cache/pyenv) over the C++ files of native/ with .clang-format.
// --check (npm run lint) exits 1 listing the files it would change. Without the formatter
// installed it says how to install it and exits 0, or 1 under CI=true.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { groupInstalled, PYENV_DIR, pyenvHint, ROOT } from "../lib/pyenv.mjs";

const mode = process.argv[2] ?? "--check";
if (mode !== "--check" && mode !== "--write") {
  console.error(`clang-format.mjs: expected --check or --write, got ${JSON.stringify(mode)}`);
  process.exit(2);
}
const binary = path.join(PYENV_DIR, "bin", "clang-format");
if (!groupInstalled("format") || !existsSync(binary)) {
  console.error(`clang-format is not installed: ${pyenvHint(["format"])}`);
  process.exit(process.env.CI ? 1 : 0);
}
const listed = spawnSync("git", ["ls-files", "native/*.cpp", "native/*.hpp", "native/*.h"], {
  cwd: ROOT,
  encoding: "utf8",
});
if (listed.status !== 0) {
  console.error(`git ls-files failed: ${listed.stderr || listed.error?.message}`);
  process.exit(1);
}
const files = listed.stdout.split("\n").filter(Boolean);
const args = mode === "--write" ? ["-i", ...files] : ["--dry-run", "--Werror", ...files];
const r = spawnSync(binary, args, { cwd: ROOT, encoding: "utf8" });
if (r.status === 0) {
  console.log(
    `clang-format: ${files.length} files ${mode === "--write" ? "formatted" : "formatted as .clang-format says"}`,
  );
  process.exit(0);
}
const changed = [...new Set([...(r.stderr ?? "").matchAll(/^(native\/[^:]+):\d+:\d+: error/gm)].map((m) => m[1]))];
console.error(r.stderr?.slice(0, 4000) ?? r.error?.message);
if (changed.length) console.error(`clang-format would change: ${changed.join(", ")}; run npm run format:cpp`);
process.exit(1);

#!/usr/bin/env node
// What prebuildify runs in place of node-gyp (scripts/build/prebuild.mjs): `rebuild --target=… --arch=…
// --release|--debug` in the staging folder. It compiles the addon with cmake-js into
// <staging>/build/Release; Node's version is irrelevant (N-API).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const root = process.env.TOOLMASK_SOURCE_ROOT;
if (!root) {
  console.error("prebuild-compile.mjs is run by scripts/build/prebuild.mjs (npm run build:prebuild), not by hand");
  process.exit(2);
}
const args = process.argv.slice(2);
const arch = args.find((a) => a.startsWith("--arch="))?.slice("--arch=".length);
const cmakeJs = join(
  dirname(createRequire(join(root, "package.json")).resolve("cmake-js/package.json")),
  "bin",
  "cmake-js",
);
const r = spawnSync(
  process.execPath,
  [
    cmakeJs,
    "compile",
    "--directory",
    root,
    "--out",
    join(process.cwd(), "build"),
    ...(arch ? ["--arch", arch] : []),
    ...(args.includes("--debug") ? ["--debug"] : []),
  ],
  { stdio: "inherit" },
);
process.exit(r.status ?? 1);

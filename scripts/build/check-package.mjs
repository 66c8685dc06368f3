#!/usr/bin/env node
// `npm run check:package`: what a user of the published package gets, on a machine without a compiler.
//  1. the linux-x64 prebuild is built when stale (scripts/build/prebuild.mjs), then `npm pack`;
//  2. the tarball installs into an empty folder with --ignore-scripts (npm 11 runs no dependency
//     install scripts unless approved) and --prefer-offline, under a PATH holding only node and npm
//     (cc, g++, cmake… are shown to be absent there);
//     neither optional peer (the bench's PNG renderer and its fonts) is installed;
//  3. from that folder: the package's own writeTestModel writes the test model, loadModel +
//     generate make a tool call under the mask, and the demo runs.
// Prints one JSON summary as the last line; exits non-zero with the reason when a step fails.
//   --keep     leave the temp folder (its path is in the summary)
//   --no-tsc   pack dist/ as it is (test/test-model/check-package.test.ts: `npm test` compiled it, and other test
//              files import it meanwhile, so rewriting it under them is avoided)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const keep = process.argv.includes("--keep");
const compileTs = !process.argv.includes("--no-tsc");
const started = performance.now();
const seconds = (t) => +((performance.now() - t) / 1000).toFixed(1);
const summary = { steps: {} };

const work = mkdtempSync(join(os.tmpdir(), "toolmask-check-package-"));
summary.folder = work;
function fail(message) {
  console.error(`check:package: ${message}`);
  if (!keep) rmSync(work, { recursive: true, force: true });
  process.exit(1);
}
function run(cmd, args, opts = {}) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 << 20, ...opts });
  if (r.error) fail(`${cmd} ${args.join(" ")}: ${r.error.message}`);
  return { ...r, seconds: seconds(t), text: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

// 1. dist/ and the prebuild, then the tarball (its scripts would redo both: prepare, prepack).
if (compileTs) {
  const tsc = run("npm", ["run", "build:ts"], { cwd: root });
  if (tsc.status !== 0) fail(`compiling dist/ failed:\n${tsc.text}`);
  summary.steps.tsc = { seconds: tsc.seconds };
}
const prebuild = run(process.execPath, [join(root, "scripts", "build", "prebuild.mjs"), "--if-stale"], { cwd: root });
if (prebuild.status !== 0) fail(`the prebuild failed:\n${prebuild.text}`);
summary.steps.prebuild = { seconds: prebuild.seconds, rebuilt: !/up to date/.test(prebuild.stdout) };
const pack = run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], { cwd: root });
if (pack.status !== 0) fail(`npm pack failed:\n${pack.text}`);
const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0];
const plat = `${process.platform}-${process.arch}`;
const prebuildEntry = packed.files.find((f) => f.path === `prebuilds/${plat}/toolmask.node`);
if (!prebuildEntry) fail(`the tarball has no prebuilds/${plat}/toolmask.node`);
// The prebuild asks no more of the system than node-llama-cpp's own libraries: glibc 2.34, libstdc++ 3.4.29.
function symbolFloor(file) {
  const r = spawnSync("objdump", ["-T", file], { encoding: "utf8" });
  if (r.status !== 0) return undefined; // no binutils: nothing to check with
  const newest = (prefix) =>
    [...new Set(r.stdout.match(new RegExp(`${prefix}_[0-9.]+`, "g")) ?? [])]
      .map((v) => v.slice(prefix.length + 1))
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      .pop();
  return { glibc: newest("GLIBC"), glibcxx: newest("GLIBCXX") };
}
const floor = process.platform === "linux" ? symbolFloor(join(root, "prebuilds", plat, "toolmask.node")) : undefined;
const above = (v, max) => v !== undefined && v.localeCompare(max, undefined, { numeric: true }) > 0;
if (floor && (above(floor.glibc, "2.34") || above(floor.glibcxx, "3.4.29")))
  fail(
    `the prebuild needs glibc ${floor.glibc} / libstdc++ ${floor.glibcxx}, more than node-llama-cpp's libraries (2.34 / 3.4.29)`,
  );
summary.steps.pack = {
  needs: floor,
  seconds: pack.seconds,
  tarball: packed.filename,
  bytes: packed.size,
  files: packed.files.length,
  prebuildBytes: prebuildEntry.size,
};

// 2. A PATH with node and npm only; nothing there can compile.
const bin = join(work, "bin");
mkdirSync(bin);
symlinkSync(process.execPath, join(bin, "node"));
const npmCli = join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js");
symlinkSync(
  existsSync(npmCli) ? npmCli : spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim(),
  join(bin, "npm"),
);
const env = { ...process.env, PATH: bin, npm_config_update_notifier: "false" };
for (const k of Object.keys(env))
  if (/^npm_(lifecycle|package|config_node_gyp)/.test(k) || k === "TOOLMASK_ADDON") delete env[k];
const tools = ["cc", "gcc", "g++", "c++", "clang", "clang++", "cmake", "make", "ninja"];
const found = tools.filter((tool) => spawnSync("/bin/sh", ["-c", `command -v ${tool}`], { env }).status === 0);
if (found.length > 0) fail(`the compiler-free PATH still finds ${found.join(", ")}`);
summary.steps.path = { entries: ["node", "npm"], notFound: tools };

const app = join(work, "app");
mkdirSync(app);
writeFileSync(
  join(app, "package.json"),
  JSON.stringify({ name: "toolmask-consumer", private: true, type: "module" }, null, 2),
);
const install = run(
  join(bin, "npm"),
  [
    "install",
    join(work, packed.filename),
    "--ignore-scripts",
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    "--loglevel=http",
  ],
  { cwd: app, env },
);
if (install.status !== 0) fail(`npm install of the tarball failed:\n${install.text}`);
// npm logs each registry request; those not answered from the cache went to the network.
const requests = install.text.split("\n").filter((l) => /npm http fetch/.test(l));
const network = requests
  .filter((l) => !/\(cache (hit|revalidated|stale)\)/.test(l))
  .map((l) => l.replace(/^.*npm http fetch /, ""));
const pkgDir = join(app, "node_modules", "toolmask");
if (existsSync(join(pkgDir, "build")))
  fail("the installed package has a build/ folder: the check must load the prebuild");
// The bench's chart renderer and fonts are optional peers (docs/install.md): a user installs neither.
const optionalPeers = ["@resvg/resvg-js", "dejavu-fonts-ttf"];
const installedPeers = optionalPeers.filter((name) => existsSync(join(app, "node_modules", name)));
if (installedPeers.length)
  fail(`the install brought ${installedPeers.join(", ")}: they are optional peers, not runtime dependencies`);
summary.steps.install = {
  seconds: install.seconds,
  requests: requests.length,
  fromNetwork: network,
  notInstalled: optionalPeers,
};

// The install script, were it allowed to run, has nothing to do: a prebuild is there.
const installScript = run(process.execPath, [join(pkgDir, "scripts", "build", "build-native.mjs"), "--if-missing"], {
  cwd: pkgDir,
  env,
});
if (installScript.status !== 0) fail(`the package's install script fails without a compiler:\n${installScript.text}`);
summary.steps.installScript = { seconds: installScript.seconds };

// 3. A generate call with tools, from the consumer's folder, through the package's public exports.
writeFileSync(
  join(app, "call.mjs"),
  `
import { loadModel, generate, writeTestModel } from "toolmask";
writeTestModel({ path: "model.gguf", seed: 1 });
const model = await loadModel({ path: "model.gguf", gpu: "auto" });
const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object",
  properties: { city: { type: "string", enum: ["Paris", "Rome"] } }, required: ["city"] } } }];
const v = model.vocabulary;
const r = await generate(model, { messages: [{ role: "user", content: "Weather in Paris?" }], tools, dialect: "qwen3-coder",
  toolChoice: "required", seed: 3, maxTokens: 60, logitBias: { [v.idOfPiece("<tool_call>")]: 100, [v.idOfPiece("<|im_end|>")]: 110 } });
console.log(JSON.stringify({ finishReason: r.finishReason, maskPath: r.maskPath, gpu: model.gpu, calls: r.message.tool_calls }));
model.dispose();
`,
);
const call = run(process.execPath, ["call.mjs"], { cwd: app, env });
if (call.status !== 0) fail(`the generate call failed:\n${call.text}`);
const result = JSON.parse(call.stdout.trim().split("\n").pop());
const args =
  result.calls?.length === 1 && result.calls[0].function.name === "get_weather"
    ? JSON.parse(result.calls[0].function.arguments)
    : undefined;
if (result.finishReason !== "tool_calls" || !["Paris", "Rome"].includes(args?.city))
  fail(`the generate call made no valid call: ${call.stdout}`);
summary.steps.generate = { seconds: call.seconds, ...result, stderr: call.stderr.trim() };

// The demo, as a user runs it: the package's bin (on the model written above).
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
if (!pkg.bin?.toolmask) fail("the package has no toolmask bin");
const demoCmd = [
  join(app, "node_modules", ".bin", "toolmask"),
  ["demo", "--seeds", "1", "--model", join(app, "model.gguf")],
];
const demo = run(demoCmd[0], demoCmd[1], { cwd: app, env });
if (demo.status !== 0) fail(`the demo failed:\n${demo.text}`);
const tally = demo.stdout.match(/valid calls: masked (\d+)\/(\d+)/);
if (!tally || tally[1] !== tally[2]) fail(`the demo's masked answers were not all valid calls:\n${demo.stdout}`);
summary.steps.demo = { seconds: demo.seconds, via: "toolmask demo", lastLine: demo.stdout.trim().split("\n").pop() };

summary.seconds = seconds(started);
if (!keep) rmSync(work, { recursive: true, force: true });
console.log(JSON.stringify(summary));

#!/usr/bin/env node
// npm run bench:bfcl [-- --sample N | --all] [--models a,b] [--categories c,d] [--max-tokens N]
//   [--concurrency N] [--threads N] [--out DIR]      |      npm run bench:bfcl -- --rescore FILE
// The Berkeley Function Calling Leaderboard's simple, multiple, parallel, parallel_multiple and
// irrelevance items (bfcl-eval, npm run pyenv -- bfcl) on every model `npm run models -- --list`
// shows as present, masked and unmasked, scored by bfcl-eval's own AST checker. Writes
// DIR/bfcl.json and DIR/bfcl.svg (bfcl-required.* with --tool-choice required; default dir
// bench/results) and prints the README table. --rescore
// scores FILE's stored answers again with the installed checker (no decoding) and rewrites it,
// its chart beside it.
// --smallest: one item of each category on the first fetched model with a dialect (unless
// --models), 24 tokens, 2 at once; nothing written unless --out; without a model or bfcl-eval it
// says so and exits 0 (test/model-real/bench-smallest-bfcl.test.ts).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defaultThreads } from "../../dist/index.js";
import { readFileSync } from "node:fs";
import { rescoreReport, runBfclBench } from "../../dist/bench/bfcl/bench.js";
import { bfclChartSvg } from "../../dist/bench/bfcl/chart.js";
import { markdownTable, overconstraintLine } from "../../dist/bench/bfcl/summary.js";
import { BFCL_CATEGORIES } from "../../dist/bench/bfcl/types.js";
import { pyenvHint, pythonWith, ROOT } from "../lib/pyenv.mjs";

const DEFAULT_SAMPLE = 30;
const FLAGS = {
  "tool-choice": true,
  sample: true,
  all: false,
  models: true,
  categories: true,
  "max-tokens": true,
  concurrency: true,
  threads: true,
  out: true,
  rescore: true,
  help: false,
  smallest: false,
};
const USAGE = `usage: npm run bench:bfcl -- --rescore FILE\n   or: npm run bench:bfcl -- [--smallest] [--sample N (default ${DEFAULT_SAMPLE}) | --all] [--models NAME,NAME] [--categories ${BFCL_CATEGORIES.join(",")}] [--max-tokens N (256)] [--tool-choice auto|required (auto; required leaves irrelevance auto and writes bfcl-required.json)] [--concurrency N (4)] [--threads N] [--out DIR (bench/results)]`;

function fail(message, code = 2) {
  console.error(`bench:bfcl: ${message}`);
  process.exit(code);
}
const flags = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].replace(/^--/, "");
  if (!argv[i].startsWith("--") || !(name in FLAGS)) fail(`unknown argument ${JSON.stringify(argv[i])}\n${USAGE}`);
  flags[name] = FLAGS[name] ? argv[++i] : true;
  if (FLAGS[name] && flags[name] === undefined) fail(`--${name} needs a value\n${USAGE}`);
}
if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}
const positive = (name, fallback) => {
  if (flags[name] === undefined) return fallback;
  const n = Number(flags[name]);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive integer, got ${JSON.stringify(flags[name])}`);
  return n;
};
const list = (name, known) => {
  if (flags[name] === undefined) return undefined;
  const xs = flags[name].split(",").filter(Boolean);
  const bad = known ? xs.filter((x) => !known.includes(x)) : [];
  if (bad.length) fail(`--${name}: unknown ${bad.join(", ")}; choose from ${known.join(", ")}`);
  return xs;
};
if (flags.all && flags.sample !== undefined) fail("--all and --sample exclude each other");
const smallest = flags.smallest === true;
const sample = flags.all ? undefined : positive("sample", smallest ? 1 : DEFAULT_SAMPLE);
const categories = list("categories", BFCL_CATEGORIES) ?? [...BFCL_CATEGORIES];
const toolChoice = flags["tool-choice"] ?? "auto";
if (toolChoice !== "auto" && toolChoice !== "required")
  fail(`--tool-choice is auto or required, got ${JSON.stringify(toolChoice)}`);
const stem = toolChoice === "auto" ? "bfcl" : "bfcl-required";
const python = pythonWith(["bfcl"]);
if (!python && smallest) {
  console.log(`bench:bfcl --smallest: skipped: bfcl-eval is not installed: ${pyenvHint(["bfcl"])}`);
  process.exit(0);
}
if (!python) fail(`bfcl-eval is not installed: ${pyenvHint(["bfcl"])}`, 1);

const oracle = { python, script: path.join(ROOT, "scripts", "bench", "bfcl", "oracle.py") };
if (flags.rescore) {
  const file = path.resolve(flags.rescore);
  const report = await rescoreReport(oracle, JSON.parse(readFileSync(file, "utf8")));
  writeFileSync(file, JSON.stringify(report, null, 1) + "\n");
  writeFileSync(path.join(path.dirname(file), `${path.basename(file, ".json")}.svg`), bfclChartSvg(report) + "\n");
  console.log(`${markdownTable(report)}\n${overconstraintLine(report)}`);
  process.exit(0);
}

const listed = JSON.parse(
  execFileSync(process.execPath, [path.join(ROOT, "scripts", "models.mjs"), "--list"], { encoding: "utf8" }),
);
const wanted = list(
  "models",
  listed.map((m) => m.name),
);
const chosen = listed
  .filter((m) => (wanted ? wanted.includes(m.name) : !smallest || m.present))
  .slice(0, wanted || !smallest ? undefined : 1);
if (chosen.length === 0) {
  console.log("bench:bfcl --smallest: skipped: no model fetched; run `npm run models`");
  process.exit(0);
}
const missing = chosen.filter((m) => !m.present);
if (missing.length) fail(`not fetched: ${missing.map((m) => m.name).join(", ")}; run \`npm run models\``, 1);

const started = Date.now();
const out = flags.out || !smallest ? path.resolve(flags.out ?? path.join(ROOT, "bench", "results")) : null;
if (out) mkdirSync(out, { recursive: true });
const write = (report) => {
  if (!out) return;
  writeFileSync(path.join(out, `${stem}.json`), JSON.stringify(report, null, 1) + "\n");
  writeFileSync(path.join(out, `${stem}.svg`), bfclChartSvg(report) + "\n");
};
const report = await runBfclBench({
  oracle,
  models: chosen,
  categories,
  sample,
  toolChoice,
  maxTokens: positive("max-tokens", smallest ? 24 : 256),
  concurrency: positive("concurrency", smallest ? 2 : 4),
  threads: positive("threads", defaultThreads()),
  command: `npm run bench:bfcl${argv.length ? ` -- ${argv.join(" ")}` : ""}`,
  log: (line) => console.error(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${line}`),
  onGroup: write,
});
write(report);
console.log(`${markdownTable(report)}\n${overconstraintLine(report)}`);
if (out)
  console.log(
    `\nwrote ${path.join(out, `${stem}.json`)} and ${stem}.svg in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );

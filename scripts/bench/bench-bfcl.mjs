#!/usr/bin/env node
// npm run bench:bfcl [-- --sample N | --all] [--models a,b] [--categories c,d] [--modes m,n]
//   [--tool-choice auto|required|auto,required] [--max-tokens N] [--concurrency N] [--threads N]
//   [--out DIR]      |      npm run bench:bfcl -- --rescore FILE
//   |      npm run bench:bfcl -- --merge FILE,FILE[,FILE…] --out DIR
// The Berkeley Function Calling Leaderboard's simple, multiple, parallel, parallel_multiple and
// irrelevance items (bfcl-eval, npm run pyenv -- bfcl) on every model `npm run models -- --list`
// shows (or those --models names, a model the manifest marks skip included), in three modes:
// toolmask unmasked and masked, and llama.cpp's own llama-server (npm run build:llama-server, built
// here from the bundled source when missing) serving the same GGUF with --jinja, the same items,
// greedy, the same max_tokens, threads and slots; every answer scored by bfcl-eval's own AST
// checker. Writes DIR/bfcl.json and DIR/bfcl.svg for tool_choice auto, bfcl-required.* for
// required (default dir bench/results) and prints the README table of each. --rescore scores
// FILE's stored answers again with the installed checker (no decoding) and rewrites it, its chart
// beside it. --merge puts the reports of runs that decoded other parts (other models or
// categories, the same settings: src/bench/bfcl/merge.ts) into one, DIR/bfcl.json or
// bfcl-required.json by their tool_choice, its chart beside it (nothing decoded or scored).
// --smallest: one item of each category on the first fetched model with a dialect (unless
// --models), every mode, tool_choice auto and required, 24 tokens, 2 at once; nothing written
// unless --out; without a model or bfcl-eval it says so and exits 0
// (test/model-real/bench-smallest-bfcl.test.ts).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defaultThreads } from "../../dist/index.js";
import { readFileSync } from "node:fs";
import { BFCL_CONTEXT, rescoreReport, runBfclBench } from "../../dist/bench/bfcl/bench.js";
import { mergeBfclReports } from "../../dist/bench/bfcl/merge.js";
import { BFCL_MODES } from "../../dist/bench/bfcl/run.js";
import { buildLlamaServer } from "../oracles/llama-server/build.mjs";
import { llamaServerBuildInfo, startLlamaServer } from "../oracles/llama-server/process.mjs";
import { bfclChartSvg } from "../../dist/bench/bfcl/chart.js";
import { markdownTable, overconstraintLine } from "../../dist/bench/bfcl/summary.js";
import { BFCL_CATEGORIES } from "../../dist/bench/bfcl/types.js";
import { pyenvHint, pythonWith, ROOT } from "../lib/pyenv.mjs";
import { readFlags } from "./lib/bench-flags.mjs";

const DEFAULT_SAMPLE = 30;
const read = readFlags(import.meta.url, {
  command: "npm run bench:bfcl --",
  flags: {
    rescore: "FILE (score FILE's answers again, nothing decoded)",
    merge: "FILE,FILE (one report from runs of other models or categories; with --out)",
    sample: `N (${DEFAULT_SAMPLE})`,
    all: false,
    models: "NAME,NAME",
    categories: BFCL_CATEGORIES.join(","),
    modes: `${BFCL_MODES.join(",")} (all)`,
    "max-tokens": "N (256)",
    "tool-choice":
      "auto|required|auto,required (auto; --smallest: both; required leaves irrelevance auto and writes bfcl-required.json)",
    concurrency: "N (4)",
    threads: "N",
    out: "DIR (bench/results)",
    smallest: false,
  },
});
/** Each given flag's last value (true for a switch). */
const flags = Object.fromEntries([...read].map(([name, values]) => [name, values.at(-1)]));

function fail(message, code = 2) {
  console.error(`bench:bfcl: ${message}`);
  process.exit(code);
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
const modes = list("modes", [...BFCL_MODES]) ?? [...BFCL_MODES];
const toolChoices = list("tool-choice", ["auto", "required"]) ?? (smallest ? ["auto", "required"] : ["auto"]);
const stemOf = (choice) => (choice === "auto" ? "bfcl" : "bfcl-required");
if (flags.merge) {
  if (!flags.out) fail("--merge needs --out DIR (where the merged report goes)");
  const files = flags.merge
    .split(",")
    .filter(Boolean)
    .map((f) => path.resolve(f));
  let merged;
  try {
    merged = mergeBfclReports(files.map((f) => JSON.parse(readFileSync(f, "utf8"))));
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  const dir = path.resolve(flags.out);
  mkdirSync(dir, { recursive: true });
  const stem = stemOf(merged.settings.toolChoice);
  writeFileSync(path.join(dir, `${stem}.json`), JSON.stringify(merged, null, 1) + "\n");
  writeFileSync(path.join(dir, `${stem}.svg`), bfclChartSvg(merged) + "\n");
  console.log(`${markdownTable(merged)}\n${overconstraintLine(merged)}\nwrote ${path.join(dir, `${stem}.json`)}`);
  process.exit(0);
}
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

const wantedNames = flags.models?.split(",").filter(Boolean);
let listed;
try {
  listed = JSON.parse(
    execFileSync(
      process.execPath,
      [path.join(ROOT, "scripts", "models.mjs"), "--list", ...(wantedNames ? ["--only", wantedNames.join(",")] : [])],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    ),
  );
} catch (e) {
  fail(`--models: ${String(e.stderr ?? e.message).trim()}`);
}
const chosen = listed
  .filter((m) => wantedNames || !smallest || m.present)
  .slice(0, wantedNames || !smallest ? undefined : 1);
if (chosen.length === 0) {
  console.log("bench:bfcl --smallest: skipped: no model fetched; run `npm run models`");
  process.exit(0);
}
const missing = chosen.filter((m) => !m.present);
if (missing.length)
  fail(
    `not fetched: ${missing.map((m) => m.name).join(", ")}; run \`npm run models -- --only ${missing.map((m) => m.name).join(",")}\``,
    1,
  );

const started = Date.now();
const log = (line) => console.error(`[${((Date.now() - started) / 1000).toFixed(0)} s] ${line}`);
const out = flags.out || !smallest ? path.resolve(flags.out ?? path.join(ROOT, "bench", "results")) : null;
if (out) mkdirSync(out, { recursive: true });
const maxTokens = positive("max-tokens", smallest ? 64 : 256);
const concurrency = positive("concurrency", smallest ? 2 : 4);
const threads = positive("threads", defaultThreads());

// llama-server as fair as the in-process modes: the same threads for decoding and prompts, one slot
// per generation in flight, the same per-sequence context with a KV stream per slot (toolmask's engine
// makes contextSize × parallel cells, a stream per sequence), the same 512-token batch; no prompt cache.
const serverArgs = (s) => [
  "--jinja",
  "-c",
  String(s.contextSize * s.concurrency),
  "-np",
  String(s.concurrency),
  "-b",
  "512",
  "-ub",
  "512",
  "-t",
  String(s.threads),
  "-tb",
  String(s.threads),
  "--cache-ram",
  "0",
  "--no-webui",
];
const viaServer = modes.includes("llama-server");
// Built (if needed) once, before its build is recorded; every server of the run starts from it.
const binary = viaServer ? await buildLlamaServer({ log }) : undefined;
const llamaServer = viaServer
  ? async (model, s) => {
      const p = await startLlamaServer(model.path, serverArgs(s), { log, binary });
      return { url: p.url, stop: p.kill };
    }
  : undefined;
const llamaServerRun = viaServer
  ? (() => {
      const { binary: _binary, ...build } = llamaServerBuildInfo(binary);
      return {
        ...build,
        args: serverArgs({ contextSize: BFCL_CONTEXT, concurrency, threads }),
        request: { temperature: 0, max_tokens: maxTokens, parallel_tool_calls: true, cache_prompt: false },
        note:
          "Every request carries cache_prompt: false and the server runs with --cache-ram 0, so each prompt is " +
          "processed whole, as generate() processes every prompt (llama-server's cached prefixes change its " +
          "logits; its README: cache_prompt 'can cause nondeterministic results'). The same threads as the " +
          "in-process modes (-t/-tb = --threads), one slot per generation in flight (-np = --concurrency = the " +
          "loaded model's parallel), the same per-sequence context with a KV stream per slot, the same " +
          "512-token batch. The modes run one after another on the machine, never at once.",
      };
    })()
  : undefined;
if (viaServer) log(`llama-server: ${llamaServerRun.version.split("\n")[0]}, source ${llamaServerRun.sourceCommit}`);

for (const toolChoice of toolChoices) {
  const stem = stemOf(toolChoice);
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
    maxTokens,
    concurrency,
    threads,
    modes,
    llamaServer,
    llamaServerRun,
    command: `npm run bench:bfcl${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
    log: (line) => log(`${toolChoice}: ${line}`),
    onGroup: write,
  });
  write(report);
  console.log(`tool_choice ${toolChoice}:\n${markdownTable(report)}\n${overconstraintLine(report)}\n`);
  if (out) console.log(`wrote ${path.join(out, `${stem}.json`)} and ${stem}.svg`);
}
console.log(`bench:bfcl: done in ${((Date.now() - started) / 1000).toFixed(0)} s`);

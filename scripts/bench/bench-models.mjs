#!/usr/bin/env node
// npm run bench:models: the real-model suite in full — every case of scripts/lib/real-cases.mjs on
// every model `npm run models -- --list` reports with a dialect, masked and unmasked, greedy, no
// logit bias — printed and written to bench/results/models-real.json (figures per model, every
// masked problem, every over-constraint refusal, every greedy difference and its re-run alone).
// Exit 1 when a masked answer has a problem or a valid unmasked answer is refused by its mask.
// Flags: --max-tokens N (default 96), --cases N (a fixed sample of N, default all 56),
// --only NAME[,NAME], --out FILE, --concurrency N (generations at once, default 4).
// --smallest: 2 cases, 24 tokens, 2 at once, on the first fetched model with a dialect (unless
// --only); nothing written unless --out; with no model fetched it says so and exits 0
// (test/model-real/bench-smallest-models.test.ts).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { realCases, sampleCases } from "../lib/real-cases.mjs";
import { formatSummary, runSuite } from "../lib/real-suite.mjs";
import { arg, intArg, readFlags, smallest } from "./lib/bench-flags.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
readFlags(import.meta.url, {
  command: "npm run bench:models --",
  flags: {
    "max-tokens": "N (96)",
    cases: "N (56)",
    only: "NAME,NAME",
    concurrency: "N (4)",
    out: "FILE (bench/results/models-real.json)",
    smallest: false,
  },
});
const maxTokens = intArg("max-tokens", smallest ? 24 : 96);
const caseCount = intArg("cases", smallest ? 2 : realCases().length);
const concurrency = intArg("concurrency", smallest ? 2 : 4);
const only = arg("only", undefined)?.split(",");
const given = arg("out", undefined);
const out = given || !smallest ? path.resolve(given ?? path.join(ROOT, "bench/results/models-real.json")) : null;

const dist = path.join(ROOT, "dist");
if (!existsSync(path.join(dist, "index.js"))) {
  console.error("dist/ is missing: run npm run build:ts");
  process.exit(1);
}
const { generate, loadModel, getDialect } = await import(path.join(dist, "index.js"));
const { replayThroughMask, endedByModel } = await import(path.join(dist, "bench/overconstraint.js"));
const { triggerOf } = await import(path.join(dist, "dialects/spec.js"));
const { escapeRegex } = await import(path.join(dist, "parser/escape-regex.js"));
const lib = { generate, getDialect, triggerOf, replayThroughMask, endedByModel, escapeRegex };

const listed = JSON.parse(
  execFileSync(process.execPath, [path.join(ROOT, "scripts/models.mjs"), "--list"], { encoding: "utf8" }),
);
const models = only
  ? listed.filter((m) => only.includes(m.name))
  : smallest
    ? listed.filter((m) => m.present && m.dialect).slice(0, 1)
    : listed;
if (models.length === 0 && smallest) {
  console.log("bench:models --smallest: skipped: no model fetched; run `npm run models`");
  process.exit(0);
}
const cases = caseCount >= realCases().length ? realCases() : sampleCases(caseCount);
const results = [];
const stripTokens = ({ masked, unmasked, ...rest }) => ({
  ...rest,
  masked: { ...masked, tokens: undefined },
  unmasked: { ...unmasked, tokens: undefined },
});
/** Writes the results so far (and `extra`) to `out`. */
function write(extra) {
  if (!out) return;
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        command: `npm run bench:models -- ${process.argv.slice(2).join(" ")}`.trim(),
        date: new Date().toISOString(),
        maxTokens,
        cases: cases.length,
        temperature: 0,
        machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? "" },
        models: results,
        ...extra,
      },
      null,
      1,
    ) + "\n",
  );
}
let bad = 0;
for (const m of models) {
  if (!m.present) {
    console.log(`${m.name}: not fetched — run npm run models`);
    results.push({ name: m.name, skipped: "not fetched" });
    continue;
  }
  if (!m.dialect) {
    console.log(`${m.name}: no dialect for its chat template; skipped`);
    results.push({ name: m.name, skipped: "no dialect" });
    continue;
  }
  const t0 = performance.now();
  const model = await loadModel({ path: m.path, gpu: false, parallel: concurrency, contextSize: 4096 });
  try {
    const r = await runSuite(lib, model, cases, {
      maxTokens,
      dialect: m.dialect,
      concurrency,
      onCase: (n, total, records) => {
        process.stderr.write(`\r${m.name}: ${n}/${total} cases`);
        // What is done so far, so a run stopped part way leaves its answers (`partial` names the model).
        write({ partial: { name: m.name, cases: n, of: total, records: records.map(stripTokens) } });
      },
    });
    process.stderr.write("\n");
    const seconds = (performance.now() - t0) / 1000;
    console.log(formatSummary(m.name, r));
    console.log(`  ${seconds.toFixed(0)} s`);
    bad += r.maskProblems.length + r.refusals.length;
    results.push({
      name: m.name,
      family: m.family,
      dialect: r.dialect,
      seconds,
      summary: r.summary,
      maskProblems: r.maskProblems,
      refusals: r.refusals,
      differences: r.differences,
      records: r.records.map(stripTokens),
    });
  } finally {
    model.dispose();
  }
}
write({});
if (out) console.log(`wrote ${path.relative(ROOT, out)}`);
process.exit(bad > 0 ? 1 : 0);

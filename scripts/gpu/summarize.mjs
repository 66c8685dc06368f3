#!/usr/bin/env node
// Gathers what scripts/gpu/check.sh wrote into one file, gpu.json: per model, tokens/s masked and
// unmasked on the host path and the backend path's dense, packed and resident inputs, the ratios,
// host work per token, the resident table's size, and the backend-vs-host token comparison. Run
// after each model, so a run stopped at its time limit still leaves the models it finished.
// Usage: node scripts/gpu/summarize.mjs <dir with check-paths-*.json and backend-mask-*.json> <mode>
// Writes <dir>/gpu.json; prints one line per model.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const [dir, mode = "cuda"] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node scripts/gpu/summarize.mjs <dir> [cuda|cpu]");
  process.exit(2);
}
const read = (file) => {
  try {
    return JSON.parse(readFileSync(path.join(dir, file), "utf8"));
  } catch {
    return null; // absent, or cut short when the run hit its limit
  }
};
const names = new Set(
  readdirSync(dir)
    .map((f) => /^(?:check-paths|backend-mask)-(.+)\.json$/.exec(f)?.[1])
    .filter(Boolean),
);
const KINDS = ["unmasked", "dense", "packed", "resident", "hostUnmasked", "hostMasked"];
const models = {};
for (const name of [...names].sort()) {
  const bench = read(`backend-mask-${name}.json`);
  const paths = read(`check-paths-${name}.json`);
  const m = { file: bench?.model ?? paths?.model ?? null };
  if (paths) m.tokensVsHost = { failures: paths.failures, cases: paths.cases };
  if (bench) {
    m.gpu = bench.gpu;
    m.vocabularySize = bench.vocabularySize;
    m.tokensPerRun = bench.tokensPerRun;
    m.reps = bench.reps;
    m.tokensPerSecond = Object.fromEntries(KINDS.map((k) => [k, bench[k]?.tokensPerSecond ?? null]));
    m.hostMaskMicrosPerToken = Object.fromEntries(KINDS.map((k) => [k, bench[k]?.hostMaskMicrosPerToken ?? null]));
    m.hostStepMicros = Object.fromEntries(KINDS.map((k) => [k, bench[k]?.hostStepMicros ?? null]));
    const ratio = (a, b) =>
      bench[a] && bench[b] ? +(bench[a].tokensPerSecond / bench[b].tokensPerSecond).toFixed(3) : null;
    m.maskedOverUnmasked = {
      host: ratio("hostMasked", "hostUnmasked"),
      dense: ratio("dense", "unmasked"),
      packed: ratio("packed", "unmasked"),
      resident: ratio("resident", "unmasked"),
    };
    const table = bench.resident?.runs?.at(-1)?.maskTable;
    if (table) m.residentTable = { rows: table.rows, rowBytes: table.rowBytes, bytes: table.bytes };
  }
  models[name] = m;
  const t = m.tokensPerSecond ?? {};
  console.log(
    `${name}: tok/s unmasked ${t.unmasked} | dense ${t.dense} | packed ${t.packed} | resident ${t.resident} | host ${t.hostUnmasked} → ${t.hostMasked}; ` +
      `resident/unmasked ${m.maskedOverUnmasked?.resident}; token failures ${paths ? paths.failures.length : "n/a"}`,
  );
}
const out = {
  date: new Date().toISOString(),
  mode,
  note:
    mode === "cpu"
      ? "scripts/gpu/check.sh --cpu: the script's own check on the CPU backend, small sizes; not GPU figures"
      : "scripts/gpu/check.sh on a CUDA device",
  goal: "resident masked >= 0.99 x unmasked (issue 18)",
  models,
};
writeFileSync(path.join(dir, "gpu.json"), JSON.stringify(out, null, 2) + "\n");

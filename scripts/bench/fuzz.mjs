#!/usr/bin/env node
// Long runs of the parser's fuzz suite (scripts/lib/parser-fuzz.mjs) on the built library (dist/):
//   npm run fuzz -- --inputs N [--dialect D] [--seed S] [--from I] [--max-size C]
//                   [--growth-every K] [--grammar-every K] [--stop-after F] [--verdicts 0|1]
//                   [--grammar-cache-mb M]
// N inputs per dialect (all 14 unless --dialect), inputs I..I+N-1 of seed S (default 1; the test
// suite runs seed 2026); `--verdicts 0` leaves out the verdict classes (closing delimiters
// dropped, keys given twice, several calls where one is allowed), giving the inputs of runs made
// before they were added. `--grammar-cache-mb` sets the process's grammar budget (default 256, whose
// 1/16 the parser's value grammars share): each input brings tools of its own, and at 16 MiB the
// value grammars of one hermes input evict each other (300 inputs: 588 compiles of 99 grammars,
// 3.3 s; with 4096, 99 compiles, 0.9 s). Verdicts do not depend on it. Prints inputs tried per dialect, the time, and each failure with the
// command that reruns it. Exits 1 when any input failed.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeFailure, fuzzDialect } from "../lib/parser-fuzz.mjs";
import { countReads } from "../lib/parser-reads.mjs";
import { arg, readFlags } from "./lib/bench-flags.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
readFlags(import.meta.url, {
  command: "npm run fuzz --",
  flags: {
    inputs: "N (1000)",
    dialect: "D (all)",
    seed: "S (1)",
    from: "I (0)",
    "max-size": "C (20000)",
    "growth-every": "K (1000)",
    "grammar-every": "K (50)",
    "stop-after": "F (5)",
    "progress-every": "K (0: none)",
    verdicts: "0|1 (1)",
    "grammar-cache-mb": "M (256)",
  },
});
const flag = (name, fallback) => {
  const v = arg(name.slice(2));
  if (v === undefined) return fallback;
  if (name === "--dialect") return v;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`fuzz: ${name} takes a non-negative integer, got ${JSON.stringify(v)}`);
    process.exit(2);
  }
  return n;
};

const lib = {
  ...(await import(join(root, "dist", "index.js"))),
  ...(await import(join(root, "dist", "parser", "validate.js"))),
  ...(await import(join(root, "dist", "dialects", "spec.js"))),
  ...(await import(join(root, "dist", "dialects", "options.js"))),
  ...(await import(join(root, "dist", "engine", "stream.js"))),
};
const cacheMb = flag("--grammar-cache-mb", undefined);
if (cacheMb !== undefined) lib.setGrammarCacheBytes(cacheMb * 1024 * 1024);
const { TextBuffer } = await import(join(root, "dist", "parser", "text.js"));
const { JsonExtent, OPEN } = await import(join(root, "dist", "parser", "json-extent.js"));
const { PythonExtent } = await import(join(root, "dist", "parser", "python-extent.js"));
const { JsonPrefix } = await import(join(root, "dist", "parser", "json-prefix.js"));
const counter = countReads({ TextBuffer, JsonExtent, OPEN, PythonExtent, JsonPrefix });

const only = flag("--dialect", undefined);
if (only !== undefined && !lib.dialects.includes(only)) {
  console.error(`fuzz: unknown dialect ${JSON.stringify(only)}; known: ${lib.dialects.join(", ")}`);
  process.exit(2);
}
const inputs = flag("--inputs", 1000);
const seed = flag("--seed", 1);
const from = flag("--from", 0);
const progress = flag("--progress-every", 0);
const settings = {
  seed,
  maxSize: flag("--max-size", 20_000),
  growthEvery: flag("--growth-every", 1000),
  grammarEvery: flag("--grammar-every", 50),
  stopAfter: flag("--stop-after", 5),
  verdicts: flag("--verdicts", 1) !== 0,
};

let failed = 0;
const t0 = performance.now();
console.log(
  `fuzz: seed ${seed}, inputs ${from}..${from + inputs - 1} per dialect, max size ${settings.maxSize}, growth check every ${settings.growthEvery}, grammar check every ${settings.grammarEvery}`,
);
for (const dialect of only ? [only] : lib.dialects) {
  const d0 = performance.now();
  const total = { tried: 0, growth: 0, grammar: 0, failures: [] };
  const step = progress || inputs;
  for (let at = from; at < from + inputs && total.failures.length < settings.stopAfter; at += step) {
    const r = fuzzDialect(lib, counter, dialect, {
      ...settings,
      from: at,
      count: Math.min(step, from + inputs - at),
      stopAfter: settings.stopAfter - total.failures.length,
    });
    total.tried += r.tried;
    total.growth += r.growth;
    total.grammar += r.grammar;
    total.failures.push(...r.failures);
    if (progress) console.log(`  ${dialect}: ${total.tried} inputs, ${((performance.now() - d0) / 1000).toFixed(0)} s`);
  }
  const s = ((performance.now() - d0) / 1000).toFixed(1);
  console.log(
    `${dialect.padEnd(14)} ${String(total.tried).padStart(9)} inputs  ${String(total.growth).padStart(6)} growth checks  ${String(total.grammar).padStart(7)} grammar checks  ${total.failures.length} failed  ${s} s`,
  );
  for (const f of total.failures) console.log(describeFailure(f));
  failed += total.failures.length;
}
console.log(`fuzz: ${failed} failed, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);

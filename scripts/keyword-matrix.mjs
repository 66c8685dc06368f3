#!/usr/bin/env node
// The keyword × dialect matrix of docs/json-schema.md: every case of scripts/lib/keyword-matrix.mjs
// in every dialect, judged as test/no-model/keyword-matrix.test.ts judges it (which holds the
// same cases to the same checks in npm test). Prints the table, then any problem (a value where
// parser, grammar and ajv differ beyond KNOWN_DIFFERENCES, a refusal not the same everywhere);
// exits 1 when there is one. Runs on the built library:
//   npm run build:ts && node scripts/keyword-matrix.mjs
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { caseProblems, judgeCase, makeOracle, matrixCases, matrixTable } from "./lib/keyword-matrix.mjs";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const index = await import(join(dist, "index.js"));
const { grammarAcceptor } = await import(join(dist, "parser", "validate.js"));
const { isRawText } = await import(join(dist, "dialects", "call-grammar.js"));
const { toApiError } = await import(join(dist, "server", "errors.js"));
const lib = { ...index, grammarAcceptor, isRawText, toApiError };
const oracle = makeOracle();

const t0 = performance.now();
const casesOf = new Map(index.dialects.map((d) => [d, matrixCases(index.getDialect(d))]));
const runs = [];
const problems = [];
const names = casesOf.get(index.dialects[0]).map((c) => c.name);
names.forEach((name, i) => {
  const results = index.dialects.map((d) => {
    const c = casesOf.get(d)[i];
    const judged = judgeCase(lib, d, c, oracle);
    runs.push({ dialect: d, case: c, judged });
    return [d, judged];
  });
  problems.push(...caseProblems(name, results).map((p) => `${name}: ${p}`));
});
const judged = runs.reduce((n, r) => n + (r.judged.values?.filter((v) => v.text !== undefined).length ?? 0), 0);
console.log(
  `${names.length} cases × ${index.dialects.length} dialects, ${judged} values judged, ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
);
console.log("Cells: values judged / agreeing with ajv / known differences (KNOWN_DIFFERENCES).\n");
console.log(matrixTable(runs));
if (problems.length) {
  console.log(`\n${problems.length} problems:\n${problems.join("\n")}`);
  process.exitCode = 1;
}

// The keyword × dialect matrix (scripts/lib/keyword-matrix.mjs): every group of the JSON Schema
// Test Suite (draft4, rewritten to be one parameter's schema) and the matrix's own cases, each
// value written in every dialect's own call syntax. A schema the lowering takes: the parser's
// verdict (a complete valid call with these arguments) and the grammar's (the matcher over the
// whole text) equal ajv's on the value, except the listed KNOWN_DIFFERENCES (each with its
// reason), which must still differ. A schema the lowering refuses: refused in every dialect with
// the same error, keyword, path and message, by the grammar and by the parser, as a 400 that says
// what to do. Which cases are refused is not listed here: a keyword that becomes supported moves
// its cases from refused to judged against ajv. The table: node scripts/keyword-matrix.mjs.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { isRawText } from "../../src/dialects/call-grammar.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { toApiError } from "../../src/server/errors.js";
import {
  caseProblems,
  judgeCase,
  keywordsOf,
  MATRIX_KEYWORDS,
  makeOracle,
  matrixCases,
  matrixTable,
  type Judged,
  type MatrixCase,
} from "../../scripts/lib/keyword-matrix.mjs";
import { DIFFERENCE_REASONS, KNOWN_DIFFERENCES } from "../../scripts/lib/keyword-matrix-expected.mjs";

const lib = { getDialect, buildToolGrammar, parseToolCalls, grammarAcceptor, isRawText, toApiError };
const oracle = makeOracle();
const casesOf = new Map(
  dialects.map((d) => [d, new Map(matrixCases(getDialect(d)).map((c): [string, MatrixCase] => [c.name, c]))]),
);
const names = [...casesOf.get(dialects[0]!)!.keys()];
const runs: Array<{ dialect: string; case: MatrixCase; judged: Judged }> = [];

describe("the keyword × dialect matrix", () => {
  it("has a case for every keyword, and every known difference names a value it has", () => {
    const cases = [...casesOf.get(dialects[0]!)!.values()];
    const used = new Set(cases.flatMap((c) => keywordsOf(c.schema)));
    expect(MATRIX_KEYWORDS.filter((k) => !used.has(k))).toEqual([]);
    const values = new Set(
      dialects.flatMap((d) =>
        [...casesOf.get(d)!.values()].flatMap((c) => c.values.map((v) => `${c.name} / ${v.label}`)),
      ),
    );
    expect(Object.keys(KNOWN_DIFFERENCES).filter((k) => !values.has(k))).toEqual([]);
    expect(Object.values(KNOWN_DIFFERENCES).filter((r) => !DIFFERENCE_REASONS[r])).toEqual([]);
  });

  // the slowest case, 14 dialects, took 6.5 s at load average 9 on 2 cores
  it.each(names)(
    "%s",
    (name) => {
      const results = dialects.map((d): [string, Judged] => {
        const c = casesOf.get(d)!.get(name)!;
        const judged = judgeCase(lib, d, c, oracle);
        runs.push({ dialect: d, case: c, judged });
        return [d, judged];
      });
      expect(caseProblems(name, results)).toEqual([]);
    },
    60_000,
  );

  it("ran every case in every dialect", () => {
    expect(runs.length).toBe(names.length * dialects.length);
    const judged = runs.reduce((n, r) => n + (r.judged.values?.filter((v) => v.text !== undefined).length ?? 0), 0);
    const refused = runs.filter((r) => r.judged.refused).length / dialects.length;
    console.log(
      `keyword matrix: ${names.length} cases × ${dialects.length} dialects, ${refused} cases refused everywhere, ${judged} values judged\n${matrixTable(runs)}`,
    );
    expect(judged).toBeGreaterThan(3000);
  });
});

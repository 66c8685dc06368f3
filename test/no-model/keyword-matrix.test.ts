// The keyword × dialect matrix (scripts/lib/keyword-matrix.mjs): every group of the JSON Schema
// Test Suite (draft4, rewritten to be one parameter's schema) and the matrix's own cases, each
// value written in every dialect's own call syntax. A schema the lowering takes: the parser's
// verdict (a complete valid call with these arguments) and the grammar's (the matcher over the
// whole text) equal ajv's on the value, except the listed KNOWN_DIFFERENCES (each with its
// reason), which must still differ. A schema the lowering refuses: refused in every dialect with
// the same error, keyword, path and message, by the grammar and by the parser, as a 400 that says
// what to do. Which cases are refused is not listed here: a keyword that becomes supported moves
// its cases from refused to judged against ajv. Table: node scripts/keyword-matrix.mjs.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { isRawText } from "../../src/dialects/call-grammar.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { toApiError } from "../../src/server/errors.js";
import {
  judgeCase,
  keywordsOf,
  MATRIX_KEYWORDS,
  makeOracle,
  matrixCases,
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

  it.each(names)(
    "%s",
    (name) => {
      const results = dialects.map((d): [string, Judged] => [d, judgeCase(lib, d, casesOf.get(d)!.get(name)!, oracle)]);
      const refused = results.find(([, r]) => r.refused)?.[1].refused;
      if (refused) {
        // the same refusal in every dialect, by the grammar and by the parser
        expect(Object.fromEntries(results.map(([d, r]) => [d, [r.refused, r.parserRefused]]))).toEqual(
          Object.fromEntries(dialects.map((d) => [d, [refused, refused]])),
        );
        // a schema error: the path, what is wrong, then what to do, and a 400 on every route
        expect(refused.path, refused.message).toBeTypeOf("string");
        expect(refused.message.startsWith(`${refused.path}: `), refused.message).toBe(true);
        expect(refused.message.slice(refused.path!.length + 2), refused.message).toMatch(/; \w/);
        expect([refused.status, refused.code], refused.message).toSatisfy(
          ([status, code]) => status === 400 && ["invalid_tool_schema", "grammar_too_large"].includes(code),
        );
        const listed = Object.keys(KNOWN_DIFFERENCES).filter((k) => k.startsWith(`${name} / `));
        expect(listed, "a refused case has no known differences").toEqual([]);
        return;
      }
      const problems: string[] = [];
      for (const [d, r] of results) {
        for (const v of r.values ?? []) {
          if (v.text === undefined) continue; // no spelling in this dialect (a non-string value as raw text)
          const key = `${name} / ${v.label}`;
          const known = KNOWN_DIFFERENCES[key];
          const at = `${d}: ${key}: ${JSON.stringify(v.text)}`;
          if (v.parsed !== v.grammar) problems.push(`${at}: parser ${v.parsed}, grammar ${v.grammar}`);
          else if (v.parsed && !v.args) problems.push(`${at}: parsed arguments are not the value`);
          else if (v.parsed !== v.expected && !known) problems.push(`${at}: ${v.parsed}, ajv ${v.expected}`);
          else if (v.parsed === v.expected && known)
            problems.push(`${at}: agrees with ajv; remove it from KNOWN_DIFFERENCES`);
        }
      }
      expect(problems).toEqual([]);
    },
    120_000,
  );
});

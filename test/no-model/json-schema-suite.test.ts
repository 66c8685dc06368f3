// The JSON Schema Test Suite (npm json-schema-test-suite, draft4: every group, required and
// optional) on the compiled grammar, Qwen3's vocabulary. A valid instance's canonical text (what
// JSON.stringify writes, numbers as the suite spells them) must be accepted, and its spaced text
// (json.dumps) in the default whitespace, its indented text in "any"; an invalid instance must
// be refused in every spelling of scripts/lib/json-schema-suite.mjs, in both whitespace modes.
// Schemas toolmask refuses must be refused
// with the listed error, keyword and path, as a 400 with a hint; the tests where toolmask's
// semantics differ (docs/json-schema.md) are exactly the listed ones. Peers: npm run bench:json-schema-suite.
import { describe, expect, it } from "vitest";
import { compileGrammar, jsonSchema, type JsonSchemaOptions } from "../../src/index.js";
import { toApiError } from "../../src/server/errors.js";
import { groupName, judgeSuite, loadSuite, spellings, testName } from "../../scripts/lib/json-schema-suite.mjs";
import { DEVIATIONS, REFUSED } from "../../scripts/lib/json-schema-suite-expected.mjs";
import { qwen3 } from "../support/vocabs.js";

const groups = loadSuite();

function acceptor(schema: unknown, options: JsonSchemaOptions) {
  const grammar = compileGrammar({ root: jsonSchema(schema, options) }, qwen3());
  const m = grammar.createMatcher();
  return (text: string) => {
    m.reset();
    return m.acceptString(text) && m.isComplete();
  };
}

describe("the suite as texts", () => {
  it("has the groups and tests of draft4 0.0.10", () => {
    expect(groups.length).toBe(89);
    expect(groups.reduce((n, g) => n + g.tests.length, 0)).toBe(295);
  });

  it("every spelling of an instance is a JSON text of the suite's value", () => {
    let texts = 0;
    for (const g of groups)
      for (const t of g.tests) {
        for (const s of spellings(t.doc, { pretty: true })) {
          texts++;
          expect(sameValue(JSON.parse(s), t.data), `${testName(g, t)}: ${s}`).toBe(true);
        }
      }
    expect(texts).toBeGreaterThan(1000);
  });

  it("lists only cases the suite has", () => {
    const tests = new Set(groups.flatMap((g) => g.tests.map((t) => testName(g, t))));
    const names = new Set(groups.map(groupName));
    expect(Object.keys(DEVIATIONS).filter((n) => !tests.has(n))).toEqual([]);
    expect(Object.keys(REFUSED).filter((n) => !names.has(n))).toEqual([]);
  });
});

describe("JSON Schema Test Suite (draft4) on the compiled grammar", () => {
  it.each(groups.map((g) => [groupName(g), g] as const))(
    "%s",
    (name, g) => {
      const refused = REFUSED[name];
      if (refused) {
        let error: unknown;
        try {
          compileGrammar({ jsonSchema: g.schema }, qwen3());
        } catch (e) {
          error = e;
        }
        const e = error as Error & { keyword?: string; path?: string };
        expect(e, "the schema is refused").toBeInstanceOf(Error);
        expect(e.name, e.message).toBe(refused.error);
        expect(e.keyword).toBe(refused.keyword);
        expect(e.path).toBe(refused.path);
        // the path, what is wrong, then what to do
        expect(e.message.startsWith(`${refused.path}: `), e.message).toBe(true);
        expect(e.message.slice(refused.path.length + 2), e.message).toMatch(/; \w/);
        expect(e.message, "no doubled word").not.toMatch(/\b(\w+) \1\b/);
        const api = toApiError(e);
        expect([api.status, api.param, api.code]).toEqual([400, "tools", "invalid_tool_schema"]);
        return;
      }
      const differences: string[] = [];
      for (const [mode, pretty] of [
        ["single", false],
        ["any", true],
      ] as const) {
        for (const r of judgeSuite([g], (schema) => acceptor(schema, { whitespace: mode }), { pretty })) {
          const expected = DEVIATIONS[r.name]?.verdict ?? "pass";
          if (r.verdict !== expected)
            differences.push(
              `${mode}: ${r.name}: ${r.verdict}, expected ${expected}${r.text === undefined ? "" : ` (${JSON.stringify(r.text)})`}${r.error ? ` (${r.error})` : ""}`,
            );
        }
      }
      expect(differences).toEqual([]);
    },
    60_000,
  );
});

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a !== null && typeof a === "object") {
    if (b === null || typeof b !== "object" || Array.isArray(b)) return false;
    const ka = Object.keys(a),
      kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) => k in b && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

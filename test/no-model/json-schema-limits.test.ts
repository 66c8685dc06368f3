// What a schema may ask of the lowering: each bound a client can reach is a GrammarLimitError
// naming the limit and the schema path, raised while lowering (before any native work), which
// the server answers with a 400; and the lowering's output grows linearly with the schema.
import { describe, expect, it } from "vitest";
import { jsonSchemaToIR, lowerJsonSchemas } from "../../src/grammar/json-schema/index.js";
import { GrammarLimitError, type GrammarLimit } from "../../src/grammar/errors.js";
import { COUNT_ABOVE, SCHEMA_LIMITS } from "../../src/grammar/schema-limits.js";
import { buildToolGrammar } from "../../src/dialects/grammar.js";
import { toApiError } from "../../src/server/errors.js";
import type { Grammar } from "../../src/grammar/ir.js";
import { fn } from "../support/tools.js";

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

function expectLimit(f: () => unknown, limit: GrammarLimit, path: string): GrammarLimitError {
  const e = errorOf(f);
  expect(e, e.message).toBeInstanceOf(GrammarLimitError);
  const g = e as GrammarLimitError;
  expect(g.limit).toBe(limit);
  expect(g.path).toBe(path);
  expect(g.message.startsWith(`${path}: `), g.message).toBe(true);
  expect(g.message).toMatch(/; \S/); // says what to do
  return g;
}

const nestArrays = (d: number, leaf: unknown = { type: "integer" }): unknown => {
  let s = leaf;
  for (let i = 0; i < d; i++) s = { type: "array", items: s };
  return s;
};
const nestObjects = (d: number): unknown => {
  let s: unknown = { type: "integer" };
  for (let i = 0; i < d; i++) s = { type: "object", properties: { a: s }, required: ["a"] };
  return s;
};
const lowered = (dialect: string, tools: unknown[], extra: Record<string, unknown> = {}): Grammar =>
  lowerJsonSchemas(buildToolGrammar({ dialect, tools, toolChoice: "required", ...extra }));
const irBytes = (g: Grammar) => JSON.stringify(g).length;

describe("schema bounds past the stated limits are GrammarLimitErrors with the schema path", () => {
  const L = SCHEMA_LIMITS;
  it.each<[string, unknown, GrammarLimit, string]>([
    [
      "a pattern quantifier past the limit",
      { type: "string", pattern: `^a{1,${L.repetition + 1}}$` },
      "repetition",
      "$.pattern",
    ],
    [
      "nested pattern quantifiers whose product is past the limit",
      { type: "string", pattern: "^((a{1,100}){1,100}){1,100}$" },
      "repetition",
      "$.pattern",
    ],
    [
      "an enum past the limit",
      { enum: Array.from({ length: L.enumValues + 1 }, (_, i) => `v${i}`) },
      "enumValues",
      "$.enum",
    ],
    [
      "more properties than the limit",
      {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: L.properties + 1 }, (_, i) => [`p${i}`, {}])),
      },
      "anyOrderItems",
      "$.properties",
    ],
    [
      "a property name past the limit",
      { type: "object", properties: { ["k".repeat(L.propertyName + 1)]: {} }, additionalProperties: true },
      "nameLength",
      "$.properties",
    ],
    [
      "a required name past the limit",
      { type: "object", required: ["k".repeat(L.propertyName + 1)], additionalProperties: true },
      "nameLength",
      "$.required",
    ],
    [
      "a tuple past the limit",
      { type: "array", prefixItems: Array.from({ length: L.tupleItems + 1 }, () => ({ type: "integer" })) },
      "tupleItems",
      "$.prefixItems",
    ],
    [
      "pattern groups nested past the limit",
      { type: "string", pattern: `${"(".repeat(L.patternGroups + 1)}a${")".repeat(L.patternGroups + 1)}` },
      "schemaNesting",
      "$.pattern",
    ],
    [
      "arrays nested past the limit",
      nestArrays(L.schemaNesting + 5),
      "schemaNesting",
      `$${".items".repeat(L.schemaNesting)}`,
    ],
    [
      "objects nested past the limit",
      nestObjects(L.schemaNesting + 5),
      "schemaNesting",
      `$${".properties.a".repeat(L.schemaNesting)}`,
    ],
  ])("%s", (_name, schema, limit, path) => {
    expectLimit(() => jsonSchemaToIR(schema), limit, path);
  });

  it("bounds at the limits lower", () => {
    expect(() =>
      jsonSchemaToIR({ type: "array", prefixItems: Array.from({ length: L.tupleItems }, () => ({ type: "integer" })) }),
    ).not.toThrow();
    expect(() =>
      jsonSchemaToIR({ type: "string", pattern: `${"(".repeat(L.patternGroups)}a${")".repeat(L.patternGroups)}` }),
    ).not.toThrow();
    expect(() => jsonSchemaToIR({ type: "string", maxLength: L.stringLength })).not.toThrow();
    expect(() => jsonSchemaToIR(nestArrays(L.schemaNesting - 1))).not.toThrow();
    expect(() => jsonSchemaToIR({ enum: Array.from({ length: L.enumValues }, (_, i) => i) })).not.toThrow();
  });

  it("lowering options past the limits are refused too", () => {
    expectLimit(() => jsonSchemaToIR({}, { maxFreeNesting: L.schemaNesting + 1 }), "schemaNesting", "$");
  });

  it("many lengths and item counts add up to a bound, each counted bound as COUNT_ABOVE", () => {
    const many = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`s${i}`, { type: "string", maxLength: 5000 }]),
    );
    const e = expectLimit(
      () => jsonSchemaToIR({ type: "object", properties: many }),
      "repetition",
      `$.properties.s${Math.floor(L.repetitionTotal / COUNT_ABOVE)}.maxLength`,
    );
    expect(e.message).toMatch(/add up to/);
  });

  it("names the tool's path in a tool grammar, in every dialect form", () => {
    const rows = { type: "array", items: { type: "string", pattern: "^a{1,200000}$" } };
    const tools = [
      fn("a", { x: { type: "string" } }),
      fn("b", {}),
      fn("c", { n: { type: "integer" } }),
      fn("d", { rows }),
    ];
    const path = "tools[3].function.parameters.properties.rows.items.pattern";
    for (const dialect of ["hermes", "qwen3-coder", "mistral", "gpt-oss", "llama3"])
      expectLimit(() => lowered(dialect, tools), "repetition", path);
    // A raw XML string value: the raw spelling of the same lowering.
    const raw = [fn("d", { text: { type: "string", pattern: "^a{1,200000}$" } })];
    expectLimit(
      () => lowered("qwen3-coder", raw),
      "repetition",
      "tools[0].function.parameters.properties.text.pattern",
    );
    // Tools given without the { type: "function", function } wrapper.
    expectLimit(
      () => lowered("hermes", [{ name: "e", parameters: { type: "object", properties: { rows } } }]),
      "repetition",
      "tools[0].parameters.properties.rows.items.pattern",
    );
  });

  it("refuses more tools than the limit before building anything", () => {
    const tools = Array.from({ length: SCHEMA_LIMITS.tools + 1 }, (_, i) => fn(`t${i}`, { p: { type: "string" } }));
    expectLimit(() => buildToolGrammar({ dialect: "hermes", tools }), "tools", "tools");
  });

  it("refuses a maxValueLength past the safe integers", () => {
    expectLimit(
      () => lowered("hermes", [fn("a", { x: { type: "string" } })], { maxValueLength: 2 ** 53 }),
      "stringLength",
      "maxValueLength",
    );
  });

  it("the server answers each with 400 grammar_too_large, param tools", () => {
    const e = errorOf(() => lowered("hermes", [fn("a", { s: { type: "string", pattern: "^a{1,200000}$" } })]));
    const api = toApiError(e);
    expect(api.status).toBe(400);
    expect(api.code).toBe("grammar_too_large");
    expect(api.param).toBe("tools");
    expect(api.message).toMatch(/^tools\[0\]\.function\.parameters\.properties\.s\.pattern: /);
  });
});

describe("length and item bounds of any size lower (the native engine counts them)", () => {
  it.each<[string, unknown]>([
    ["maxLength 1e9", { type: "string", maxLength: 1e9 }],
    ["minLength 2^31 - 1", { type: "string", minLength: 2 ** 31 - 1 }],
    ["maxItems 1e9", { type: "array", items: { type: "integer" }, maxItems: 1e9 }],
    ["minItems 1e9", { type: "array", minItems: 1e9 }],
    ["maxLength 1e300 (no text reaches it: no bound)", { type: "string", maxLength: 1e300 }],
    ["maxStringLength 1e9", { type: "string" }],
  ])("%s", (name, schema) => {
    expect(() =>
      jsonSchemaToIR(schema, name.startsWith("maxStringLength") ? { maxStringLength: 1e9 } : {}),
    ).not.toThrow();
  });

  it("a minLength or minItems no text reaches (past 2^53 - 1) matches no value", () => {
    expect(() => jsonSchemaToIR({ type: "string", minLength: 1e300 })).toThrow(/matches no value/);
    expect(() => jsonSchemaToIR({ type: "array", minItems: 2 ** 53 })).toThrow(/matches no value/);
    expect(() => jsonSchemaToIR({ anyOf: [{ type: "string", minLength: 1e300 }, { type: "null" }] })).not.toThrow();
  });
});

describe("the lowering grows linearly with the schema", () => {
  it("arrays nested twice as deep give about twice the IR, not 2^depth times", () => {
    const size = (d: number) => irBytes(lowered("hermes", [fn("f", { x: nestArrays(d) })]));
    expect(size(24)).toBeLessThan(3 * size(12));
    expect(size(12)).toBeLessThan(3 * size(6));
  });

  it("objects nested twice as deep give about twice the IR", () => {
    const size = (d: number) => irBytes(lowered("hermes", [fn("f", { x: nestObjects(d) })]));
    expect(size(24)).toBeLessThan(3 * size(12));
  });

  it("four times the tools give about four times the IR", () => {
    const tools = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        fn(`t${i}`, {
          p: { type: "string" },
          q: { type: "array", items: { type: "object", properties: { a: { type: "integer" } } } },
        }),
      );
    for (const dialect of ["hermes", "qwen3-coder"]) {
      const size = (n: number) => irBytes(lowered(dialect, tools(n)));
      expect(size(400)).toBeLessThan(6 * size(100));
    }
  });

  it("a schema used in several places is lowered once and referenced", () => {
    // additionalProperties' value schema appears in the first extra member and in the rest of them
    const inner = nestArrays(3, { type: "object", properties: { deep: { type: "string", maxLength: 7 } } });
    const g = jsonSchemaToIR({ type: "object", properties: { a: { type: "integer" } }, additionalProperties: inner });
    const text = JSON.stringify(g);
    expect(text.match(/"max":7[,}]/g)?.length).toBe(1);
  });
});

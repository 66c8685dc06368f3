// What the lowering refuses is refused the same in every dialect, at tool-definition time: every
// keyword refused by name (UNSUPPORTED_HINTS in src/grammar/json-schema/keywords.ts, not a list
// written here), wherever it stands in a tool's parameters and whatever its value, and the
// parameters' top level that a call's named arguments cannot hold. In each dialect the tool
// grammar (built and compiled) and the parser refuse with the same error, keyword, path and
// message: `<path>: "<keyword>" is not supported; <hint>`, the path naming the keyword's place in
// the request, and the server's answer is a 400 invalid_tool_schema. The routes:
// test/test-model/server-refusals.test.ts.
import { describe, expect, it } from "vitest";
import { refusalOf } from "../../scripts/lib/keyword-matrix.mjs";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { UNSUPPORTED_HINTS } from "../../src/grammar/json-schema/keywords.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { toApiError } from "../../src/server/errors.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";

type Schema = Record<string, unknown>;
const PARAMS = "tools[0].function.parameters";

/**
 * Places a schema `s` can stand in a tool's parameters: the parameters (as tools[0], or tools[1]
 * after a plain tool) and the path of `s` in the request.
 */
const PLACES: Array<[string, (s: Schema) => { tools: unknown[]; at: string }]> = [
  ["a string parameter", (s) => one({ properties: { v: { type: "string", ...s } }, required: ["v"] }, "properties.v")],
  ["an untyped optional parameter", (s) => one({ properties: { v: s } }, "properties.v")],
  [
    "a nested property",
    (s) =>
      one(
        { properties: { v: { type: "object", properties: { w: { type: "integer", ...s } } } } },
        "properties.v.properties.w",
      ),
  ],
  ["array items", (s) => one({ properties: { v: { type: "array", items: s } } }, "properties.v.items")],
  ["an anyOf branch", (s) => one({ properties: { v: { anyOf: [{ type: "integer" }, s] } } }, "properties.v.anyOf[1]")],
  ["a $defs entry a $ref names", (s) => one({ properties: { v: { $ref: "#/$defs/d" } }, $defs: { d: s } }, "$defs.d")],
  [
    "a parameter's additionalProperties",
    (s) => one({ properties: { v: { type: "object", additionalProperties: s } } }, "properties.v.additionalProperties"),
  ],
  [
    "propertyNames of the parameters",
    (s) => one({ properties: { v: {} }, propertyNames: { type: "string", ...s } }, "propertyNames"),
  ],
  [
    "additionalProperties of the parameters",
    (s) => one({ properties: { v: {} }, additionalProperties: s }, "additionalProperties"),
  ],
  ["the parameters themselves", (s) => one({ ...s, properties: { v: { type: "string" } } }, "")],
  [
    "the second tool",
    (s) => ({
      tools: [fn("g", { type: "object", properties: {} }), fn("f", { type: "object", properties: { v: s } })],
      at: "tools[1].function.parameters.properties.v",
    }),
  ],
];

function fn(name: string, parameters: unknown) {
  return { type: "function", function: { name, parameters } };
}
function one(parameters: Schema, at: string) {
  return { tools: [fn("f", { type: "object", ...parameters })], at: at === "" ? PARAMS : `${PARAMS}.${at}` };
}

/** Values of every JSON type a keyword may be given (the keyword is refused whatever it holds). */
const VALUES: unknown[] = [{}, true, 0, "x", [{}], null];

/** The refusal of `tools` in `dialect`, by the compiled tool grammar and by the parser; "taken" where one takes them. */
function refusals(dialect: string, tools: unknown[]) {
  let grammar: unknown = "taken";
  try {
    grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" })).dispose();
  } catch (e) {
    grammar = refusalOf(e, toApiError);
  }
  let parser: unknown = "taken";
  try {
    parseToolCalls("", { dialect, tools });
  } catch (e) {
    parser = refusalOf(e, toApiError);
  }
  return { grammar, parser };
}

/** The dialects grouped by their answer: one group when every dialect answers the same. */
function byAnswer(tools: unknown[]): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const d of dialects) {
    const key = JSON.stringify(refusals(d, tools));
    (groups[key] ??= []).push(d);
  }
  return groups;
}

const refusal = (path: string, keyword: string, message: string) => {
  const r = { error: "UnsupportedSchemaError", keyword, path, message, status: 400, code: "invalid_tool_schema" };
  return JSON.stringify({ grammar: r, parser: r });
};

// Lowering only (a refused schema never reaches the native compiler): 14 dialects × 2 × 43 schemas.
const TIMEOUT_MS = 30_000;

describe("refusals are the same in every dialect", () => {
  it(
    "every keyword refused by name is refused with its hint at its path, whatever its value",
    () => {
      const wrong: unknown[] = [];
      for (const [kw, hint] of Object.entries(UNSUPPORTED_HINTS))
        for (const value of VALUES) {
          const { tools, at } = PLACES[0]![1]({ [kw]: value });
          const path = `${at}.${kw}`;
          const got = byAnswer(tools);
          const want = refusal(path, kw, `${path}: "${kw}" is not supported; ${hint}`);
          if (JSON.stringify(got) !== JSON.stringify({ [want]: dialects })) wrong.push({ kw, value, got });
        }
      expect(wrong).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it.each(PLACES.map(([name]) => name))(
    "every keyword refused by name, in %s",
    (name) => {
      const place = PLACES.find(([n]) => n === name)![1];
      const wrong: unknown[] = [];
      for (const [kw, hint] of Object.entries(UNSUPPORTED_HINTS)) {
        const { tools, at } = place({ [kw]: {} });
        const path = `${at}.${kw}`;
        const got = byAnswer(tools);
        const want = refusal(path, kw, `${path}: "${kw}" is not supported; ${hint}`);
        if (JSON.stringify(got) !== JSON.stringify({ [want]: dialects })) wrong.push({ kw, got });
      }
      expect(wrong).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it("an unknown keyword (a typo) is refused, not ignored, the same everywhere", () => {
    for (const [, place] of PLACES) {
      const { tools, at } = place({ maxlength: 3 });
      const path = `${at}.maxlength`;
      const want = refusal(
        path,
        "maxlength",
        `${path}: "maxlength" is not supported (not a JSON Schema keyword this lowering knows); remove it, or prefix vendor extensions with "x-"`,
      );
      expect(byAnswer(tools), path).toEqual({ [want]: dialects });
    }
  });

  // A call's arguments are one object of named parameters: XML and Python calls write each on its
  // own, so what constrains the object as a whole beyond its properties cannot be held there.
  it.each([
    ["anyOf", [{ required: ["v"] }, { required: ["w"] }]],
    ["oneOf", [{ required: ["v"] }, { required: ["w"] }]],
    ["allOf", [{ required: ["v"] }]],
    ["$ref", "#/$defs/args"],
    ["enum", [{ v: "a" }]],
    ["const", { v: "a" }],
    ["nullable", true],
  ])("the parameters' top-level %s is refused in every dialect", (kw, value) => {
    const tools = [
      fn("f", {
        type: "object",
        properties: { v: { type: "string" }, w: { type: "string" } },
        [kw]: value,
        $defs: { args: { type: "object", properties: { v: { type: "string" } }, required: ["v"] } },
      }),
    ];
    const got = byAnswer(tools);
    expect(Object.values(got), JSON.stringify(got, null, 1)).toEqual([dialects]);
    const r = JSON.parse(Object.keys(got)[0]!).grammar;
    expect(r).toMatchObject({ error: "UnsupportedSchemaError", keyword: kw, path: `${PARAMS}.${kw}`, status: 400 });
    expect(r.message).toMatch(/; \w/);
    expect(r.message.startsWith(`${PARAMS}.${kw}: "${kw}" at the top of a tool's parameters is not supported`)).toBe(
      true,
    );
  });

  it.each([
    ["a required name not in properties", { properties: { v: { type: "string" } }, required: ["w"] }],
    [
      "a required name not in properties, additionalProperties a schema",
      { properties: { v: { type: "string" } }, required: ["w"], additionalProperties: { type: "string" } },
    ],
    ["additionalProperties of an unknown type", { properties: {}, additionalProperties: { type: "strin" } }],
    ["additionalProperties with an empty enum", { properties: {}, additionalProperties: { enum: [] } }],
    ["additionalProperties with a broken pattern", { properties: {}, additionalProperties: { pattern: "(" } }],
    [
      "additionalProperties holding a refused keyword deeper",
      { properties: {}, additionalProperties: { type: "object", properties: { w: { not: {} } } } },
    ],
  ])("the parameters' %s: the same refusal in every dialect", (_name, parameters) => {
    const got = byAnswer([fn("f", { type: "object", ...parameters })]);
    expect(Object.values(got), JSON.stringify(got, null, 1)).toEqual([dialects]);
    expect(JSON.parse(Object.keys(got)[0]!).grammar).toMatchObject({ status: 400, code: "invalid_tool_schema" });
  });

  it("untyped parameters are an object: keywords of other types there constrain nothing, in any dialect", () => {
    for (const parameters of [
      { properties: { v: { type: "string" } }, items: { type: "string" } },
      { minLength: 1 },
      { items: { not: {} } },
    ]) {
      const tools = [fn("f", parameters)];
      expect(byAnswer(tools), JSON.stringify(parameters)).toEqual({
        [JSON.stringify({ grammar: "taken", parser: "taken" })]: dialects,
      });
      // hermes writes the arguments as one JSON value: only an object is one
      const accepts = grammarAcceptor(buildToolGrammar({ dialect: "hermes", tools, toolChoice: "required" }));
      try {
        for (const args of ['["a"]', '"ab"', "1", "null"]) {
          const text = `<tool_call>\n{"name": "f", "arguments": ${args}}\n</tool_call>`;
          const r = parseToolCalls(text, { dialect: "hermes", tools });
          expect([accepts(text), r.toolCalls.length], `${JSON.stringify(parameters)}: ${args}`).toEqual([false, 0]);
        }
        expect(accepts('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>')).toBe(true);
      } finally {
        accepts.dispose();
      }
    }
  });

  it("what the parameters' top level may hold compiles in every dialect, and a call without a required argument is refused everywhere", () => {
    const tools = [
      fn("f", {
        type: "object",
        properties: { v: { type: "string" }, w: { $ref: "#/$defs/n" } },
        required: ["v"],
        additionalProperties: false,
        propertyNames: { pattern: "^[a-z]$" },
        $defs: { n: { type: "integer" } },
        title: "t",
        "x-vendor": 1,
      }),
    ];
    for (const d of dialects) {
      const spec = getDialect(d);
      const accepts = grammarAcceptor(buildToolGrammar({ dialect: d, tools, toolChoice: "required" }));
      try {
        const good = writeOutput(spec, [writeCall(spec, "f", [["v", '"a"', "a"]])]);
        const bad = writeOutput(spec, [writeCall(spec, "f", [["w", "1"]])]);
        expect([accepts(good), parseToolCalls(good, { dialect: d, tools }).toolCalls.length], d).toEqual([true, 1]);
        expect([accepts(bad), parseToolCalls(bad, { dialect: d, tools }).toolCalls.length], d).toEqual([false, 0]);
      } finally {
        accepts.dispose();
      }
    }
  });
});

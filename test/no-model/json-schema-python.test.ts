// The "python" syntax of the JSON-schema lowering: the same VALUES as JSON mode, written as
// Python literals (what Seed-OSS's template writes with `| string`). Checked like JSON mode:
// hand tables (reference matcher and the native engine over a byte vocabulary) and a property
// test against ajv on the value each text reads as; where python3 is installed, the literal
// reader and the float spellings are compared with Python itself.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { jsonSchemaToIR, lowerJsonSchemas } from "../../src/grammar/json-schema/index.js";
import { jsonSchema, literal, seq } from "../../src/grammar/builders.js";
import type { GrammarNode, JsonSchemaOptions } from "../../src/grammar/ir.js";
import { pyFloat, pyRepr as pyStr } from "../../src/grammar/python-repr.js";
import { readPythonLiteral } from "../../src/parser/python-literal.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { PROPERTY_SCHEMAS, irAccepts, makeValidator, type CaseStats } from "../support/json-schema-cases.js";
import { arbPyCase, checkPyCase } from "../support/python-literals.js";

const py = (o: JsonSchemaOptions = {}): JsonSchemaOptions => ({ ...o, syntax: "python" });
const weather = {
  type: "object",
  properties: { location: { type: "string" }, unit: { enum: ["c", "f"] } },
  required: ["location"],
};

interface Row {
  name: string;
  schema: unknown;
  options?: JsonSchemaOptions;
  accept: string[];
  reject: string[];
}
const ROWS: Row[] = [
  {
    name: "strings: either quote, Python escapes",
    schema: { type: "string" },
    accept: [
      "'abc'",
      '"abc"',
      "''",
      `'a"b'`,
      `"a'b"`,
      "'a\\'b'",
      "'\\\"'",
      "'\\x41'",
      "'\\xE9'",
      "'\\u00e9'",
      "'\\U0001F600'",
      "'😀'",
      "'\\n\\r\\t\\\\'",
      "'\u2028'",
      "'\\x00'",
    ],
    reject: [
      `'abc"`,
      `"abc'`,
      "'a'b'",
      "abc",
      "'\\ud83d\\ude00'" /* Python does not pair surrogate escapes */,
      "'\\ud800'",
      "'\\U00110000'",
      "'\\x4'",
      "'\\u12'",
      "'\\q'",
      "'\\b'" /* not in the escapes Python's str() writes */,
      "'\\/'",
      "'a\nb'",
      "'\t'",
      "u'abc'",
      "b'abc'",
      "'a' 'b'",
      "'abc'x",
    ],
  },
  {
    name: "string length counts characters (an escape is one)",
    schema: { type: "string", minLength: 2, maxLength: 3 },
    accept: ["'ab'", '"abc"', "'\\x41\\U0001F600'", "'\\'\\\"'"],
    reject: ["'a'", "'abcd'", "'\\U0001F600'", "''"],
  },
  {
    name: "True, False, None",
    schema: { type: ["boolean", "null"] },
    accept: ["True", "False", "None"],
    reject: ["true", "false", "null", "'True'", "TRUE", "none"],
  },
  {
    name: "numbers as Python writes them; no inf or nan",
    schema: { type: "number" },
    accept: ["2.5", "1e-05", "1e+16", "1.0", "-0.0", "0", "-3", "1.5e+300"],
    reject: ["inf", "nan", "-inf", "float('inf')", ".5", "1.", "1_000", "0x10", "+1", "True"],
  },
  {
    name: "integers: digits only",
    schema: { type: "integer", minimum: 0, maximum: 20 },
    accept: ["0", "5", "20"],
    reject: ["5.0", "21", "-1", "True", "05"],
  },
  {
    name: "objects: keys in either quote, declared names spelled plainly, closed",
    schema: weather,
    accept: ["{'location': 'Paris'}", `{"location": "Paris", 'unit': 'c'}`, `{'unit': "f",'location': 'x'}`],
    reject: [
      "{}",
      "{'location': 'a', 'extra': 1}",
      "{'location': 'a', 'location': 'b'}",
      "{location: 'a'}",
      "{'\\x6cocation': 'a'}" /* like JSON mode: declared names have one spelling per quote */,
      "{'location': 'a', 'unit': 'k'}",
      `{"location":"a"}x`,
      "{'location': 'a',}",
      "{'location'  : 'a'}",
    ],
  },
  {
    name: "enum/const: Python spellings of the values",
    schema: { enum: [1, "a", null, { k: [1, 2] }, true, 1.5e300, 0.00001, "it's"] },
    accept: ["1", "1.0", "'a'", '"a"', "None", "{'k': [1, 2]}", "True", "1.5e+300", "1e-05", `"it's"`, "'it\\'s'"],
    reject: ['{"k":[1,2]}', "{'k':[1,2]}", "true", "null", "2", "1e-5", "0.00001", '"a" ', "'b'"],
  },
  {
    name: "arrays: lists only",
    schema: { type: "array", items: { type: "string" }, maxItems: 2 },
    accept: ["['a', 'b']", '["a","b"]', "[]"],
    reject: ["('a', 'b')", "{'a', 'b'}", "['a', 'b', 'c']", "['a',]", "[1]"],
  },
  {
    name: "free-form values",
    schema: { type: "object" },
    accept: ["{'lang': 'ts', 'deep': {'n': [1, 2]}}", "{'a': None, 'b': True, 'c': [1.5, \"x\"]}", "{}"],
    reject: ["{1: 'a'}", "{'a': true}", "{'a': null}", "{'a': (1, 2)}", '{"a": b"x"}'],
  },
  {
    name: "pattern: any spelling of the matching characters",
    schema: { type: "string", pattern: "^[A-Z]{3}$" },
    accept: ["'USD'", '"\\x55SD"', "'\\U00000055SD'", "'U\\u0053D'"],
    reject: ["'usd'", "'USDX'", "USD"],
  },
  {
    name: "undeclared keys never equal a declared name, in any quote or escape",
    schema: { type: "object", properties: { name: { type: "string" } }, additionalProperties: { type: "integer" } },
    accept: ["{'name': 'x', 'names': 1}", '{"nam": 5}', "{'n\\x61mf': 1}"],
    reject: ["{'n\\x61me': 5}", '{"name": 5}', "{'nam\\U00000065': 5}"],
  },
  {
    name: "whitespace any",
    schema: { type: "object", properties: { a: { type: "array", items: { type: "integer" } } } },
    options: { whitespace: "any" },
    accept: ["{ 'a' : [ 1 ,\n 2 ] }", "{'a':[1,2]}"],
    reject: [" {'a': [1]}", "{'a': [1]} "],
  },
];

describe("python syntax: tables (reference matcher and the engine)", () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const options = py(row.options);
      const ir = jsonSchemaToIR(row.schema, options);
      const node = jsonSchema(row.schema, options);
      for (const t of row.accept) {
        expect(irAccepts(ir, t), `reference matcher should accept ${JSON.stringify(t)}`).toBe(true);
        expect(grammarAccepts(node, t), `engine should accept ${JSON.stringify(t)}`).toBe(true);
      }
      for (const t of row.reject) {
        expect(irAccepts(ir, t), `reference matcher should reject ${JSON.stringify(t)}`).toBe(false);
        expect(grammarAccepts(node, t), `engine should reject ${JSON.stringify(t)}`).toBe(false);
      }
    });
  }

  it("JSON and Python values in one grammar keep their own shared rules", () => {
    const g = lowerJsonSchemas({
      root: seq(
        jsonSchema({ type: "string" }),
        literal("|"),
        jsonSchema({ type: "string" }, { syntax: "python" }),
      ) as GrammarNode,
    });
    expect(irAccepts(g as { root: GrammarNode }, `"a"|'b'`)).toBe(true);
    expect(irAccepts(g as { root: GrammarNode }, `'a'|'b'`)).toBe(false);
    expect(irAccepts(g as { root: GrammarNode }, `"a"|"\\x62"`)).toBe(true);
    expect(irAccepts(g as { root: GrammarNode }, `"\\x61"|'b'`)).toBe(false);
  });

  it("an unknown syntax is an error that names the option", () => {
    expect(() => jsonSchemaToIR({ type: "string" }, { syntax: "yaml" as "json" })).toThrow(
      /JsonSchemaOptions\.syntax must be "json", "python" or "raw", got "yaml"/,
    );
  });
});

/** Texts each property test produced, for the Python cross-check below. */
const produced: string[] = [];

describe("python syntax: language (reference matcher) agrees with ajv", () => {
  for (const ps of PROPERTY_SCHEMAS) {
    it(ps.name, () => {
      const pps = { ...ps, options: py(ps.options) };
      const ir = jsonSchemaToIR(ps.schema, pps.options);
      const valid = makeValidator(ps.schema);
      const stats: CaseStats = { valid: 0, invalid: 0, notJson: 0 };
      fc.assert(
        fc.property(arbPyCase(pps), (c) => {
          produced.push(checkPyCase(pps, (t) => irAccepts(ir, t), valid, c, stats));
        }),
        { numRuns: 200, seed: 42 },
      );
      expect(stats.valid).toBeGreaterThan(10);
      if (ps.schema !== true) expect(stats.invalid).toBeGreaterThan(10);
      expect(stats.notJson).toBeGreaterThan(10);
    });
  }
});

describe("python syntax: the engine agrees with the reference matcher", () => {
  for (const ps of PROPERTY_SCHEMAS.filter((p) =>
    ["weather tool", "tuple", "enum/const mix", "open object", "pattern, anchored"].includes(p.name),
  )) {
    it(ps.name, () => {
      const pps = { ...ps, options: py(ps.options) };
      const ir = jsonSchemaToIR(ps.schema, pps.options);
      const node = jsonSchema(ps.schema, pps.options);
      const valid = makeValidator(ps.schema);
      const stats: CaseStats = { valid: 0, invalid: 0, notJson: 0 };
      fc.assert(
        fc.property(arbPyCase(pps), (c) => {
          const text = checkPyCase(pps, (t) => irAccepts(ir, t), valid, c, stats);
          expect(grammarAccepts(node, text), JSON.stringify(text)).toBe(irAccepts(ir, text));
        }),
        { numRuns: 40, seed: 7 },
      );
    });
  }
});

const hasPython = (() => {
  try {
    execFileSync("python3", ["-c", "pass"]);
    return true;
  } catch {
    return false;
  }
})();

/** Runs `code` in python3 with `input` as JSON on stdin; its stdout as JSON. */
function python(code: string, input: unknown): unknown {
  return JSON.parse(
    execFileSync("python3", ["-c", code], { input: JSON.stringify(input), encoding: "utf8", maxBuffer: 64 << 20 }),
  );
}

describe.skipIf(!hasPython)("against Python itself (python3)", () => {
  it("the literal reader reads what ast.literal_eval reads, and refuses what it refuses", () => {
    const extra = [
      "1e999",
      "-1e999",
      "{'a': (1, 2)}",
      "[1,]",
      "'a' 'b'",
      "1_0",
      "{1: 2}",
      "'\\ud83d\\ude00'",
      "'\\N{BULLET}'",
      "-0.0",
      "'\\U0001f600'",
    ];
    const texts = [...new Set([...produced, ...extra])];
    expect(texts.length).toBeGreaterThan(1000);
    const theirs = python(
      String.raw`
import ast, json, math, sys
def finite(v):  # inf is Infinity in JS, which JSON writes as null
    if isinstance(v, float) and not math.isfinite(v): return None
    if isinstance(v, list): return [finite(x) for x in v]
    if isinstance(v, dict): return {k: finite(x) for k, x in v.items()}
    return v
out = []
for t in json.load(sys.stdin):
    try:
        v = finite(ast.literal_eval(t))
        if isinstance(v, dict) and any(not isinstance(k, str) for k in v): raise ValueError
        if isinstance(v, str) and any(0xd800 <= ord(c) <= 0xdfff for c in v): raise ValueError
        out.append(json.dumps(v, sort_keys=True, allow_nan=False))
    except Exception:
        out.append(None)
print(json.dumps(out))`,
      texts,
    ) as Array<string | null>;
    const sorted = (v: unknown) =>
      JSON.stringify(v, (_k, x: unknown) =>
        x && typeof x === "object" && !Array.isArray(x)
          ? Object.fromEntries(
              Object.keys(x)
                .sort()
                .map((k) => [k, (x as Record<string, unknown>)[k]]),
            )
          : x,
      );
    texts.forEach((t, i) => {
      let ours: string | null;
      try {
        ours = sorted(readPythonLiteral(t));
      } catch {
        ours = null;
      }
      // Python reads more (tuples, sets, 1_0, …): where ours reads, the value must be Python's
      if (ours === null) return;
      expect(theirs[i], `Python refuses ${JSON.stringify(t)}`).not.toBeNull();
      expect(ours, JSON.stringify(t)).toBe(sorted(JSON.parse(theirs[i]!)));
    });
  });

  it("str() spellings: floats and nested values print as Python prints them", () => {
    const floats = [
      2.5, 0.25, 1e-5, 1e16, 1e15, 123456789.125, 1.5e300, -0.001, 0.0001, 5e-324, 1.7976931348623157e308, 0, 100, 1e22,
    ];
    // Random doubles over the whole range, by their bits (seeded: the same every run).
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const bits = new DataView(new ArrayBuffer(8));
    for (let i = 0; i < 300; i++) {
      bits.setUint32(0, next());
      bits.setUint32(4, next());
      const x = bits.getFloat64(0);
      if (Number.isFinite(x)) floats.push(x);
    }
    for (let i = 0; i < 100; i++) floats.push((next() % 2_000_000) / 1000 - 1000);
    expect(floats.map(pyFloat)).toEqual(
      python("import json,sys; print(json.dumps([repr(float(x)) for x in json.load(sys.stdin)]))", floats),
    );
    const values = [
      { lang: "ts", deep: { n: [1, 2] } },
      ["a", "it's", 'say "hi"', "both ' \""],
      [true, false, null],
      "tab\tnl\n\\",
      "",
      "nbsp\u00a0 soft\u00ad zwj\u200d ls\u2028 del\u007f c1\u0085 private\ue000 e\u0301 😀 \u{10ffff}",
      { "k\u0000": [2.5, 1e-7, 1e300, 12] },
    ];
    expect(values.map((v) => pyStr(v))).toEqual(
      python(
        "import json,sys; print(json.dumps([str(v) if not isinstance(v, str) else repr(v) for v in json.load(sys.stdin)]))",
        values,
      ),
    );
  });
});

// Structure-level tests of the JSON Schema lowering: no native engine needed. The language of
// the lowered grammar is checked with a brute-force reference matcher (json-schema-cases.ts).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  jsonSchemaToIR,
  lowerJsonSchemas,
  UnsupportedSchemaError,
  InvalidSchemaError,
  JSON_WS_MAX,
} from "../../src/grammar/json-schema/index.js";
import { jsonSchema, literal, seq, ref } from "../../src/grammar/builders.js";
import type { Grammar, GrammarNode } from "../../src/grammar/ir.js";
import {
  ACCEPTANCE,
  PROPERTY_SCHEMAS,
  arbCase,
  checkCase,
  irAccepts,
  makeValidator,
  type CaseStats,
} from "../support/json-schema-cases.js";

function nodes(n: GrammarNode, out: GrammarNode[] = []): GrammarNode[] {
  out.push(n);
  switch (n.type) {
    case "seq":
    case "alt":
      n.items.forEach((i) => nodes(i, out));
      break;
    case "repeat":
      nodes(n.item, out);
      break;
    case "perm":
      n.items.forEach((i) => nodes(i.node, out));
      if (n.separator) nodes(n.separator, out);
      break;
  }
  return out;
}
const allNodes = (g: Grammar) => [g.root, ...Object.values(g.rules ?? {})].flatMap((n) => nodes(n));

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

describe("unsupported keywords: UnsupportedSchemaError naming the JSON path", () => {
  const cases: Array<[string, unknown, string, string]> = [
    [
      "pattern: lookahead",
      { type: "array", items: { type: "string", pattern: "^(?=a)" } },
      "$.items.pattern",
      "pattern",
    ],
    ["pattern: backreference", { pattern: "(a)\\1" }, "$.pattern", "pattern"],
    ["pattern: word boundary", { pattern: "\\bfoo" }, "$.pattern", "pattern"],
    ["pattern: property escape", { pattern: "^\\p{L}+$" }, "$.pattern", "pattern"],
    ["pattern: anchor inside", { pattern: "a^b" }, "$.pattern", "pattern"],
    ["pattern: $ inside", { pattern: "(a$)" }, "$.pattern", "pattern"],
    ["multipleOf", { type: "integer", multipleOf: 2 }, "$.multipleOf", "multipleOf"],
    ["minProperties", { type: "object", minProperties: 1 }, "$.minProperties", "minProperties"],
    ["maxProperties", { type: "object", maxProperties: 1 }, "$.maxProperties", "maxProperties"],
    [
      "patternProperties",
      { type: "object", patternProperties: { "^x": {} } },
      "$.patternProperties",
      "patternProperties",
    ],
    ["format in propertyNames", { propertyNames: { format: "email" } }, "$.propertyNames.format", "format"],
    [
      "propertyNames: pattern with maxLength",
      { propertyNames: { pattern: "^a", maxLength: 3 } },
      "$.propertyNames.pattern",
      "pattern",
    ],
    ["uniqueItems", { type: "array", uniqueItems: true }, "$.uniqueItems", "uniqueItems"],
    ["contains", { type: "array", contains: { type: "integer" } }, "$.contains", "contains"],
    ["not", { anyOf: [{ type: "string" }, { not: { type: "string" } }] }, "$.anyOf[1].not", "not"],
    ["if", { if: { type: "string" }, then: { minLength: 1 } }, "$.if", "if"],
    [
      "dependentRequired",
      { type: "object", dependentRequired: { a: ["b"] } },
      "$.dependentRequired",
      "dependentRequired",
    ],
    [
      "unevaluatedProperties",
      { type: "object", unevaluatedProperties: false },
      "$.unevaluatedProperties",
      "unevaluatedProperties",
    ],
    ["$dynamicRef", { $dynamicRef: "#node" }, "$.$dynamicRef", "$dynamicRef"],
    ["unknown keyword", { type: "string", maxlength: 3 }, "$.maxlength", "maxlength"],
    ["key needing brackets", { properties: { "a b": { contains: {} } } }, '$.properties["a b"].contains', "contains"],
    [
      "inside a $ref target",
      { $defs: { X: { type: "array", contains: {} } }, properties: { e: { $ref: "#/$defs/X" } } },
      "$.$defs.X.contains",
      "contains",
    ],
    ["allOf of two object schemas", { allOf: [{ properties: { a: {} } }, { required: ["a"] }] }, "$.allOf", "allOf"],
    ["allOf of a string schema and an enum", { allOf: [{ type: "string" }, { enum: ["a"] }] }, "$.allOf", "allOf"],
    ["allOf beside a number bound", { maximum: 3, allOf: [{ minLength: 1 }] }, "$.allOf", "allOf"],
    [
      "anyOf next to properties",
      { type: "object", properties: { a: {} }, anyOf: [{ required: ["a"] }] },
      "$.anyOf",
      "anyOf",
    ],
    ["$ref next to anyOf", { $defs: { a: {} }, $ref: "#/$defs/a", anyOf: [{}] }, "$.anyOf", "anyOf"],
    ["integer bound past 308 digits", { type: "integer", minimum: 1e308 }, "$.minimum", "minimum"],
    [
      "negative integer bound past 308 digits",
      { type: "integer", exclusiveMaximum: -1e308 },
      "$.exclusiveMaximum",
      "exclusiveMaximum",
    ],
    ["remote $ref", { $ref: "https://example.com/s.json" }, "$.$ref", "$ref"],
    ["anchor $ref", { $ref: "#node" }, "$.$ref", "$ref"],
  ];
  it.each(cases)("%s", (_name, schema, path, keyword) => {
    const e = errorOf(() => jsonSchemaToIR(schema));
    expect(e).toBeInstanceOf(UnsupportedSchemaError);
    expect(e.name).toBe("UnsupportedSchemaError");
    expect((e as UnsupportedSchemaError).path).toBe(path);
    expect((e as UnsupportedSchemaError).keyword).toBe(keyword);
    expect(e.message.startsWith(`${path}: "${keyword}"`)).toBe(true);
    expect(e.message).toMatch(/; \S/); // says what to do
    expect(e.message).not.toMatch(/\b(\w+) \1\b/); // reads as written ("or or" did not)
  });

  it("has the documented message shape", () => {
    const e = errorOf(() => jsonSchemaToIR({ type: "object", properties: { path: { type: "array", contains: {} } } }));
    expect(String(e)).toMatch(
      /^UnsupportedSchemaError: \$\.properties\.path\.contains: "contains" is not supported; remove it/,
    );
  });

  it("uses the caller's path prefix", () => {
    const e = errorOf(() => jsonSchemaToIR({ type: "array", contains: {} }, {}, "tools[0].parameters"));
    expect((e as UnsupportedSchemaError).path).toBe("tools[0].parameters.contains");
  });

  it("does not look into $defs that nothing references", () => {
    expect(() => jsonSchemaToIR({ type: "string", $defs: { unused: { contains: {} } } })).not.toThrow();
  });
});

describe("invalid schemas: InvalidSchemaError naming the JSON path", () => {
  const cases: Array<[string, unknown, string]> = [
    ["not a schema", 5, "$"],
    ["bad type name", { type: "str" }, "$.type"],
    ["required not an array", { type: "object", required: "a" }, "$.required"],
    ["negative minLength", { type: "string", minLength: -1 }, "$.minLength"],
    ["nullable without type", { nullable: true, enum: ["a"] }, "$.nullable"],
    ["empty enum", { enum: [] }, "$.enum"],
    ["non-JSON enum value", { enum: [Number.NaN] }, "$.enum[0]"],
    [
      "required but undeclared in a closed object",
      { type: "object", properties: { a: {} }, required: ["b"] },
      "$.required",
    ],
    [
      "required property whose schema is false",
      { type: "object", properties: { a: false }, required: ["a"] },
      "$.required",
    ],
    ["false schema", false, "$"],
    ["enum values all excluded by siblings", { type: "string", enum: [1, 2] }, "$"],
    ["$ref to nothing", { $ref: "#/$defs/missing" }, "$.$ref"],
    [
      "draft-04 boolean exclusiveMinimum",
      { type: "integer", minimum: 1, exclusiveMinimum: true },
      "$.exclusiveMinimum",
    ],
    ["subschema not a schema", { type: "object", properties: { a: 3 } }, "$.properties.a"],
    ["items not a schema", { type: "array", items: 3 }, "$.items"],
    ["minLength > maxLength", { type: "string", minLength: 3, maxLength: 2 }, "$"],
    ["invalid pattern", { type: "string", pattern: "[a-" }, "$.pattern"],
    ["pattern not a string", { type: "string", pattern: 1 }, "$.pattern"],
  ];
  it.each(cases)("%s", (_name, schema, path) => {
    const e = errorOf(() => jsonSchemaToIR(schema));
    expect(e).toBeInstanceOf(InvalidSchemaError);
    expect((e as InvalidSchemaError).path).toBe(path);
    expect(e.message.startsWith(`${path}: `)).toBe(true);
  });

  it("rejects bad options with a RangeError", () => {
    expect(() => jsonSchemaToIR({}, { whitespace: "pretty" as never })).toThrow(RangeError);
    expect(() => jsonSchemaToIR({}, { maxFreeNesting: -1 })).toThrow(RangeError);
  });
});

describe("structure", () => {
  it("ignores annotation keywords and x- extensions", () => {
    const plain = jsonSchemaToIR({ type: "string" });
    const annotated = jsonSchemaToIR({
      type: "string",
      title: "t",
      description: "d",
      examples: ["a"],
      example: "a",
      default: "a",
      $comment: "c",
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "urn:x",
      deprecated: false,
      readOnly: true,
      writeOnly: false,
      "x-vendor": { a: 1 },
    });
    expect(annotated).toEqual(plain);
  });

  it("emits enum and const values as their JSON.stringify text", () => {
    expect(jsonSchemaToIR({ enum: ["a", 1, { b: [1, 2] }, null, "a"] }).root).toEqual({
      type: "alt",
      items: [literal('"a"'), literal("1"), literal('{"b":[1,2]}'), literal("null")],
    });
    expect(jsonSchemaToIR({ const: "é\n" }).root).toEqual(literal('"é\\n"'));
    expect(jsonSchemaToIR({ const: 1.0 }).root).toEqual(literal("1"));
  });

  it("lowers properties to a perm node with a ', ?' separator", () => {
    const { root } = jsonSchemaToIR({
      type: "object",
      properties: { a: { type: "null" }, b: { type: "boolean" } },
      required: ["b"],
    });
    const perm = nodes(root).find((n) => n.type === "perm");
    expect(perm).toBeDefined();
    if (perm?.type !== "perm") return;
    expect(perm.items.map((i) => i.required)).toEqual([false, true]);
    expect(perm.separator).toEqual(seq(literal(","), { type: "repeat", item: literal(" "), min: 0, max: 1 }));
  });

  it("turns $ref into ref nodes with rules, so recursion is a cycle of rules", () => {
    const ir = jsonSchemaToIR(ACCEPTANCE.find((c) => c.name.startsWith("$ref: recursive"))!.schema);
    expect(ir.root).toEqual(ref("json.ref#/$defs/node"));
    const rule = ir.rules["json.ref#/$defs/node"];
    expect(rule).toBeDefined();
    expect(nodes(rule!).some((n) => n.type === "ref" && n.name === "json.ref#/$defs/node")).toBe(true);
  });

  it("keeps every ref resolvable and the IR plain JSON data", () => {
    for (const c of [...ACCEPTANCE, ...PROPERTY_SCHEMAS]) {
      const ir = jsonSchemaToIR(c.schema, c.options);
      for (const n of allNodes(ir)) {
        expect(n.type).not.toBe("jsonSchema");
        if (n.type === "ref") expect(ir.rules[n.name], `${c.name}: ${n.name}`).toBeDefined();
      }
      expect(JSON.parse(JSON.stringify(ir))).toEqual(ir);
      expect(jsonSchemaToIR(c.schema, c.options)).toEqual(ir); // deterministic
    }
  });

  it("whitespace options change only the gaps", () => {
    const schema = { type: "object", properties: { a: { type: "array", items: { type: "integer" } } } };
    const compact = allNodes(jsonSchemaToIR(schema, { whitespace: "compact" }));
    expect(compact.some((n) => n.type === "literal" && n.text.includes(" "))).toBe(false);
    const single = allNodes(jsonSchemaToIR(schema));
    expect(
      single.some((n) => n.type === "repeat" && n.item.type === "literal" && n.item.text === " " && n.max === 1),
    ).toBe(true);
    const any = allNodes(jsonSchemaToIR(schema, { whitespace: "any" }));
    expect(any.some((n) => n.type === "repeat" && n.max === JSON_WS_MAX && n.item.type === "charClass")).toBe(true);
  });

  it("maxFreeNesting bounds free-form values", () => {
    const at = (n: number) => jsonSchemaToIR({ type: "object" }, { maxFreeNesting: n });
    expect(irAccepts(at(0), "{}")).toBe(true);
    expect(irAccepts(at(0), '{"a":1}')).toBe(false);
    expect(irAccepts(at(1), '{"a":1}')).toBe(true);
    expect(irAccepts(at(1), '{"a":[]}')).toBe(false);
    expect(irAccepts(at(2), '{"a":[{}]}')).toBe(false);
    expect(irAccepts(at(3), '{"a":[{}]}')).toBe(true);
    expect(irAccepts(jsonSchemaToIR(true, { maxFreeNesting: 1 }), "[[]]")).toBe(false);
    expect(irAccepts(jsonSchemaToIR(true, { maxFreeNesting: 1 }), "[1]")).toBe(true);
  });
});

describe("lowerJsonSchemas", () => {
  const node = { $defs: { v: { type: "integer" } }, type: "object", properties: { v: { $ref: "#/$defs/v" } } };
  const other = { $defs: { v: { type: "string" } }, type: "array", items: { $ref: "#/$defs/v" } };

  it("replaces every jsonSchema node, in the root and in rules, with unique rule names", () => {
    const g: Grammar = {
      root: seq(literal("<a>"), jsonSchema(node), literal("</a>"), ref("b")),
      rules: { b: seq(literal("<b>"), jsonSchema(other, { whitespace: "compact" }), literal("</b>")) },
      maxRecursionDepth: 5,
    };
    const out = lowerJsonSchemas(g);
    expect(out.maxRecursionDepth).toBe(5);
    expect(out.rules?.b).toBeDefined();
    for (const n of allNodes(out)) {
      expect(n.type).not.toBe("jsonSchema");
      if (n.type === "ref") expect(out.rules?.[n.name], n.name).toBeDefined();
    }
    const refRules = Object.keys(out.rules ?? {}).filter((k) => k.includes("ref#/$defs/v"));
    expect(refRules).toHaveLength(2);
    expect(irAccepts(out, '<a>{"v":1}</a><b>["x","y"]</b>')).toBe(true);
    expect(irAccepts(out, '<a>{"v":"x"}</a><b>["x","y"]</b>')).toBe(false);
    expect(irAccepts(out, '<a>{"v":1}</a><b>["x", "y"]</b>')).toBe(false); // compact there
    // the input grammar is not modified
    expect(JSON.stringify(g)).not.toContain('"ref#');
  });

  it("avoids rule names the grammar already uses", () => {
    const g: Grammar = {
      root: seq(jsonSchema({ type: "string" }), ref("json.string")),
      rules: { "json.string": literal("!") },
    };
    const out = lowerJsonSchemas(g);
    expect(out.rules?.["json.string"]).toEqual(literal("!"));
    expect(irAccepts(out, '"x"!')).toBe(true);
  });

  it("leaves malformed nodes for the native compiler to report", () => {
    const bad = { type: "seq", items: "x" } as unknown as GrammarNode;
    const out = lowerJsonSchemas({
      root: seq(jsonSchema({ type: "null" }), bad, { type: "perm", items: "y" } as unknown as GrammarNode),
    });
    expect(out.root).toEqual(seq(literal("null"), bad, { type: "perm", items: "y" } as unknown as GrammarNode));
    expect(lowerJsonSchemas({ root: bad, rules: "z" as never }).root).toBe(bad);
  });

  it("returns a grammar without jsonSchema nodes unchanged", () => {
    const g: Grammar = { root: literal("x") };
    expect(lowerJsonSchemas(g)).toBe(g);
  });
});

describe("language (reference matcher): acceptance tables", () => {
  for (const c of ACCEPTANCE) {
    it(c.name, () => {
      const ir = jsonSchemaToIR(c.schema, c.options);
      for (const t of c.accept) expect(irAccepts(ir, t), `should accept ${JSON.stringify(t)}`).toBe(true);
      for (const t of c.reject) expect(irAccepts(ir, t), `should reject ${JSON.stringify(t)}`).toBe(false);
    });
  }
});

describe("language (reference matcher) agrees with ajv", () => {
  for (const ps of PROPERTY_SCHEMAS) {
    it(ps.name, () => {
      const ir = jsonSchemaToIR(ps.schema, ps.options);
      const valid = makeValidator(ps.schema);
      const stats: CaseStats = { valid: 0, invalid: 0, notJson: 0 };
      fc.assert(
        fc.property(arbCase(ps), (c) => checkCase(ps, (t) => irAccepts(ir, t), valid, c, stats)),
        { numRuns: 200, seed: 42 },
      );
      expect(stats.valid).toBeGreaterThan(10);
      if (ps.schema !== true) expect(stats.invalid).toBeGreaterThan(10);
      expect(stats.notJson).toBeGreaterThan(10);
    });
  }
});

describe("pattern agrees with RegExp(pattern, 'u').test on the decoded string", () => {
  const patterns = [
    "",
    "^$",
    "a",
    "^a",
    "a$",
    "^a$",
    "a|",
    "|a",
    "^(a|)$",
    "^a??b*?$",
    "^(?:ab){2,}$",
    "^(?<n>x)y$",
    "[\\]\\-\\\\]",
    "^[a-]+$",
    "^[-a]$",
    "^[^]$",
    "a[]|b",
    "^[^a-c]{2}$",
    "\\cJ",
    "^\\x41\\u0042\\u{43}$",
    "\\u{1F600}",
    "^\\0$",
    "\\/\\.",
    "^.$",
    "^\\S\\s\\S$",
    "^\\W+$",
    "^\\D$",
    "[\\d\\s]",
    "^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$",
    "^(a|ab)(c|bcd)(d*)$",
    "^(\\+|-)?\\d+$",
    "\\ud83d\\ude00",
    "^[😀-😂é\\u{10000}-\\u{10002}]+$",
    "^\\t\\n\\v\\f\\r$",
    "^[\\b]$",
    "a{0}b",
    "^(?:a{1,2}){2}$",
    "^\\$\\^\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|$",
  ];
  const unit = fc.constantFrom(
    "a",
    "b",
    "c",
    "d",
    "x",
    "y",
    "A",
    "B",
    "C",
    "@",
    ".",
    "-",
    "+",
    "0",
    "1",
    " ",
    "\t",
    "\n",
    "\r",
    "\v",
    "\f",
    "\b",
    "\0",
    "é",
    "😀",
    "😁",
    "😃",
    "\u{10001}",
    "]",
    "\\",
    "/",
    "$",
    "^",
    "*",
    "?",
    "(",
    ")",
    "[",
    "{",
    "}",
    "|",
    "_",
    "\u2028",
  );
  for (const p of patterns) {
    it(JSON.stringify(p), () => {
      const ir = jsonSchemaToIR({ type: "string", pattern: p });
      const re = new RegExp(p, "u");
      fc.assert(
        fc.property(fc.string({ unit, maxLength: 8 }), fc.boolean(), (str, escaped) => {
          // a fully \u-escaped spelling too: the pattern applies to the decoded value
          const text = escaped
            ? '"' +
              Array.from(
                { length: str.length },
                (_, k) => "\\u" + str.charCodeAt(k).toString(16).padStart(4, "0"),
              ).join("") +
              '"'
            : JSON.stringify(str);
          expect(irAccepts(ir, text), `${JSON.stringify(p)} on ${text}`).toBe(re.test(str));
        }),
        {
          numRuns: 300,
          seed: 7,
          examples: [
            ["", false],
            ["a", false],
            ["ab", true],
          ],
        },
      );
    });
  }
});

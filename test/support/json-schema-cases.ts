// Shared by json-schema-lowering.test.ts (run against a reference IR matcher, no engine needed)
// and json-schema-acceptance.test.ts (run against the native engine): acceptance tables,
// property-test schemas, value generators, a whitespace-aware serializer and the ajv oracle.
import fc from "fast-check";
import Ajv2020Module from "ajv/dist/2020.js";
import type { GrammarNode, JsonSchemaOptions } from "../../src/grammar/ir.js";
import { type Json, type ValueSyntax, renderForSchema, resolveRef as resolve } from "./schema-text.js";
import { NUMBER_RANGE_CASES } from "./number-range-cases.js";

// ---------------------------------------------------------------------------------------------
// Reference matcher: the language of an IR grammar, by brute force (end-position sets).
// Only the node kinds the JSON-schema lowering emits are implemented.

export function irAccepts(g: { root: GrammarNode; rules?: Record<string, GrammarNode> }, text: string): boolean {
  const cps = Array.from(text, (c) => c.codePointAt(0)!);
  const memo = new Map<GrammarNode, Map<number, number[]>>();
  const active = new Set<string>();
  const litCache = new Map<string, number[]>();
  const ends = (n: GrammarNode, pos: number): number[] => {
    let m = memo.get(n);
    if (!m) {
      m = new Map();
      memo.set(n, m);
    }
    const hit = m.get(pos);
    if (hit) return hit;
    const r = [...new Set(compute(n, pos))];
    m.set(pos, r);
    return r;
  };
  const compute = (n: GrammarNode, pos: number): number[] => {
    switch (n.type) {
      case "literal": {
        let t = litCache.get(n.text);
        if (!t) {
          t = Array.from(n.text, (c) => c.codePointAt(0)!);
          litCache.set(n.text, t);
        }
        for (let i = 0; i < t.length; i++) if (cps[pos + i] !== t[i]) return [];
        return [pos + t.length];
      }
      case "charClass": {
        const c = cps[pos];
        if (c === undefined) return [];
        const inside = n.ranges.some(([a, b]) => c >= a && c <= b);
        const ok = n.negated ? !inside && !(c >= 0xd800 && c <= 0xdfff) : inside;
        return ok ? [pos + 1] : [];
      }
      case "seq": {
        let cur = [pos];
        for (const it of n.items) {
          const next = new Set<number>();
          for (const p of cur) for (const e of ends(it, p)) next.add(e);
          cur = [...next];
          if (cur.length === 0) return [];
        }
        return cur;
      }
      case "alt":
        return n.items.flatMap((it) => ends(it, pos));
      case "repeat": {
        const out = new Set<number>();
        if (n.min === 0) out.add(pos);
        let frontier = new Set([pos]);
        const seenAfterMin = new Set<number>(n.min === 0 ? [pos] : []);
        for (let count = 1; n.max === null || count <= n.max; count++) {
          const next = new Set<number>();
          for (const p of frontier) for (const e of ends(n.item, p)) next.add(e);
          if (count >= n.min) {
            for (const e of [...next]) {
              if (seenAfterMin.has(e)) next.delete(e);
              else {
                seenAfterMin.add(e);
                out.add(e);
              }
            }
          }
          if (next.size === 0) break;
          frontier = next;
        }
        return [...out];
      }
      case "perm": {
        const out = new Set<number>();
        const seen = new Set<string>();
        const rec = (mask: number, p: number) => {
          const key = `${mask}:${p}`;
          if (seen.has(key)) return;
          seen.add(key);
          if (n.items.every((it, i) => !it.required || mask & (1 << i))) out.add(p);
          n.items.forEach((it, i) => {
            if (mask & (1 << i)) return;
            const starts = mask && n.separator ? ends(n.separator, p) : [p];
            for (const s of starts) for (const e of ends(it.node, s)) rec(mask | (1 << i), e);
          });
        };
        rec(0, pos);
        return [...out];
      }
      case "ref": {
        const target = g.rules?.[n.name];
        if (!target) throw new Error(`unknown rule ${n.name}`);
        const key = `${n.name}@${pos}`;
        if (active.has(key)) return []; // left recursion: no progress
        active.add(key);
        try {
          return ends(target, pos);
        } finally {
          active.delete(key);
        }
      }
      default:
        throw new Error(`reference matcher: node kind ${n.type} not implemented`);
    }
  };
  return ends(g.root, 0).includes(cps.length);
}

// ---------------------------------------------------------------------------------------------
// Acceptance tables. `accept`: fully accepted and complete; `reject`: rejected somewhere or
// incomplete. Comments say why a row that JSON Schema itself would accept is rejected.

export interface AcceptanceCase {
  name: string;
  schema: unknown;
  options?: JsonSchemaOptions;
  /** For the engine: recursion bound (the reference matcher does not bound recursion). */
  maxRecursionDepth?: number;
  accept: string[];
  reject: string[];
}

const deep = (n: number, leaf = "1") => '{"a":'.repeat(n) + leaf + "}".repeat(n);
const weather = {
  type: "object",
  properties: { location: { type: "string" }, unit: { enum: ["c", "f"] } },
  required: ["location"],
};
const tree = {
  $defs: {
    node: {
      type: "object",
      properties: { value: { type: "integer" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
      required: ["value"],
    },
  },
  $ref: "#/$defs/node",
};

export const ACCEPTANCE: AcceptanceCase[] = [
  {
    name: "string: syntax and escapes",
    schema: { type: "string" },
    accept: [
      '""',
      '"abc"',
      '"é"',
      '"\\n"',
      '"\\u00e9"',
      '"\\u00E9"',
      '"\\uD83D\\ude00"',
      '"😀"',
      '"\\/"',
      '"a\\"b"',
      '"\\\\"',
      '"\u2028"',
      '"\\u0000"',
    ],
    reject: [
      '"abc',
      "abc",
      '"a\\qb"',
      '"\\u12"',
      '"\\u00G0"',
      "'abc'",
      '"a\nb"',
      '"\t"',
      '"\\uD83D"' /* lone surrogate escape */,
      '"\\uDE00x"',
      '"abc"x',
      '"\\uD83D\\u0041"',
      '"\u001f"',
      '"\u0000"',
      '"\u007f\u0010"',
    ],
  },
  {
    name: "string: minLength/maxLength count characters (an escape is one)",
    schema: { type: "string", minLength: 2, maxLength: 3 },
    accept: ['"ab"', '"abc"', '"\\n\\t"', '"é😀"', '"\\u00e9\\uD83D\\uDE00"', '"a\\"b"'],
    reject: ['"a"', '"abcd"', '"\\uD83D\\uDE00"', '""', '"😀"', '"\\n\\n\\n\\n"'],
  },
  {
    name: "pattern: anchored class and quantifier, any spelling of the characters",
    schema: { type: "string", pattern: "^[A-Z]{3}$" },
    accept: ['"USD"', '"\\u0055SD"', '"E\\u0055R"'],
    reject: ['"usd"', '"USDX"', '"US"', '""', '"xUSD"'],
  },
  {
    name: "pattern: unanchored means 'contains a match'",
    schema: { type: "string", pattern: "ab+c" },
    accept: ['"abc"', '"xxabbbcyy"', '"\\n abc"', '"a\\u0062c"'],
    reject: ['"ac"', '"abx"', '""', '"a\\nbc"'],
  },
  {
    name: "pattern: \\d, groups, alternation, optional",
    schema: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$|^(foo|bar)?baz$" },
    accept: ['"2024-01-31"', '"baz"', '"foobaz"', '"barbaz"'],
    reject: ['"2024-1-31"', '"2024-01-31x"', '"foobarbaz"', '"xbaz"', '"٢٠٢٤-01-31"' /* \\d is ASCII only */],
  },
  {
    name: "pattern: negated class, \\s, dot",
    schema: { type: "string", pattern: "^[^\\s]+é.$" },
    accept: ['"aé!"', '"😀\\u00e9x"', '"a\\"é\\/"'],
    reject: [
      '"a é!"',
      '"aé\\n"' /* "." excludes line terminators */,
      '"aé\\r"',
      '"aé\\u2028"',
      '"é!"',
      '"a\\té!"',
      '"a\u00a0é!"',
    ],
  },
  {
    name: "pattern: astral range, anchors per alternative, escapes in the pattern",
    schema: { type: "string", pattern: "[😀-😂]|^a\\/\\u00e9\\x41$|^\\w-\\.$" },
    accept: ['"x😁y"', '"\\ud83d\\ude01"', '"a/éA"', '"a\\/\\u00E9A"', '"_-."'],
    reject: ['"😃"', '"a/éAx"', '"é-."', '"_-x"'],
  },
  {
    name: "pattern: bounded and lazy quantifiers, wide astral range",
    schema: { type: "string", pattern: "^a{2,3}b+?c{2}d{1,}$|^[\\u{10000}-\\u{10FFFF}]$" },
    accept: [
      '"aabccd"',
      '"aaabbbccdd"',
      '"😀"',
      '"\\ud800\\udc00"',
      '"\\udbff\\udfff"',
      '"\\uD83D\\uDE00"',
      '"\\ud801\\udc37"',
    ],
    reject: ['"abccd"', '"aaaabccd"', '"aabcd"', '"aabcccd"', '"aabcc"', '"a"', '"é"', '"😀😀"'],
  },
  {
    name: "pattern: empty pattern and ^$",
    schema: {
      anyOf: [
        { type: "string", pattern: "" },
        { type: "array", items: { type: "string", pattern: "^$" } },
      ],
    },
    accept: ['"anything"', '""', '[""]', "[]"],
    reject: ['["a"]', "1"],
  },
  {
    name: "number: JSON number syntax",
    schema: { type: "number" },
    accept: ["0", "-0", "1", "-1.5", "1e5", "1E+5", "1.0e-10", "123.456", "0.0", "-0e0"],
    reject: ["01", "1.", ".5", "+1", "1e", "--1", "NaN", "Infinity", "0x10", '"1"', "1.e5", "- 1", "-"],
  },
  {
    // Every finite double's usual spellings (JavaScript, Python, C's %g/%e, Java), nothing that
    // overflows; documented in docs/json-schema.md ("Numbers").
    name: "number: spellings of finite doubles only",
    schema: { type: "number" },
    accept: [
      "1.7976931348623157e+308",
      "-1.7976931348623157E308",
      "1.7976931348623158e308",
      "1e308",
      "1E+0308",
      "9.999e307",
      "5e-324",
      "4.9406564584124654e-324",
      "1e-9999",
      "1e+21",
      "1.5e-05",
      "12345678901234567890e288",
      "0e307",
      "-0.0e-5",
      "9".repeat(308),
      `${"9".repeat(308)}.99`,
      "100000000000000000000",
    ],
    reject: [
      "1e999",
      "-1e400",
      "1.8e308",
      "2e308",
      "1.7976931348623159e308",
      "1.79769313486231581e308",
      "1e309",
      "0.5e308",
      "1e10000",
      "1e+00001",
      `1${"0".repeat(308)}`,
      "12e300",
      `${"1".repeat(21)}e1`,
    ],
  },
  {
    name: "integer: at most 308 digits, as written",
    schema: { type: "integer" },
    accept: ["9007199254740993", "-9007199254740993", "9".repeat(308), `-${"9".repeat(308)}`],
    reject: [`1${"0".repeat(308)}`, `-1${"0".repeat(308)}`],
  },
  {
    name: "integer: bounds beyond 2^53 are exact",
    schema: { type: "integer", minimum: 2 ** 60, maximum: 2 ** 61 },
    accept: [String(2n ** 60n), String(2n ** 60n + 1n), String(2n ** 61n - 1n), String(2n ** 61n)],
    reject: [String(2n ** 60n - 1n), String(2n ** 61n + 1n), "1152921504606846975", "0"],
  },
  {
    name: "integer: a bound of 1e300 is the double's exact value",
    schema: { type: "integer", maximum: 1e300, exclusiveMinimum: -1e300 },
    accept: [
      BigInt(1e300).toString(),
      (BigInt(1e300) - 1n).toString(),
      (-BigInt(1e300) + 1n).toString(),
      "0",
      `1${"0".repeat(300)}`,
    ],
    reject: [(BigInt(1e300) + 1n).toString(), (-BigInt(1e300)).toString(), `2${"0".repeat(300)}`],
  },
  {
    name: "integer: no fraction, no exponent",
    schema: { type: "integer" },
    accept: ["0", "-0", "42", "-17", "9007199254740993"],
    reject: ["1.0" /* JSON Schema: an integer; here: plain digits only */, "1e2", "01", "-", '"1"', "1.5", "-01"],
  },
  {
    name: "integer: minimum/maximum are exact",
    schema: { type: "integer", minimum: -5, maximum: 120 },
    accept: ["-5", "-1", "-0", "0", "7", "9", "10", "99", "100", "119", "120"],
    reject: ["-6", "121", "130", "1000", "-10", "999", "200", "-50", "00", "007", "-00", "-05", "1.0"],
  },
  {
    name: "integer: exclusive bounds, fractional bounds",
    schema: { type: "integer", exclusiveMinimum: 0, maximum: 9.5 },
    accept: ["1", "5", "9"],
    reject: ["0", "-0", "10", "-1"],
  },
  {
    name: "integer: one-sided bound",
    schema: { type: "integer", minimum: 18 },
    accept: ["18", "19", "20", "99", "100", "123456789"],
    reject: ["17", "0", "-18", "1", "9"],
  },
  {
    name: "number: minimum 0",
    schema: { type: "number", minimum: 0 },
    accept: ["0", "0.5", "-0", "-0.0", "1e-9", "0e5", "12.5E3"],
    reject: ["-0.1", "-1", "-1e-9", "-0.001"],
  },
  {
    name: "number: exclusiveMinimum 0",
    schema: { type: "number", exclusiveMinimum: 0 },
    accept: ["0.001", "5", "1e-300", "0.10"],
    reject: ["0", "-0", "0.0", "-3", "0e7", "0.000", "1.", "0.5.", "01", "1e", "-0.5", ".5"],
  },
  {
    name: "number: exclusiveMaximum 0",
    schema: { type: "number", exclusiveMaximum: 0 },
    accept: ["-0.001", "-5", "-1e3"],
    reject: ["0", "-0", "-0.0", "3", "-1.", "-01", "-"],
  },
  ...NUMBER_RANGE_CASES,
  {
    name: "boolean and null",
    schema: { type: ["boolean", "null"] },
    accept: ["true", "false", "null"],
    reject: ["True", '"true"', "nul", "0", "truefalse"],
  },
  {
    name: "type array",
    schema: { type: ["string", "null"] },
    accept: ['"x"', "null"],
    reject: ["1", "[]"],
  },
  {
    name: "nullable",
    schema: { type: "integer", nullable: true },
    accept: ["5", "null"],
    reject: ['"5"', "5.5"],
  },
  {
    name: "enum of strings",
    schema: { type: "string", enum: ["celsius", "fahrenheit"] },
    accept: ['"celsius"', '"fahrenheit"'],
    reject: ['"kelvin"', '"celsius "', '"\\u0063elsius"' /* enum values: canonical spelling only */, "celsius"],
  },
  {
    name: "enum of mixed values: canonical JSON.stringify text",
    schema: { enum: [1, "a", null, { k: [1, 2] }, true, 1.5e300] },
    accept: ["1", '"a"', "null", '{"k":[1,2]}', "true", "1.5e+300"],
    reject: ['{"k": [1,2]}', '{"k":[1, 2]}', "2", "1.0", "false"],
  },
  {
    name: "enum filtered by sibling keywords",
    schema: { type: "string", maxLength: 3, enum: ["abc", "abcd", 5] },
    accept: ['"abc"'],
    reject: ['"abcd"', "5"],
  },
  {
    name: "const",
    schema: { const: { a: 1, b: "x" } },
    accept: ['{"a":1,"b":"x"}'],
    reject: ['{"a": 1,"b":"x"}', '{"b":"x","a":1}'],
  },
  {
    name: "object: properties in any order, required, closed by default",
    schema: weather,
    accept: [
      '{"location":"Paris"}',
      '{"location": "Paris", "unit": "c"}',
      '{"unit":"f","location":"x"}',
      '{"location":"a","unit":"c"}',
    ],
    reject: [
      "{}",
      '{"unit":"c"}',
      '{"location":"a","location":"b"}',
      '{"location":"a","extra":1}',
      '{"location":"a",}',
      '{ "location":"a"}',
      '{"location" :"a"}',
      '{"location":  "a"}',
      '{"location":"a" }',
      '{"location":"a"',
    ],
  },
  {
    name: "object: no type, properties imply an object",
    schema: { properties: { a: { type: "integer" } } },
    accept: ["{}", '{"a":1}'],
    reject: ['"x"' /* JSON Schema would accept a non-object */, "1", '{"b":1}'],
  },
  {
    name: "object: additionalProperties true next to properties",
    schema: { type: "object", properties: { a: { type: "integer" } }, additionalProperties: true },
    options: { maxFreeNesting: 3 }, // free values cost ~4^depth automaton states on the engine
    accept: ['{"a":1,"b":"x","c":[1]}', '{"b":1}', '{"b":1,"a":2}', "{}", '{"b":1,"c":2,"a":3}', '{"ab":{},"":1}'],
    reject: [
      '{"a":"x"}',
      '{"a":1,"a":2}',
      '{"\\u0061":1}' /* a declared name spelled with an escape is neither declared nor extra */,
      '{"b":1,"a":2,"c":3}' /* extra keys must be one contiguous run */,
    ],
  },
  {
    name: "object: extra keys never equal a declared name",
    schema: {
      type: "object",
      properties: { name: { type: "string" }, "😀": { type: "string" } },
      additionalProperties: { type: "integer" },
    },
    accept: [
      '{"name":"x","names":1}',
      '{"nam":5}',
      '{"namex":5,"name":"y"}',
      '{"n\\u0061mf":1}',
      '{"😀":"x","😁":1}',
      '{"\\ud83d\\ude01":1}',
    ],
    reject: ['{"n\\u0061me":5}', '{"name\\u0000":"x","name":1}', '{"\\ud83d\\ude00":1}', '{"name":5}'],
  },
  {
    name: "object: required but undeclared, allowed by additionalProperties",
    schema: { type: "object", additionalProperties: { type: "string" }, required: ["id"] },
    accept: ['{"id":"1"}', '{"x":"y","id":"1"}'],
    reject: ["{}", '{"id":1}', '{"x":"y"}'],
  },
  {
    name: "object: map via additionalProperties schema",
    schema: { type: "object", additionalProperties: { type: "number" } },
    accept: ["{}", '{"x":1,"y":2.5}', '{"x": 1, "x": 2}' /* duplicate extra keys are not detected */],
    reject: ['{"x":"1"}', '{"x":1,}'],
  },
  {
    name: "object: free-form, nested up to maxFreeNesting (6)",
    schema: { type: "object" },
    accept: ["{}", '{"a":{"b":[1,{"c":null}]}}', deep(6), '{"a":"}"}'],
    reject: [deep(7) /* 7 levels of containers */, "[]", '{"a":1', "{,}"],
  },
  {
    name: "object: empty properties",
    schema: { type: "object", properties: {} },
    accept: ["{}"],
    reject: ['{"a":1}'],
  },
  {
    name: "array: items, minItems, maxItems",
    schema: { type: "array", items: { type: "integer" }, minItems: 1, maxItems: 3 },
    accept: ["[1]", "[1,2,3]", "[1, 2]"],
    reject: ["[]", "[1,2,3,4]", '["a"]', "[1,]", "[ 1]", "[1 ]", "[,1]"],
  },
  {
    name: "array: prefixItems tuple, closed",
    schema: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false },
    accept: ["[]", '["a"]', '["a",1]', '["a", 1]'],
    reject: ["[1]", '["a",1,2]', '["a","b"]'],
  },
  {
    name: "array: a tuple of 70 schemas (a rule every 32 elements), minItems 40",
    schema: {
      type: "array",
      prefixItems: Array.from({ length: 70 }, (_, i) => ({ type: i % 2 ? "string" : "integer" })),
      items: false,
      minItems: 40,
    },
    accept: [40, 41, 64, 65, 70].map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => (i % 2 ? "s" : i)))),
    reject: [
      ...[0, 39, 71].map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => (i % 2 ? "s" : i)))),
      JSON.stringify(Array.from({ length: 50 }, (_, i) => (i === 33 ? 5 : i % 2 ? "s" : i))),
    ],
  },
  {
    name: "array: prefixItems with minItems and rest items",
    schema: { type: "array", prefixItems: [{ type: "string" }], items: { type: "boolean" }, minItems: 2 },
    accept: ['["a",true]', '["a",true,false,true]'],
    reject: ['["a"]', '["a",1]', "[true,true]"],
  },
  {
    name: "array: free-form",
    schema: { type: "array" },
    accept: ["[]", '[1,"a",null,[{}]]'],
    reject: ["{}", "[1,,2]"],
  },
  {
    name: "anyOf",
    schema: { anyOf: [{ type: "string", maxLength: 2 }, { type: "integer" }] },
    accept: ['"ab"', "5"],
    reject: ['"abc"', "1.5", "null"],
  },
  {
    name: "oneOf is lowered as anyOf (exclusivity not enforced)",
    schema: { oneOf: [{ type: "integer" }, { type: "number" }] },
    accept: ["5" /* ajv's oneOf would reject: both alternatives match */, "5.5"],
    reject: ['"5"'],
  },
  {
    name: "allOf with one schema; type next to anyOf narrows the alternatives",
    schema: { type: "string", anyOf: [{ allOf: [{ minLength: 2 }] }, { type: ["integer", "string"], maxLength: 0 }] },
    accept: ['"ab"', '""'],
    reject: ['"a"', "1"],
  },
  {
    name: "$ref: recursive tree",
    schema: tree,
    maxRecursionDepth: 4, // each level of this tree multiplies the automaton by 4 (any-order pair × list)
    accept: [
      '{"value":1}',
      '{"value":1,"children":[{"value":2,"children":[]}]}',
      '{"children":[{"value":2}],"value":3}',
    ],
    reject: ['{"children":[]}', '{"value":1,"children":[{"value":"x"}]}'],
  },
  {
    name: "$ref: draft-07 definitions",
    schema: {
      definitions: { id: { type: "integer", minimum: 1 } },
      type: "object",
      properties: { id: { $ref: "#/definitions/id" } },
      required: ["id"],
    },
    accept: ['{"id":1}'],
    reject: ['{"id":0}', "{}"],
  },
  {
    name: "$ref with a type next to it narrows the referenced schema",
    schema: {
      $defs: { sn: { type: ["string", "number"], maxLength: 2 } },
      type: "array",
      items: { type: ["string", "null"], $ref: "#/$defs/sn" },
    },
    accept: ['["ab"]', "[]"],
    reject: ["[1]", "[null]", '["abc"]'],
  },
  {
    name: "annotations are ignored",
    schema: {
      type: "string",
      title: "t",
      description: "d",
      examples: ["x"],
      default: "x",
      $comment: "c",
      deprecated: true,
      "x-extra": 1,
    },
    accept: ['"x"'],
    reject: ["1"],
  },
  {
    name: "true schema / {}: any JSON value",
    schema: {},
    accept: ["1", '"a"', "null", '{"a":[true]}'],
    reject: ["tru", "{"],
  },
  {
    name: "whitespace: compact",
    schema: weather,
    options: { whitespace: "compact" },
    accept: ['{"location":"a","unit":"c"}'],
    reject: ['{"location": "a"}', '{"location":"a", "unit":"c"}'],
  },
  {
    name: "whitespace: single",
    schema: { type: "object", properties: { a: { type: "array" } } },
    options: { whitespace: "single" },
    accept: ['{"a": [1, 2]}', '{"a":[1,2]}', '{"a": [{"x": 1, "y": 2}]}'],
    reject: ['{"a":\n[1]}', '{"a":  [1]}', '{"a": [ 1]}', ' {"a":[1]}', '{"a":[1] }'],
  },
  {
    name: "whitespace: any (bounded runs in every gap)",
    schema: {
      type: "object",
      properties: { a: { type: "integer" }, b: { type: "array", items: { type: "integer" } } },
    },
    options: { whitespace: "any" },
    accept: ['{\n  "a" : 1 ,\n  "b":[ 1 ,\t2 ]\n}', '{"a":1}', "{ }", '{"b":[\r\n]}', `{${" ".repeat(32)}"a":1}`],
    reject: [
      `{${" ".repeat(33)}"a":1}`,
      ' {"a":1}',
      '{"a":1} ',
      '{"a":1 2}',
      '{"a":\u00a01}',
      '{"a":\f1}',
      '{"a":\v1}',
      '{"a"\u2028:1}',
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// Property test: schemas, generators, serializer, ajv oracle

export interface PropertySchema {
  name: string;
  schema: unknown;
  options?: JsonSchemaOptions;
  /** For the engine; values deeper than maxFreeNesting (6) are not compared, so 3 (4 nested tree nodes = 7 levels) is enough. */
  maxRecursionDepth?: number;
}

export const PROPERTY_SCHEMAS: PropertySchema[] = [
  {
    name: "weather tool",
    schema: {
      type: "object",
      properties: {
        location: { type: "string", minLength: 1 },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        days: { type: "integer", minimum: 1, maximum: 14 },
      },
      required: ["location"],
    },
  },
  { name: "bounded string", schema: { type: "string", minLength: 2, maxLength: 5 } },
  { name: "integer range", schema: { type: "integer", minimum: -37, maximum: 1250 } },
  { name: "non-negative number", schema: { type: "number", minimum: 0 } },
  {
    name: "bounded number",
    schema: {
      type: "object",
      properties: { t: { type: "number", minimum: -1.5, exclusiveMaximum: 100.25 } },
      required: ["t"],
    },
  },
  { name: "nullable union", schema: { type: ["string", "integer", "null"] }, options: { whitespace: "compact" } },
  {
    name: "array of objects",
    schema: {
      type: "array",
      items: {
        type: "object",
        properties: { id: { type: "integer" }, tags: { type: "array", items: { type: "string" }, maxItems: 3 } },
        required: ["id"],
      },
      minItems: 1,
      maxItems: 4,
    },
    options: { whitespace: "any" },
  },
  {
    name: "tuple",
    schema: {
      type: "array",
      prefixItems: [{ type: "string" }, { type: "boolean" }],
      items: { type: "integer" },
      maxItems: 4,
    },
  },
  {
    name: "anyOf",
    schema: {
      anyOf: [
        { type: "string", maxLength: 3 },
        { type: "integer", exclusiveMinimum: 0 },
        { type: "object", properties: { k: { const: [1, "x"] } }, required: ["k"] },
      ],
    },
  },
  {
    name: "enum/const mix",
    schema: { type: "object", properties: { mode: { enum: ["a", "b", 3, null] }, fixed: { const: { x: [true] } } } },
    options: { whitespace: "any" },
  },
  {
    name: "open object",
    schema: {
      type: "object",
      properties: { name: { type: "string" }, n: { type: "number" } },
      required: ["name"],
      additionalProperties: { type: "integer" },
    },
  },
  { name: "free-form object", schema: { type: "object" } },
  { name: "recursive $ref", schema: tree, options: { whitespace: "any" }, maxRecursionDepth: 3 },
  { name: "any value", schema: true },
  {
    name: "pattern, anchored",
    schema: {
      type: "object",
      properties: {
        slug: { type: "string", pattern: "^[a-z]+(-[a-z0-9]+)*$" },
        n: { type: "string", pattern: "^(\\+|-)?\\d+(\\.\\d+)?$" },
      },
    },
  },
  {
    name: "pattern, unanchored",
    schema: { type: "array", items: { type: "string", pattern: "[0-9]{2}|[😀-😂]x|\\s$" } },
  },
];

/** Ajv with the same semantics as the lowering (see `oracleSchema`). */
export function makeValidator(schema: unknown): (v: unknown) => boolean {
  const Ajv = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as new (
    o: object,
  ) => { compile: (s: unknown) => (v: unknown) => boolean };
  const ajv = new Ajv({ strict: false, allErrors: false });
  const validate = ajv.compile(oracleSchema(schema));
  return (v) => validate(v) as boolean;
}

/**
 * The schema rewritten to plain JSON Schema with the lowering's documented semantics:
 * `properties` without `additionalProperties` gets `additionalProperties: false`, a schema
 * without `type` gets the types its keywords imply, and `oneOf` becomes `anyOf`.
 */
export function oracleSchema(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map(oracleSchema);
  const s = { ...(schema as Record<string, unknown>) };
  for (const k of ["properties", "$defs", "definitions"]) {
    if (s[k] && typeof s[k] === "object")
      s[k] = Object.fromEntries(Object.entries(s[k] as object).map(([n, v]) => [n, oracleSchema(v)]));
  }
  for (const k of ["items", "additionalProperties", "prefixItems", "anyOf", "allOf", "oneOf"])
    if (k in s) s[k] = oracleSchema(s[k]);
  if ("oneOf" in s) {
    s.anyOf = s.oneOf;
    delete s.oneOf;
  }
  if ("properties" in s && !("additionalProperties" in s)) s.additionalProperties = false;
  if (!("type" in s)) {
    const implied: string[] = [];
    if (["minLength", "maxLength"].some((k) => k in s)) implied.push("string");
    if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].some((k) => k in s)) implied.push("number");
    if (["properties", "required", "additionalProperties"].some((k) => k in s)) implied.push("object");
    if (["items", "prefixItems", "minItems", "maxItems"].some((k) => k in s)) implied.push("array");
    if (implied.length) s.type = implied;
  }
  return s;
}

type S = Record<string, unknown>;
const isObj = (x: unknown): x is S => typeof x === "object" && x !== null && !Array.isArray(x);
const own = (o: object, k: string) => Object.hasOwn(o, k);

const anyJson = (depth: number): fc.Arbitrary<Json> =>
  fc.jsonValue({ maxDepth: depth, stringUnit: "binary" }) as fc.Arbitrary<Json>;

/** Mostly schema-shaped values, some of them slightly wrong, plus arbitrary JSON. */
export function arbValue(root: unknown, s: unknown = root, depth = 4, top = true): fc.Arbitrary<Json> {
  s = resolve(root, s);
  if (depth <= 0 || s === true || s === undefined || !isObj(s) || Object.keys(s).length === 0)
    return anyJson(Math.max(0, Math.min(depth, 2)));
  const noise = anyJson(1);
  // mistakes are rarer below the top, or nested values would almost never be valid
  const mix = (a: fc.Arbitrary<Json>) =>
    fc.oneof({ weight: top ? 5 : 25, arbitrary: a }, { weight: 1, arbitrary: noise });
  if ("enum" in s) return mix(fc.constantFrom(...(s.enum as Json[])));
  if ("const" in s) return mix(fc.constant(s.const as Json));
  for (const k of ["anyOf", "oneOf", "allOf"])
    if (Array.isArray(s[k])) return fc.oneof(...(s[k] as unknown[]).map((b) => arbValue(root, b, depth, top)));
  const types = (
    Array.isArray(s.type) ? s.type : s.type ? [s.type] : ["string", "number", "object", "array"]
  ) as string[];
  if (s.nullable) types.push("null");
  const arbs = types.map((t): fc.Arbitrary<Json> => {
    switch (t) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "string": {
        if (typeof s.pattern === "string") {
          return fc.oneof(
            fc.stringMatching(new RegExp(s.pattern, "u")),
            fc.string({ unit: fc.constantFrom("a", "1", "-", "+", ".", "😁", " ", "x"), maxLength: 6 }),
          );
        }
        const min = (s.minLength as number | undefined) ?? 0,
          max = (s.maxLength as number | undefined) ?? 8;
        return fc.string({
          unit: fc.oneof(
            fc.constantFrom("a", "é", "😀", '"', "\\", "\n", "/", "\u0001", "\u2028"),
            fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
          ),
          minLength: Math.max(0, min - 1),
          maxLength: max + 1,
        });
      }
      case "integer": {
        const lo =
          typeof s.minimum === "number"
            ? s.minimum
            : typeof s.exclusiveMinimum === "number"
              ? s.exclusiveMinimum
              : -1e6;
        const hi =
          typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : 1e6;
        return fc.oneof(
          fc.integer({ min: Math.ceil(lo) - 3, max: Math.floor(hi) + 3 }),
          fc.constantFrom(lo, hi, 0, -1, 1.5),
        );
      }
      case "number": {
        const bounds = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
          .map((k) => s[k])
          .filter((x): x is number => typeof x === "number");
        const near = bounds.length
          ? [
              fc.double({ min: Math.min(...bounds) - 3, max: Math.max(...bounds) + 3, noNaN: true }),
              fc.constantFrom(...bounds),
            ]
          : [];
        return fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.integer({ min: -100, max: 100 }),
          fc.constantFrom(0, -0, 1e-7, -1e-7, 0.5, 1e21),
          ...near,
        );
      }
      case "array": {
        const prefix = (Array.isArray(s.prefixItems) ? s.prefixItems : []) as unknown[];
        const min = (s.minItems as number | undefined) ?? 0,
          max = (s.maxItems as number | undefined) ?? 4;
        const restSchema = s.items === false ? undefined : s.items;
        return fc
          .tuple(
            fc.tuple(...prefix.map((p) => arbValue(root, p, depth - 1, false))),
            fc.array(arbValue(root, restSchema, depth - 1, false), { maxLength: Math.max(0, max - prefix.length + 1) }),
            fc.integer({ min: Math.max(0, min - 1), max: max + 1 }),
          )
          .map(([pre, rest, len]) => [...pre, ...rest].slice(0, Math.max(len, 0)));
      }
      case "object": {
        const props = (isObj(s.properties) ? s.properties : {}) as S;
        const required = (s.required as string[] | undefined) ?? [];
        const names = Object.keys(props);
        const addl = s.additionalProperties;
        const extraVal = addl === undefined || addl === false ? anyJson(1) : arbValue(root, addl, depth - 1, false);
        return fc
          .tuple(
            fc.record(Object.fromEntries(names.map((n) => [n, arbValue(root, props[n], depth - 1, false)])), {
              requiredKeys: [],
            }),
            fc.subarray(names), // keys kept even when optional
            fc.dictionary(fc.string({ unit: fc.constantFrom("a", "b", "n", "é", "\\", '"'), maxLength: 5 }), extraVal, {
              maxKeys: 2,
            }),
            fc.nat(3).map((n) => n === 0),
            fc.nat(7).map((n) => n === 0),
          )
          .map(([vals, keep, extras, withExtras, dropRequired]) => {
            const o: Record<string, Json> = {};
            for (const n of names) {
              if (!own(vals, n)) continue;
              if (required.includes(n) ? !dropRequired : keep.includes(n)) o[n] = vals[n] as Json;
            }
            if (withExtras) for (const [k, v] of Object.entries(extras)) if (!own(props, k) && !own(o, k)) o[k] = v;
            return o;
          });
      }
      default:
        return noise;
    }
  });
  return mix(fc.oneof(...arbs));
}

/** Nesting depth of containers. */
export function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (isObj(v)) return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

/** Whether the grammar is expected to accept every ajv-valid serialization of v (documented limits). */
export function withinLimits(v: unknown, maxFreeNesting = 6): boolean {
  const bigIntegers = (x: unknown): boolean =>
    typeof x === "number"
      ? Number.isInteger(x) && Math.abs(x) >= 1e21 // JSON.stringify writes 1e+21: not integer syntax
      : Array.isArray(x)
        ? x.some(bigIntegers)
        : isObj(x)
          ? Object.values(x).some(bigIntegers)
          : false;
  return depthOf(v) <= maxFreeNesting && !bigIntegers(v);
}

/** JSON's spellings for renderForSchema: random \u escapes (surrogate pairs above U+FFFF), "\/", exponents. */
const jsonSyntax: ValueSyntax = {
  string(x, canonical, r) {
    if (canonical) return JSON.stringify(x);
    let out = '"';
    for (const ch of x) {
      const cp = ch.codePointAt(0)!;
      const k = r(4);
      const hex = (u: number) =>
        "\\u" + (r(2) ? u.toString(16).padStart(4, "0") : u.toString(16).toUpperCase().padStart(4, "0"));
      if (k === 0)
        out += cp > 0xffff ? hex(0xd800 + ((cp - 0x10000) >> 10)) + hex(0xdc00 + ((cp - 0x10000) & 0x3ff)) : hex(cp);
      else if (k === 1 && ch === "/") out += "\\/";
      else out += JSON.stringify(ch).slice(1, -1);
    }
    return out + '"';
  },
  number(x, exponentOk, r) {
    if (!exponentOk || r(3) !== 0) return JSON.stringify(x);
    const e = x.toExponential();
    return r(2) ? e : e.toUpperCase().replace("+", r(2) ? "+" : "");
  },
  scalar: (x) => JSON.stringify(x),
  fixed: (x) => JSON.stringify(x),
  whole: (x) => JSON.stringify(x),
  spaceOdds: 2,
};

/**
 * Serialize v as JSON in the whitespace style `mode` accepts, guided by the schema so that the
 * text is one the grammar must accept whenever the value is valid (see renderForSchema).
 */
export function serialize(
  v: Json,
  root: unknown,
  mode: NonNullable<JsonSchemaOptions["whitespace"]>,
  seed: number,
): string {
  return renderForSchema(v, root, mode, seed, jsonSyntax);
}

export interface Mutation {
  at: number;
  op: number;
  ch: string;
}
export const arbCase = (ps: PropertySchema) =>
  fc.record({
    value: arbValue(ps.schema),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    // one in three texts gets one character inserted, deleted or replaced
    mutation: fc.option(
      fc.record({
        at: fc.nat(),
        op: fc.nat(2),
        ch: fc.constantFrom(...'"\\,:{}[]01-.eE+ \n\t\r\fa\u001f\u00e9'.split("")),
      }),
      { freq: 2 },
    ),
  });

function mutate(text: string, m: Mutation): string {
  const cps = Array.from(text);
  const at = m.at % (cps.length + 1);
  if (m.op === 0) cps.splice(at, 0, m.ch);
  else if (at < cps.length) cps.splice(at, 1, ...(m.op === 1 ? [] : [m.ch]));
  return cps.join("");
}

export interface CaseStats {
  valid: number;
  invalid: number;
  notJson: number;
}
export interface PropertyCase {
  value: Json;
  seed: number;
  mutation: Mutation | null;
}

/** A text syntax of the lowering, as the property cases see it. */
export interface TextSyntax {
  /** For messages: "not JSON", "not a Python literal". */
  name: string;
  serialize(v: Json, root: unknown, mode: NonNullable<JsonSchemaOptions["whitespace"]>, seed: number): string;
  /** The value a text spells; throws when it is not in the syntax. */
  read(text: string): unknown;
}

/** JSON text with sorted keys: equal values, equal texts, whatever the key order. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    isObj(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );
}

/**
 * One property-test case: the grammar may accept only texts that read in the syntax as a value
 * ajv accepts; it must accept every unmutated serialization of an ajv-valid value within the
 * documented limits (nesting, integer spelling). An unmutated text must read back as the value it
 * was written from. Returns the text checked.
 */
export function checkTextCase(
  syntax: TextSyntax,
  ps: PropertySchema,
  accepts: (text: string) => boolean,
  valid: (v: unknown) => boolean,
  c: PropertyCase,
  stats: CaseStats,
): string {
  const original = syntax.serialize(c.value, ps.schema, ps.options?.whitespace ?? "single", c.seed);
  const text = c.mutation ? mutate(original, c.mutation) : original;
  let parsed: unknown;
  try {
    parsed = syntax.read(text);
  } catch {
    if (!c.mutation) throw new Error(`the serializer wrote a text that is ${syntax.name}: ${JSON.stringify(text)}`);
    stats.notJson++;
    if (accepts(text)) throw new Error(`grammar accepted text that is ${syntax.name}: ${JSON.stringify(text)}`);
    return text;
  }
  if (!c.mutation && canonical(parsed) !== canonical(c.value)) {
    throw new Error(`${JSON.stringify(text)} reads back as ${JSON.stringify(parsed)}, not ${JSON.stringify(c.value)}`);
  }
  const ajvOk = valid(parsed);
  if (ajvOk) stats.valid++;
  else stats.invalid++;
  const accepted = accepts(text);
  if (accepted && !ajvOk) throw new Error(`grammar accepted a value ajv rejects: ${JSON.stringify(text)}`);
  if (!accepted && ajvOk && !c.mutation && withinLimits(parsed))
    throw new Error(`grammar rejected a value ajv accepts: ${JSON.stringify(text)}`);
  return text;
}

const jsonText: TextSyntax = { name: "not JSON", serialize, read: (text) => JSON.parse(text) };

/** checkTextCase for JSON texts. */
export function checkCase(
  ps: PropertySchema,
  accepts: (text: string) => boolean,
  valid: (v: unknown) => boolean,
  c: PropertyCase,
  stats: CaseStats,
): void {
  checkTextCase(jsonText, ps, accepts, valid, c, stats);
}

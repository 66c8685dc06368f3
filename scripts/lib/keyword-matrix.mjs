// The keyword × dialect matrix: JSON-Schema cases as one tool parameter's schema, each value
// written in a dialect's own call syntax, judged by the parser (a complete valid call or not) and
// by the tool grammar (the matcher over the whole text), both against ajv's verdict on the value.
// Cases: every group of the JSON Schema Test Suite (scripts/lib/json-schema-suite.mjs, draft4),
// rewritten to sit at `properties.v` of the parameters, plus OWN_CASES (keywords the draft4 suite
// lacks, and raw-text edge cases). A case whose schema the lowering refuses is judged as a refusal.
// Plain ESM: test/no-model/keyword-matrix.test.ts and scripts/keyword-matrix.mjs share it.
import { ajvWithFormats } from "./ajv-formats.mjs";
import { canonical, groupName, loadSuite } from "./json-schema-suite.mjs";
import { writeCall, writeOutput } from "./dialect-writer.mjs";
import { KNOWN_DIFFERENCES } from "./keyword-matrix-expected.mjs";

/** The keywords the matrix reports on (docs/json-schema.md). */
export const MATRIX_KEYWORDS = [
  "type",
  "enum",
  "const",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "properties",
  "required",
  "additionalProperties",
  "anyOf",
  "oneOf",
  "allOf",
  "$ref",
  "format",
];

const isObj = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const SCHEMA_MAPS = ["properties", "patternProperties", "definitions", "$defs", "dependencies", "dependentSchemas"];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const SCHEMA_ONE = [
  "additionalProperties",
  "additionalItems",
  "not",
  "items",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
];

/** A copy of `schema` with `f` applied to every schema object in it, children first. */
function mapSchemas(schema, f) {
  if (!isObj(schema)) return schema;
  const out = { ...schema };
  for (const k of SCHEMA_MAPS)
    if (isObj(out[k])) out[k] = Object.fromEntries(Object.entries(out[k]).map(([n, s]) => [n, mapSchemas(s, f)]));
  for (const k of SCHEMA_LISTS) if (Array.isArray(out[k])) out[k] = out[k].map((s) => mapSchemas(s, f));
  for (const k of SCHEMA_ONE) if (isObj(out[k])) out[k] = mapSchemas(out[k], f);
  return f(out);
}

/** The MATRIX_KEYWORDS `schema` uses, in any subschema. */
export function keywordsOf(schema) {
  const found = new Set();
  mapSchemas(schema, (s) => {
    for (const k of Object.keys(s)) if (MATRIX_KEYWORDS.includes(k)) found.add(k);
    return s;
  });
  return MATRIX_KEYWORDS.filter((k) => found.has(k));
}

/** Where a case's schema sits in the tool's parameters. */
export const PARAM_POINTER = "#/properties/v";

/**
 * `schema` as the schema at PARAM_POINTER, meaning what it meant as a root: local `$ref`s ("#…")
 * get the parameter's pointer in front, and draft-04's boolean exclusiveMinimum/exclusiveMaximum
 * become the draft-06 numbers (`minimum: 0, exclusiveMinimum: true` is `exclusiveMinimum: 0`).
 */
export function asParameter(schema) {
  return mapSchemas(schema, (s) => {
    if (typeof s.$ref === "string" && s.$ref.startsWith("#")) s.$ref = PARAM_POINTER + s.$ref.slice(1);
    for (const [ex, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ]) {
      if (typeof s[ex] !== "boolean") continue;
      if (s[ex] && typeof s[bound] === "number") {
        s[ex] = s[bound];
        delete s[bound];
      } else if (!s[ex]) delete s[ex];
    }
    return s;
  });
}

/** The tool `f(v)`, `v` required, of the case schema `schema` (as written for a root). */
export const paramTools = (schema) => [
  {
    type: "function",
    function: {
      name: "f",
      parameters: { type: "object", properties: { v: asParameter(schema) }, required: ["v"] },
    },
  },
];

/** Every group of the suite as a case: `{ name, draft, schema, values: [{ label, data, json }] }`. */
export function suiteCases() {
  return loadSuite().map((g) => ({
    name: `suite: ${groupName(g)}`,
    draft: "07",
    schema: g.schema,
    values: g.tests.map((t) => ({ label: t.description, data: t.data, json: canonical(t.doc) })),
  }));
}

/** An XML dialect's value close but its last character (it does not close the value). */
export const closePrefix = (spec) => (spec.call.kind === "xml" ? spec.call.valueClose.slice(0, -1) : "</parameter");

/**
 * Cases the draft4 suite lacks (draft 2020-12 keywords, numeric exclusive bounds, `$defs`,
 * formats) and raw-text edge cases: `[name, schema, values]`, each value data (its JSON text is
 * JSON.stringify's) or `{ data, json }` for another spelling; `values` may be a function of the
 * dialect's spec.
 */
export const OWN_CASES = [
  ["const string", { const: "x y" }, ["x y", "x", "y", ""]],
  ["const number", { const: 1.5 }, [1.5, { data: 1.5, json: "1.50" }, { data: 1.5, json: "15e-1" }, 1, "1.5"]],
  ["const object", { const: { a: [1, "b"] } }, [{ a: [1, "b"] }, { a: [1] }, { a: [1, "b"], c: 1 }, "a"]],
  ["const null", { const: null }, [null, 0, "null"]],
  ["typed const", { type: "string", const: "a" }, ["a", "b"]],
  ["enum of strings", { type: "string", enum: ["a b", "c"] }, ["a b", "c", "d", ""]],
  ["enum with the empty string", { enum: ["", "z"] }, ["", "z", "q"]],
  ["enum of mixed types", { enum: ["a", 1, null, [true]] }, ["a", 1, null, [true], "1", "null", [false], true]],
  [
    "prefixItems",
    { type: "array", prefixItems: [{ type: "integer" }, { type: "string" }] },
    [[1, "a"], [1], [], [1, "a", true], ["a", 1]],
  ],
  [
    "prefixItems, items false",
    { type: "array", prefixItems: [{ type: "integer" }, { type: "string" }], items: false },
    [[1, "a"], [1], [1, "a", 2]],
  ],
  [
    "prefixItems, items a schema, minItems",
    { type: "array", prefixItems: [{ const: "x" }], items: { type: "boolean" }, minItems: 2 },
    [["x", true], ["x"], ["x", true, false], ["x", 1], ["y", true]],
  ],
  ["exclusiveMinimum", { type: "number", exclusiveMinimum: 0 }, [0, 0.1, -1, 1e-9, { data: 0, json: "0.0" }]],
  ["exclusiveMaximum integer", { type: "integer", exclusiveMaximum: 10 }, [9, 10, 11, -10]],
  [
    "exclusiveMinimum and maximum, decimals",
    { exclusiveMinimum: 1.5, maximum: 2 },
    [1.5, 1.51, 2, 2.01, { data: 2, json: "2.000" }, { data: 2, json: "0.2e1" }],
  ],
  [
    "minimum and exclusiveMaximum, negative",
    { type: "number", minimum: -2.5, exclusiveMaximum: -1 },
    [-2.5, -2.6, -1, -1.01],
  ],
  [
    "integer spellings",
    { type: "integer", minimum: 0, maximum: 100 },
    [0, 100, 101, -1, { data: 1, json: "1.0" }, { data: 100, json: "1e2" }, 1.5],
  ],
  ["multipleOf integer", { type: "integer", multipleOf: 3 }, [0, 3, 4, -6, { data: 9, json: "9.0" }]],
  ["multipleOf decimal", { type: "number", multipleOf: 0.01 }, [0.01, 1.25, 1.255, 0]],
  ["uniqueItems false", { type: "array", uniqueItems: false }, [[1, 1], []]],
  [
    "uniqueItems true",
    { type: "array", uniqueItems: true },
    [
      [1, 1],
      [1, 2],
    ],
  ],
  ["format email", { type: "string", format: "email" }, ["a@b.co", "not an email"]],
  ["format date-time, untyped", { format: "date-time" }, ["2024-01-02T03:04:05Z", "2024-13-02T03:04:05Z", 1]],
  ["format uri", { type: "string", format: "uri" }, ["https://example.com/a?b#c", "not a uri"]],
  ["format unknown", { type: "string", format: "x-unknown" }, ["anything"]],
  ["propertyNames pattern", { type: "object", propertyNames: { pattern: "^[a-z]+$" } }, [{ ab: 1 }, { AB: 1 }, {}]],
  ["propertyNames maxLength", { type: "object", propertyNames: { maxLength: 2 } }, [{ ab: 1 }, { abc: 1 }]],
  ["propertyNames enum", { type: "object", propertyNames: { enum: ["a", "b"] } }, [{ a: 1, b: 2 }, { c: 1 }]],
  ["maxLength beyond the limit", { type: "string", maxLength: 524288 }, ["a", ""]],
  ["maxItems beyond the limit", { type: "array", maxItems: 1000000 }, [[1], []]],
  [
    "$defs by $ref",
    { $defs: { code: { type: "string", pattern: "^[0-9]{4}$" } }, $ref: "#/$defs/code" },
    ["1234", "ab12"],
  ],
  [
    "typed $ref",
    { $defs: { code: { type: "string", pattern: "^[0-9]{4}$" } }, type: "string", $ref: "#/$defs/code" },
    ["1234", "ab12"],
  ],
  ["$ref to maxLength", { $defs: { short: { type: "string", maxLength: 2 } }, $ref: "#/$defs/short" }, ["ab", "abc"]],
  [
    "recursive $ref",
    {
      $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" }, n: { type: "integer" } } } },
      $ref: "#/$defs/node",
    },
    [{ n: 1, next: { n: 2 } }, { n: 1, next: { n: "x" } }, {}],
  ],
  [
    "object with a string property",
    { type: "object", properties: { a: { type: "string", minLength: 2 } }, required: ["a"] },
    [{ a: "xy" }, { a: "x" }, {}, { a: "xy", b: 1 }],
  ],
  ["string or null", { type: ["string", "null"], maxLength: 2 }, ["ab", "abc", null, 1]],
  // string keywords in raw text (an XML dialect's value) as in JSON
  ["pattern anchored", { type: "string", pattern: "^[0-9]{4}$" }, ["1234", "ab12", "12345", ""]],
  ["pattern unanchored", { type: "string", pattern: "a+b" }, ["xaab", "xb", "ab"]],
  ["pattern untyped", { pattern: "^[a-c]*$" }, ["abc", "abd", ""]],
  ["pattern with <", { type: "string", pattern: "^x<" }, ["x<", "x<y", "y<"]],
  ["minLength", { type: "string", minLength: 3 }, ["abc", "ab", "", "abcdef"]],
  ["maxLength", { type: "string", maxLength: 3 }, ["abc", "abcd", ""]],
  ["minLength and maxLength", { type: "string", minLength: 1, maxLength: 3 }, ["", "a", "abc", "abcd"]],
  ["untyped minLength", { minLength: 2 }, ["ab", "a"]],
  [
    "anyOf of strings",
    {
      anyOf: [
        { type: "string", pattern: "^a" },
        { type: "string", maxLength: 1 },
      ],
    },
    ["abc", "b", "bc", ""],
  ],
  [
    "oneOf of strings",
    {
      oneOf: [
        { type: "string", pattern: "^a$" },
        { type: "string", pattern: "^b$" },
      ],
    },
    ["a", "b", "c"],
  ],
  // several string constraints at once: every one holds (the grammar's intersection)
  [
    "allOf of two patterns",
    { type: "string", allOf: [{ pattern: "^[^\\n\\r]*$" }, { pattern: "^[\\s\\S]{0,8}$" }] },
    ["abc", "", "a\nb", "abcdefgh", "abcdefghi", "a<b"],
  ],
  ["pattern and maxLength", { type: "string", pattern: "^[a-z]+$", maxLength: 3 }, ["ab", "abc", "abcd", "A", ""]],
  ["pattern and minLength", { type: "string", pattern: "a", minLength: 3 }, ["xax", "aa", "xyz", "aaaa"]],
  [
    "allOf of a pattern and lengths",
    { allOf: [{ type: "string", minLength: 2 }, { pattern: "^x" }, { maxLength: 4 }] },
    ["xy", "x", "xyzw", "xyzwv", "yx"],
  ],
  [
    "format and pattern",
    { type: "string", format: "date", pattern: "-01$" },
    ["2024-02-01", "2024-02-02", "2024-02-31", "x-01"],
  ],
  ["format and maxLength", { type: "string", format: "email", maxLength: 8 }, ["ab@cd.ef", "abc@cd.ef", "a@b"]],
  ["format and minLength", { type: "string", format: "ipv4", minLength: 9 }, ["10.0.0.10", "1.2.3.4", "1.2.3"]],
  [
    "allOf of a format and a pattern",
    { allOf: [{ type: "string", format: "uuid" }, { pattern: "^0" }] },
    ["0e4567e8-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000", "0"],
  ],
  [
    "hostname of 253 and 254 characters",
    { type: "string", format: "hostname" },
    [
      `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`,
      `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}.`,
      `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(62)}`,
    ],
  ],
  ["plain string", { type: "string" }, ["", "a b", " x ", "line\nbreak", 'tab\tand \\ and "quotes"']],
  // raw-text edge cases: padding newlines kept or trimmed exactly as the parser reads them
  ["leading and trailing newlines", { type: "string", minLength: 3 }, ["\nab", "ab\n", "\na\n", "\n\n", "\nabc\n"]],
  ["newlines by pattern", { type: "string", pattern: "^\\n?a\\n?$" }, ["a", "\na", "a\n", "\na\n", "\n\na"]],
  ["the empty value", { type: "string", pattern: "^$" }, ["", "a", "\n"]],
  [
    "a value holding the close but its last character",
    { type: "string", pattern: "^x<" },
    (spec) => [`x${closePrefix(spec)}`, closePrefix(spec)],
  ],
  ["the close's prefix and maxLength", { type: "string", maxLength: 4 }, (spec) => [`x${closePrefix(spec)}`, "x<"]],
  [
    "the close's prefix in a JSON value",
    { type: "array", items: { type: "string", maxLength: 12 } },
    (spec) => [[`x${closePrefix(spec)}`], [closePrefix(spec), "y"], ["<"]],
  ],
];

/** OWN_CASES as cases for `spec`'s dialect. */
export function ownCases(spec) {
  return OWN_CASES.map(([name, schema, values]) => ({
    name: `own: ${name}`,
    draft: "2020",
    schema,
    values: (typeof values === "function" ? values(spec) : values).map((v) => {
      const { data, json } = isObj(v) && "json" in v ? v : { data: v, json: JSON.stringify(v) };
      return { label: JSON.stringify(data) + (json === JSON.stringify(data) ? "" : ` as ${json}`), data, json };
    }),
  }));
}

/** The matrix's cases for `spec`'s dialect: the suite's, then OWN_CASES. */
export const matrixCases = (spec) => [...suiteCases(), ...ownCases(spec)];

/**
 * ajv 8 (draft-07 for the suite's cases, 2020-12 for OWN_CASES, formats from ajv-formats):
 * `oracle(c)` is a validator of the tool's arguments `{ v }`, compiled once per case name.
 */
export function makeOracle() {
  const ajvs = { "07": ajvWithFormats("07"), 2020: ajvWithFormats("2020") };
  const compiled = new Map();
  return (c) => {
    if (!compiled.has(c.name)) compiled.set(c.name, ajvs[c.draft].compile(paramTools(c.schema)[0].function.parameters));
    return compiled.get(c.name);
  };
}

/**
 * The call f(v = value) as `spec`'s dialect writes it, or undefined where the value has no
 * spelling there: an XML dialect writes a string schema's value as raw text (`isRawText`), which
 * spells strings only.
 */
export function callText(spec, rawText, value) {
  if (rawText && typeof value.data !== "string") return undefined;
  const arg = rawText ? ["v", value.json, value.data] : ["v", value.json];
  return writeOutput(spec, [writeCall(spec, "f", [arg])]);
}

/** A refusal's shape, what must be the same in every dialect: the error and, through `toApiError`, the route's answer. */
export function refusalOf(e, toApiError) {
  const api = toApiError?.(e);
  return {
    error: e?.name ?? String(e),
    keyword: e?.keyword,
    path: e?.path,
    message: e?.message ?? String(e),
    ...(api ? { status: api.status, code: api.code } : {}),
  };
}

/**
 * One case in one dialect. `lib`: { getDialect, buildToolGrammar, parseToolCalls, grammarAcceptor,
 * isRawText, toApiError }. Returns `{ refused, parserRefused }` when the grammar is refused (the parser's own
 * refusal beside it), else `{ values: [{ label, text, expected, parsed, grammar, args }] }` —
 * `text` undefined where the value has no spelling in the dialect; `args` whether the parsed
 * arguments are `{ v: data }`.
 */
export function judgeCase(lib, dialect, c, oracle) {
  const spec = lib.getDialect(dialect);
  const tools = paramTools(c.schema);
  let accepts;
  let refused;
  try {
    accepts = lib.grammarAcceptor(lib.buildToolGrammar({ dialect, tools, toolChoice: "required" }));
  } catch (e) {
    refused = refusalOf(e, lib.toApiError);
  }
  if (refused) {
    let parserRefused;
    try {
      lib.parseToolCalls("", { dialect, tools });
    } catch (e) {
      parserRefused = refusalOf(e, lib.toApiError);
    }
    return { refused, parserRefused };
  }
  const valid = oracle(c);
  const params = tools[0].function.parameters;
  const raw = spec.call.kind === "xml" && lib.isRawText(params.properties.v, params);
  try {
    return {
      values: c.values.map((v) => {
        const text = callText(spec, raw, v);
        const expected = valid({ v: v.data });
        if (text === undefined) return { label: v.label, text, expected };
        const r = lib.parseToolCalls(text, { dialect, tools });
        const parsed = r.toolCalls.length === 1 && r.incomplete.length === 0;
        const args = parsed && sameJson(JSON.parse(r.toolCalls[0].function.arguments), { v: v.data });
        return { label: v.label, text, expected, parsed, grammar: accepts(text), args };
      }),
    };
  } finally {
    accepts.dispose(); // its native grammar, which the collector does not see, now
  }
}

/** Codes of the 400 a refused schema is answered with. */
const SCHEMA_CODES = ["invalid_tool_schema", "grammar_too_large"];

/**
 * What is wrong with one case's results in every dialect (`[[dialect, judged]]`), as sentences;
 * none when the case is right. A refused case: refused in every dialect with the same error,
 * keyword, path and message, by the grammar and the parser, as a 400 whose message names the path,
 * says what is wrong and then what to do. A case the lowering takes: in each dialect that can
 * write a value, parser and grammar agree with each other and with ajv (the parsed arguments
 * are the value), except the KNOWN_DIFFERENCES, which must still differ.
 */
export function caseProblems(name, results) {
  const problems = [];
  const refused = results.find(([, r]) => r.refused)?.[1].refused;
  if (refused) {
    const same = JSON.stringify(refused);
    for (const [d, r] of results) {
      if (JSON.stringify(r.refused) !== same)
        problems.push(`${d}: grammar ${JSON.stringify(r.refused ?? "taken")}, not ${same}`);
      if (JSON.stringify(r.parserRefused) !== same)
        problems.push(`${d}: parser ${JSON.stringify(r.parserRefused ?? "takes the tools")}, not ${same}`);
    }
    const p = refused.path;
    if (
      typeof p !== "string" ||
      !refused.message.startsWith(`${p}: `) ||
      !/; \w/.test(refused.message.slice(p.length + 2))
    )
      problems.push(`the message does not name the path, then what is wrong, then what to do: ${refused.message}`);
    if (refused.status !== 400 || !SCHEMA_CODES.includes(refused.code))
      problems.push(`answered ${refused.status} ${refused.code}, not 400 ${SCHEMA_CODES.join(" or ")}`);
    for (const k of Object.keys(KNOWN_DIFFERENCES))
      if (k.startsWith(`${name} / `)) problems.push(`${k}: the case is refused; remove it from KNOWN_DIFFERENCES`);
    return problems;
  }
  for (const [d, r] of results) {
    for (const v of r.values) {
      if (v.text === undefined) continue; // no spelling in this dialect (a non-string value as raw text)
      const key = `${name} / ${v.label}`;
      const known = KNOWN_DIFFERENCES[key];
      const at = `${d}: ${key}: ${JSON.stringify(v.text)}`;
      if (v.parsed !== v.grammar) problems.push(`${at}: parser ${v.parsed}, grammar ${v.grammar}`);
      else if (v.parsed && !v.args) problems.push(`${at}: the parsed arguments are not the value`);
      else if (v.parsed !== v.expected && !known) problems.push(`${at}: ${v.parsed}, ajv ${v.expected}`);
      else if (v.parsed === v.expected && known)
        problems.push(`${at}: agrees with ajv; remove it from KNOWN_DIFFERENCES`);
    }
  }
  return problems;
}

/** Equal JSON values (object keys in any order). */
export function sameJson(a, b) {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isObj(a)) {
    if (!isObj(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return a === b;
}

/**
 * The matrix as a markdown table from `runs` ([{ dialect, case, judged }]): a row per keyword
 * (a case counts for each keyword its schema uses) with its cases and those refused, then per
 * group of dialects with the same counts: values judged / agreeing with ajv / differing.
 * Values with no spelling in a dialect are not judged there.
 */
export function matrixTable(runs) {
  const dialects = [...new Set(runs.map((r) => r.dialect))];
  const rows = [...MATRIX_KEYWORDS, "all"];
  const count = (kw, d) => {
    const c = { cases: 0, refused: 0, judged: 0, agree: 0 };
    for (const r of runs) {
      if (r.dialect !== d || (kw !== "all" && !keywordsOf(r.case.schema).includes(kw))) continue;
      c.cases++;
      if (r.judged.refused) c.refused++;
      for (const v of r.judged.values ?? []) {
        if (v.text === undefined) continue;
        c.judged++;
        if (v.parsed === v.expected && v.grammar === v.expected && (!v.parsed || v.args)) c.agree++;
      }
    }
    return c;
  };
  const cells = new Map(dialects.map((d) => [d, rows.map((kw) => count(kw, d))]));
  const groups = new Map();
  for (const d of dialects) {
    const key = JSON.stringify(cells.get(d).map((c) => [c.judged, c.agree]));
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  const cols = [...groups.values()];
  const first = cells.get(dialects[0]);
  const lines = [
    `| keyword | cases | refused | ${cols.map((g) => g.join(", ")).join(" | ")} |`,
    `|---|--:|--:|${cols.map(() => "--:|").join("")}`,
    ...rows.map((kw, i) => {
      const per = cols.map((g) => {
        const c = cells.get(g[0])[i];
        return `${c.judged} / ${c.agree} / ${c.judged - c.agree}`;
      });
      return `| ${kw === "all" ? "**all cases**" : `\`${kw}\``} | ${first[i].cases} | ${first[i].refused} | ${per.join(" | ")} |`;
    }),
  ];
  return lines.join("\n");
}

// Hostile tool schemas: each case is a tool set a client could send and what toolmask must do
// with it: compile (then `walks` random walks of the mask parse as complete calls), or refuse it
// with a GrammarLimitError naming `limit` and `path` (or another 400-class schema error), before
// any native work. test/no-model/hostile-schemas.test.ts runs the cases marked `fast` in `npm test`;
// scripts/bench/bench-schemas.mjs runs every case in its own process and records time and peak RSS.

const fn = (name, properties, required = Object.keys(properties)) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties, required } },
});
const one = (schema) => [fn("f", { x: schema })];
/** The formats the grammar enforces (src/grammar/json-schema/formats.ts). */
const FORMATS = ["date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"];
const X = "tools[0].function.parameters.properties.x";

const nestArrays = (d) => {
  let s = { type: "integer" };
  for (let i = 0; i < d; i++) s = { type: "array", items: s };
  return s;
};
const nestObjects = (d) => {
  let s = { type: "integer" };
  for (let i = 0; i < d; i++) s = { type: "object", properties: { a: s }, required: ["a"] };
  return s;
};
const TYPES = [
  { type: "string", maxLength: 8 },
  { type: "integer" },
  { type: "boolean" },
  { type: "number" },
  { enum: ["a", "b"] },
];
const wide = (n) => [
  fn("wide", Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, TYPES[i % TYPES.length]])), ["p0"]),
];
const manyTools = (n) =>
  Array.from({ length: n }, (_, i) => fn(`tool_${i}`, { path: { type: "string" }, n: { type: "integer" } }));
// $refs point into the parameters schema, where tools keep their $defs
const withDefs = ($defs, x) => [
  {
    type: "function",
    function: { name: "f", parameters: { type: "object", $defs, properties: { x }, required: ["x"] } },
  },
];
const node = {
  type: "object",
  properties: { v: { type: "integer" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } },
  required: ["v"],
};
const mutual = {
  a: { type: "object", properties: { b: { $ref: "#/$defs/b" } } },
  b: { type: "array", items: { anyOf: [{ $ref: "#/$defs/a" }, { type: "null" }] } },
};

/**
 * `native`: refused by the native compile, not the lowering (what bench:schemas shows of the
 * native limits; the test skips these).
 * `finishes: false`: compiles, and no walk can end (the schema asks more than a walk writes).
 * @typedef {{ compiles: true, walks: number, finishes?: false } | { limit: string, path: string } | { error: string, path: string } | { native: string }} Outcome
 */
/** `options`: more buildToolGrammar options (toolChoice is "required"; parallel calls on unless said). */
/** @type {Array<{ name: string, dialect: string, tools: () => unknown[], options?: Record<string, unknown>, expect: Outcome, fast: boolean }>} */
export const HOSTILE_CASES = [
  ...[1, 2, 4, 8, 12, 16, 20, 24, 30].map((d) => ({
    name: `arrays nested ${d} deep`,
    dialect: "hermes",
    tools: () => one(nestArrays(d)),
    expect: { compiles: true, walks: 20 },
    fast: d % 4 !== 2,
  })),
  {
    name: "arrays nested 100 deep",
    dialect: "hermes",
    tools: () => one(nestArrays(100)),
    expect: { limit: "schemaNesting", path: `${X}${".items".repeat(63)}` },
    fast: true,
  },
  ...[1, 4, 8, 16, 30].map((d) => ({
    name: `objects nested ${d} deep`,
    dialect: "qwen3-coder",
    tools: () => one(nestObjects(d)),
    expect: { compiles: true, walks: 20 },
    fast: d !== 16,
  })),
  {
    name: "objects nested 100 deep",
    dialect: "qwen3-coder",
    tools: () => one(nestObjects(100)),
    expect: { limit: "schemaNesting", path: `${X}${".properties.a".repeat(63)}` },
    fast: true,
  },
  {
    name: "enum of 10,000 strings",
    dialect: "hermes",
    tools: () => one({ enum: Array.from({ length: 10_000 }, (_, i) => `value-${i}`) }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "enum of 10,001 values",
    dialect: "hermes",
    tools: () => one({ enum: Array.from({ length: 10_001 }, (_, i) => i) }),
    expect: { limit: "enumValues", path: `${X}.enum` },
    fast: true,
  },
  {
    name: "object of 40 properties",
    dialect: "hermes",
    tools: () => wide(40),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "object of 100 properties",
    dialect: "qwen3-coder",
    tools: () => wide(100),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "object of 1,000 properties",
    dialect: "hermes",
    tools: () => wide(1000),
    expect: { compiles: true, walks: 10 },
    fast: false,
  },
  {
    name: "object of 10,001 properties",
    dialect: "hermes",
    tools: () => wide(10_001),
    expect: { limit: "anyOrderItems", path: "tools[0].function.parameters.properties" },
    fast: true,
  },
  // an object that allows other keys excludes each declared name character by character
  {
    name: "a 128-character name next to additionalProperties",
    dialect: "hermes",
    tools: () => [
      fn(
        "f",
        {
          ["n".repeat(128)]: { type: "integer" },
          rest: {
            type: "object",
            properties: { ["k".repeat(128)]: { type: "integer" } },
            additionalProperties: { type: "integer" },
          },
        },
        [],
      ),
    ],
    expect: { compiles: true, walks: 20 },
    fast: false,
  },
  {
    name: "a 100,000-character property name",
    dialect: "hermes",
    tools: () => [
      fn("f", {
        x: { type: "object", properties: { ["k".repeat(100_000)]: { type: "integer" } }, additionalProperties: true },
      }),
    ],
    expect: { limit: "nameLength", path: `${X}.properties` },
    fast: true,
  },
  {
    name: "100 tools",
    dialect: "hermes",
    tools: () => manyTools(100),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "512 tools",
    dialect: "hermes",
    tools: () => manyTools(512),
    expect: { compiles: true, walks: 10 },
    fast: false,
  },
  {
    name: "513 tools",
    dialect: "hermes",
    tools: () => manyTools(513),
    expect: { limit: "tools", path: "tools" },
    fast: true,
  },
  {
    name: "5,000 tools",
    dialect: "hermes",
    tools: () => manyTools(5000),
    expect: { limit: "tools", path: "tools" },
    fast: true,
  },
  {
    name: "maxLength 1e9",
    dialect: "hermes",
    tools: () => one({ type: "string", maxLength: 1e9 }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "maxLength 1e300 (raw XML value)",
    dialect: "qwen3-coder",
    tools: () => one({ type: "string", maxLength: 1e300 }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "maxLength 100,000, one call",
    dialect: "hermes",
    tools: () => one({ type: "string", maxLength: 100_000 }),
    options: { parallelToolCalls: false },
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  // Bounds past 64 (1,024 for a raw XML string) are counted by the native engine, not unrolled:
  // any size costs the same.
  {
    name: "maxLength 100,000, parallel calls",
    dialect: "hermes",
    tools: () => one({ type: "string", maxLength: 100_000 }),
    options: { parallelToolCalls: true },
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "array of strings of maxLength 20,000",
    dialect: "hermes",
    tools: () => one({ type: "array", items: { type: "string", maxLength: 20_000 } }),
    options: { parallelToolCalls: false },
    expect: { compiles: true, walks: 10 },
    fast: false,
  },
  {
    name: "40 strings of maxLength 100,000",
    dialect: "hermes",
    tools: () => [
      fn(
        "f",
        Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`s${i}`, { type: "string", maxLength: 100_000 }])),
      ),
    ],
    expect: { compiles: true, walks: 10 },
    fast: true,
  },
  {
    name: "minItems 1e9",
    dialect: "hermes",
    tools: () => one({ type: "array", items: { type: "integer" }, minItems: 1e9 }),
    // no walk can write a billion items
    expect: { compiles: true, walks: 2, finishes: false },
    fast: true,
  },
  {
    name: "maxItems 1e300",
    dialect: "hermes",
    tools: () => one({ type: "array", items: { type: "integer" }, maxItems: 1e300 }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "maxItems 100,000, one call",
    dialect: "hermes",
    tools: () => one({ type: "array", items: { type: "integer" }, maxItems: 100_000 }),
    options: { parallelToolCalls: false },
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "maxItems 100,000, parallel calls",
    dialect: "hermes",
    tools: () => one({ type: "array", items: { type: "integer" }, maxItems: 100_000 }),
    options: { parallelToolCalls: true },
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "integer minimum 1e9",
    dialect: "hermes",
    tools: () => one({ type: "integer", minimum: 1e9 }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "integer in ±1e100",
    dialect: "hermes",
    tools: () => one({ type: "integer", minimum: -1e100, maximum: 1e100 }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "integer in ±1e300",
    dialect: "hermes",
    tools: () => one({ type: "integer", minimum: -1e300, maximum: 1e300 }),
    expect: { compiles: true, walks: 20 },
    fast: false,
  },
  {
    name: "integer minimum 1e308",
    dialect: "hermes",
    tools: () => one({ type: "integer", minimum: 1e308 }),
    expect: { error: "UnsupportedSchemaError", path: `${X}.minimum` },
    fast: true,
  },
  {
    name: "number minimum 1e300",
    dialect: "hermes",
    tools: () => one({ type: "number", minimum: 1e300 }),
    expect: { compiles: true, walks: 20 },
    fast: false,
  },
  {
    name: "recursive $ref (tree)",
    dialect: "hermes",
    tools: () => withDefs({ node }, { $ref: "#/$defs/node" }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "mutually recursive $refs",
    dialect: "mistral",
    tools: () => withDefs(mutual, { $ref: "#/$defs/a" }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "$ref to the root",
    dialect: "hermes",
    tools: () => [fn("f", { x: { type: "integer" }, again: { $ref: "#" } }, ["x"])],
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "pattern ^(a{1,30}){1,30}$",
    dialect: "hermes",
    tools: () => one({ type: "string", pattern: "^(a{1,30}){1,30}$" }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "pattern ^([a-z]+(-[a-z]+)*)+$",
    dialect: "hermes",
    tools: () => one({ type: "string", pattern: "^([a-z]+(-[a-z]+)*)+$" }),
    expect: { compiles: true, walks: 20 },
    fast: true,
  },
  {
    name: "pattern ^((a{1,100}){1,100}){1,100}$",
    dialect: "hermes",
    tools: () => one({ type: "string", pattern: "^((a{1,100}){1,100}){1,100}$" }),
    expect: { limit: "repetition", path: `${X}.pattern` },
    fast: true,
  },
  // Raw text whose bounded repetition may hold the value close's first character: the native
  // product copies the item's states per repetition (before, the lowering multiplied them out in
  // the IR: 500 was refused as more than 2,000,000 automaton states, 4,000 overflowed the stack).
  // A text of any characters in an anyOf branch (`maxLength`) is an until node of its own, counted
  // instead (large-bounds.test.ts).
  {
    name: "pattern ^(<|a){0,4096}$ (raw XML value)",
    dialect: "qwen3-coder",
    tools: () => one({ type: "string", pattern: "^(<|a){0,4096}$" }),
    expect: { compiles: true, walks: 10 },
    fast: true,
  },
  {
    name: "pattern ^(<|a){0,4097}$ (raw XML value)",
    dialect: "qwen3-coder",
    tools: () => one({ type: "string", pattern: "^(<|a){0,4097}$" }),
    expect: { limit: "repetition", path: X },
    fast: true,
  },
  {
    name: "pattern of 5,000 nested groups",
    dialect: "hermes",
    tools: () => one({ type: "string", pattern: `${"(".repeat(5000)}a${")".repeat(5000)}` }),
    expect: { limit: "schemaNesting", path: `${X}.pattern` },
    fast: true,
  },
  {
    name: "tuple of 256 schemas",
    dialect: "hermes",
    tools: () => one({ type: "array", prefixItems: Array.from({ length: 256 }, () => ({ type: "integer" })) }),
    expect: { compiles: true, walks: 10 },
    fast: false,
  },
  {
    name: "tuple of 10,000 schemas",
    dialect: "hermes",
    tools: () => one({ type: "array", prefixItems: Array.from({ length: 10_000 }, () => ({ type: "integer" })) }),
    expect: { limit: "tupleItems", path: `${X}.prefixItems` },
    fast: true,
  },
  {
    name: "pattern a{1000000}",
    dialect: "hermes",
    tools: () => one({ type: "string", pattern: "a{1000000}" }),
    expect: { limit: "repetition", path: `${X}.pattern` },
    fast: true,
  },
  ...["hermes", "qwen3-coder", "lfm2"].map((dialect) => ({
    name: `every enforced format, a parameter each (${dialect})`,
    dialect,
    tools: () => [
      fn("f", Object.fromEntries(FORMATS.map((f) => [f.replace("-", "_"), { type: "string", format: f }]))),
    ],
    expect: { compiles: true, walks: 20 },
    fast: dialect !== "lfm2",
  })),
  {
    name: "200 parameters of format uri",
    dialect: "hermes",
    tools: () => [
      fn("f", Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`u${i}`, { type: "string", format: "uri" }])), [
        "u0",
      ]),
    ],
    expect: { compiles: true, walks: 20 },
    fast: false,
  },
  {
    name: "anyOf of 1,000 objects",
    dialect: "hermes",
    tools: () =>
      one({
        anyOf: Array.from({ length: 1000 }, (_, i) => ({
          type: "object",
          properties: { [`k${i}`]: { type: "integer" } },
          required: [`k${i}`],
        })),
      }),
    expect: { compiles: true, walks: 20 },
    fast: false,
  },
];

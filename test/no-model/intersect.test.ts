// A string that must match several constraints at once (patterns, a format, minLength/maxLength,
// allOf of them) is one intersection: the native product of their automata (nfa_intersect.cpp).
// Here: the grammar and the parser accept exactly the strings that match every constraint (ajv's
// verdict) in JSON, Python literals and raw text, at lengths too large to unroll too; constraints
// that no string meets make a schema that matches no value; a product past the engine's limit is a
// GrammarLimitError naming the schema's JSON pointer, in the grammar and in the parser alike; and
// the exports write the product out exactly (expandIntersections: the same verdicts as the native
// product, on generated strings), or refuse it where it is large.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, compileGrammar, parseToolCalls } from "../../src/index.js";
import { qwen3 } from "../support/vocabs.js";
import type { Grammar } from "../../src/grammar/ir.js";
import { jsonSchemaToIR } from "../../src/grammar/json-schema/index.js";
import { expandIntersections } from "../../src/grammar/export/intersect.js";
import { toEbnf } from "../../src/grammar/export/ebnf.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { pyString, writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { getDialect } from "../../src/dialects/index.js";
import { ajvWithFormats } from "../support/ajv-formats.js";

const ajv = ajvWithFormats();
const RAW = { close: "</parameter>", trimNewline: true };
const SPELLINGS = [
  { syntax: "json", write: (s: string) => JSON.stringify(s) },
  { syntax: "python", write: (s: string) => pyString(s) },
  { syntax: "raw", write: (s: string) => `\n${s}\n${RAW.close}` },
] as const;

/** A deterministic generator (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** Strings of `alphabet`'s characters, of lengths around `lengths`. */
function strings(alphabet: string, lengths: number[], count: number, seed: number): string[] {
  const r = rng(seed);
  const chars = Array.from(alphabet);
  const out = new Set<string>();
  for (let i = 0; out.size < count && i < count * 4; i++) {
    const n = Math.max(0, lengths[Math.floor(r() * lengths.length)]! + Math.floor(r() * 5) - 2);
    out.add(Array.from({ length: n }, () => chars[Math.floor(r() * chars.length)]).join(""));
  }
  return [...out];
}

const CASES: Array<[string, Record<string, unknown>, string, number[]]> = [
  ["two unanchored patterns", { type: "string", allOf: [{ pattern: "a" }, { pattern: "b$" }] }, "abc", [0, 2, 4, 7]],
  ["a pattern and both lengths", { type: "string", pattern: "^x", minLength: 3, maxLength: 5 }, "xyz", [2, 4, 6]],
  ["a pattern and a length past any unrolling", { type: "string", pattern: "z$", maxLength: 2000 }, "yz", [1999, 2001]],
  ["a format and a pattern", { type: "string", format: "ipv4", pattern: "^10\\." }, "10.2", [5, 8, 10]],
  ["a format and a maxLength", { type: "string", format: "email", maxLength: 6 }, "ab@.c", [4, 6, 8]],
  [
    "an escape on both sides",
    { type: "string", allOf: [{ pattern: '^[^"]*$' }, { pattern: "\\\\" }] },
    'a"\\\n',
    [1, 3],
  ],
];

describe("an intersection's strings are those that match every constraint", () => {
  it.each(CASES)("%s: the grammar as ajv, in each spelling", (_name, schema, alphabet, lengths) => {
    const valid = ajv.compile(schema);
    const values = strings(alphabet, lengths, 120, 7);
    for (const { syntax, write } of SPELLINGS) {
      const accepts = grammarAcceptor(jsonSchemaToIR(schema, { syntax, raw: RAW }) as Grammar);
      try {
        const wrong = values.filter((v) => accepts(write(v)) !== valid(v));
        expect({ syntax, wrong: wrong.slice(0, 5) }).toEqual({ syntax, wrong: [] });
      } finally {
        accepts.dispose();
      }
    }
  });

  it.each(["hermes", "lfm2", "qwen3-coder"])("%s: the parser's verdict is ajv's", (dialect) => {
    const schema = { type: "string", pattern: "^x", minLength: 3, maxLength: 5 };
    const tools = [
      { type: "function" as const, function: { name: "f", parameters: { type: "object", properties: { v: schema } } } },
    ];
    const valid = ajv.compile(schema);
    for (const v of ["xy", "xyz", "xyzzy", "xyzzyz", "yzz"]) {
      const spec = getDialect(dialect);
      const text = writeOutput(spec, [writeCall(spec, "f", [["v", JSON.stringify(v), v]])]);
      const r = parseToolCalls(text, { dialect, tools });
      expect({ v, ok: r.toolCalls.length === 1 && r.incomplete.length === 0 }).toEqual({ v, ok: valid(v) });
    }
  });

  it("constraints no string meets: a schema that matches no value (or an alternative dropped)", () => {
    expect(() => jsonSchemaToIR({ type: "string", allOf: [{ pattern: "^[0-9]+$" }, { pattern: "^[a-z]+$" }] })).toThrow(
      /matches no value/,
    );
    expect(() => jsonSchemaToIR({ type: "string", pattern: "^(ab)+$", minLength: 3, maxLength: 3 })).toThrow(
      /matches no value/,
    );
    const accepts = grammarAcceptor(
      jsonSchemaToIR({ anyOf: [{ type: "string", format: "uuid", pattern: "^x" }, { type: "integer" }] }) as Grammar,
    );
    expect([accepts('"x"'), accepts("1")]).toEqual([false, true]);
  });

  it("a product past the limit: GrammarLimitError naming the schema, from the grammar and from the parser", () => {
    // unrolled repetitions of at least one character: thousands of states each, paired
    const v = {
      type: "string",
      allOf: [{ pattern: "^([a-z]{1,60}-){1,60}$" }, { pattern: "^([a-z-]{1,59}q){1,60}-?$" }],
    };
    const tools = [
      {
        type: "function" as const,
        function: { name: "f", parameters: { type: "object", properties: { v }, required: ["v"] } },
      },
    ];
    const pointer = "tools[0].function.parameters.properties.v";
    for (const dialect of ["hermes", "qwen3-coder"]) {
      expect(() => grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" }))).toThrow(
        expect.objectContaining({
          name: "GrammarLimitError",
          limit: "automatonStates",
          message: expect.stringMatching(
            new RegExp(`^${pointer.replace(/[[\].]/g, "\\$&")}: the strings here must match 2 languages`),
          ),
        }),
      );
      const text =
        dialect === "hermes"
          ? '<tool_call>\n{"name": "f", "arguments": {"v": "a-"}}\n</tool_call>'
          : "<tool_call>\n<function=f>\n<parameter=v>\na-\n</parameter>\n</function>\n</tool_call>";
      expect(() => parseToolCalls(text, { dialect, tools })).toThrow(/the strings here must match 2 languages/);
    }
  });
});

describe("walks of the mask never start a string they cannot finish", () => {
  // near a maxLength the mask allows only what can still end in time: a text ending in "z" must
  // write its "z" by the 60th character, a host name end by its 253rd
  const schemas = [
    { type: "string", pattern: "z$", maxLength: 100 },
    { type: "string", format: "hostname" },
    { type: "string", allOf: [{ pattern: "^a" }, { pattern: "[0-9]$" }], minLength: 70, maxLength: 80 },
  ];
  it.each(["hermes", "lfm2", "qwen3-coder"])("%s", (dialect) => {
    const v = qwen3();
    for (const schema of schemas) {
      const tools = [
        {
          type: "function" as const,
          function: { name: "f", parameters: { type: "object", properties: { v: schema }, required: ["v"] } },
        },
      ];
      const valid = ajv.compile(schema);
      const m = compileGrammar(buildToolGrammar({ dialect, tools, toolChoice: "required" }), v).createMatcher();
      const walks = m.randomWalks({
        count: 60,
        seed: 3,
        maxTokens: 400,
        leaveProbability: 0.05,
        shortProbability: 0.9,
      });
      const problems: string[] = [];
      let finished = 0,
        longest = 0;
      for (const w of walks) {
        if (w.stuck) problems.push("stuck");
        if (!w.terminated) continue;
        finished++;
        const text = Buffer.concat([...w.tokens.subarray(0, -1)].map((id) => Buffer.from(v.tokenBytes(id)))).toString();
        const r = parseToolCalls(text, { dialect, tools });
        const values = r.toolCalls.map((c) => JSON.parse(c.function.arguments).v);
        if (values.length === 0 || r.incomplete.length > 0 || !values.every((x) => valid(x)))
          problems.push(`invalid: ${text}`);
        for (const x of values) longest = Math.max(longest, typeof x === "string" ? Array.from(x).length : 0);
      }
      m.dispose();
      expect({ schema, problems: problems.slice(0, 3) }).toEqual({ schema, problems: [] });
      expect(finished).toBeGreaterThan(10);
      // the walks went to the bound itself (a host name: 253 characters and its final dot)
      expect({ schema, longest }).toEqual({ schema, longest: schema.maxLength ?? 254 });
    }
  });
});

describe("the exports write an intersection out, or refuse it", () => {
  it.each(CASES.filter(([, s]) => !(typeof s.maxLength === "number" && s.maxLength > 100)))(
    "%s: the written-out grammar accepts what the native product does",
    (_name, schema, alphabet, lengths) => {
      for (const { syntax, write } of SPELLINGS) {
        const ir = jsonSchemaToIR(schema, { syntax, raw: RAW }) as Grammar;
        const native = grammarAcceptor(ir);
        const written = grammarAcceptor(expandIntersections(ir));
        try {
          for (const v of strings(alphabet, lengths, 80, 11)) {
            const text = write(v);
            expect({ syntax, text, written: written(text) }).toEqual({ syntax, text, written: native(text) });
          }
        } finally {
          native.dispose();
          written.dispose();
        }
      }
    },
  );

  it("refuses one past maxIntersectStates, naming the schema", () => {
    expect(() => toEbnf(jsonSchemaToIR({ type: "string", format: "hostname" }), { target: "gbnf" })).toThrow(
      /"format": "hostname": the strings here must match .*not exportable/,
    );
    expect(() =>
      toEbnf(jsonSchemaToIR({ type: "string", pattern: "z$", maxLength: 2000 }, {}, "$.x"), { target: "gbnf" }),
    ).toThrow(/^toEbnf: \$\.x: the strings here must match 2 languages/);
  });
});

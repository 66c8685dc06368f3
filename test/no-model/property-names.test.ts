// "propertyNames" means the same in every dialect, as ajv decides it: an object written in the
// dialect's own call syntax is a complete, valid call for the parser and a sentence of the tool
// grammar exactly where ajv finds it valid. The keys a grammar writes for additionalProperties are
// the names propertyNames accepts (less the declared ones); a declared name it refuses never
// appears, and a required one it refuses is a schema error naming the JSON path.
import AjvModule from "ajv";
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { matches, nameLanguage, withoutNames } from "../../src/grammar/json-schema/property-names.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";

interface Validator {
  compile(schema: unknown): (data: unknown) => boolean;
}
const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as new (o: object) => Validator;
const ajv = new Ajv({ strict: false, validateFormats: false });

const DEFS = { name: { type: "string", pattern: "^n_" } };
/** The tool `f(v)`, v of `schema`; the parameters hold `DEFS` under $defs. */
const tool = (schema: unknown) => ({
  type: "function" as const,
  function: { name: "f", parameters: { type: "object", properties: { v: schema }, required: ["v"], $defs: DEFS } },
});
const lower = { pattern: "^[a-z]+$" };

// [name, schema of v, values]; each value is checked against ajv's verdict, not an expectation written here.
const CASES: Array<[string, Record<string, unknown>, Array<Record<string, unknown>>]> = [
  [
    "type string (Claude Code's TaskCreate metadata)",
    { type: "object", propertyNames: { type: "string" }, additionalProperties: {} },
    [{}, { a: 1 }, { "x y": [1, { z: null }] }],
  ],
  [
    "pattern",
    { type: "object", propertyNames: lower, additionalProperties: { type: "integer" } },
    [{ abc: 1 }, { Abc: 1 }, { "": 1 }, { a1: 2 }, { ab: 1, cd: 2 }, { ab: 1, Cd: 2 }],
  ],
  [
    "unanchored pattern",
    { type: "object", propertyNames: { pattern: "x" }, additionalProperties: true },
    [{ axb: 1 }, { ab: 1 }, { x: 1 }],
  ],
  [
    "minLength and maxLength",
    { type: "object", propertyNames: { minLength: 2, maxLength: 3 }, additionalProperties: true },
    [{ ab: 1 }, { a: 1 }, { abcd: 1 }, { "é😀": 1 }, { "a\nb": 1 }],
  ],
  [
    "enum",
    { type: "object", propertyNames: { enum: ["x", "y", 3] }, additionalProperties: { type: "string" } },
    [{ x: "1" }, { z: "1" }, { x: "a", y: "b" }, { "3": "c" }],
  ],
  ["const", { type: "object", propertyNames: { const: "k" } }, [{ k: 1 }, { j: 1 }, {}]],
  [
    "declared properties, one name refused",
    {
      type: "object",
      properties: { ok: { type: "integer" }, Bad: { type: "integer" } },
      propertyNames: lower,
      additionalProperties: { type: "string" },
    },
    [{ ok: 1 }, { Bad: 1 }, { ok: 1, zz: "s" }, { ok: "s" }, { zz: 1 }, { ok: 1, Zz: "s" }],
  ],
  ["false: no names", { type: "object", propertyNames: false }, [{}, { a: 1 }]],
  ["type integer: no names", { type: "object", propertyNames: { type: "integer" } }, [{}, { "1": 1 }]],
  [
    "keywords of other types check no name",
    { type: "object", propertyNames: { minimum: 3, maxItems: 0 }, additionalProperties: true },
    [{ a: 1 }, {}],
  ],
  [
    "anyOf",
    {
      type: "object",
      propertyNames: { anyOf: [{ pattern: "^a" }, { maxLength: 1 }] },
      additionalProperties: true,
    },
    [{ abc: 1 }, { b: 1 }, { bc: 1 }],
  ],
  ["$ref", { type: "object", propertyNames: { $ref: "#/$defs/name" } }, [{ n_x: 1 }, { x: 1 }]],
  [
    "a required name it accepts, no others",
    {
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
      propertyNames: { maxLength: 2 },
      additionalProperties: false,
    },
    [{ id: "a" }, { id: "a", x: 1 }, {}],
  ],
  [
    "names with quotes, backslashes and escapes",
    { type: "object", propertyNames: { pattern: '^["\\\\a\\n]+$' }, additionalProperties: true },
    [{ 'a"a': 1 }, { "a\\": 1 }, { "a\nb": 1 }, { "\n": 1 }],
  ],
  [
    "an object whose enum values have names it refuses",
    { type: "object", propertyNames: lower, enum: [{ a: 1 }, { B: 1 }] },
    [{ a: 1 }, { B: 1 }],
  ],
];

/** The call f(args) as `dialect` writes it: each value as JSON (XML dialects read objects as JSON). */
const callText = (dialect: string, args: Record<string, unknown>) => {
  const spec = getDialect(dialect);
  return writeOutput(spec, [
    writeCall(
      spec,
      "f",
      Object.entries(args).map(([k, v]): [string, string] => [k, JSON.stringify(v)]),
    ),
  ]);
};

describe.each(dialects)("%s: propertyNames as ajv decides it", (dialect) => {
  it.each(CASES)("%s", (_name, schema, values) => {
    const tools = [tool(schema)];
    const valid = ajv.compile(tools[0]!.function.parameters);
    const accepts = grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" }));
    for (const value of values) {
      const text = callText(dialect, { v: value });
      const expected = valid({ v: value });
      const r = parseToolCalls(text, { dialect, tools });
      const parsed = r.toolCalls.length === 1 && r.incomplete.length === 0;
      expect({ value, text, parsed }).toEqual({ value, text, parsed: expected });
      if (parsed) expect(JSON.parse(r.toolCalls[0]!.function.arguments)).toEqual({ v: value });
      expect({ value, text, grammar: accepts(text) }).toEqual({ value, text, grammar: expected });
    }
  });

  it("on the parameters themselves: a parameter whose name it refuses is no parameter", () => {
    const params = {
      type: "object",
      properties: { good: { type: "string" }, Bad: { type: "string" } },
      propertyNames: lower,
    };
    const tools = [{ type: "function" as const, function: { name: "f", parameters: params } }];
    const valid = ajv.compile(params);
    const accepts = grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" }));
    for (const args of [{ good: "x" }, { Bad: "x" }, { good: "x", Bad: "y" }, {}]) {
      const text = callText(dialect, args);
      const r = parseToolCalls(text, { dialect, tools });
      const parsed = r.toolCalls.length === 1 && r.incomplete.length === 0;
      expect({ args, parsed }).toEqual({ args, parsed: valid(args) });
      expect({ args, grammar: accepts(text) }).toEqual({ args, grammar: valid(args) });
    }
  });

  it("a required name it refuses: no call can match, refused with the JSON path", () => {
    const nested = tool({ type: "object", properties: { Id: {} }, required: ["Id"], propertyNames: lower });
    const top = {
      type: "function" as const,
      function: {
        name: "f",
        parameters: { type: "object", properties: { Id: {} }, required: ["Id"], propertyNames: lower },
      },
    };
    for (const [t, path] of [
      [nested, "tools[0].function.parameters.properties.v.propertyNames"],
      [top, "tools[0].function.parameters.propertyNames"],
    ] as const) {
      for (const build of [
        () => buildToolGrammar({ dialect, tools: [t], toolChoice: "required" }),
        () => parseToolCalls("x", { dialect, tools: [t] }),
      ]) {
        let error: (Error & { path?: string }) | undefined;
        try {
          const g = build();
          // the lowering runs when the grammar is compiled
          if ("root" in (g as object)) grammarAcceptor(g as never);
        } catch (e) {
          error = e as Error & { path?: string };
        }
        expect(error?.name, String(error)).toBe("InvalidSchemaError");
        expect(error!.path).toBe(path);
        expect(error!.message).toMatch(/"Id" is required but "propertyNames" does not accept it/);
      }
    }
  });
});

describe("the names' language (src/grammar/json-schema/property-names.ts)", () => {
  const PATTERNS = ["^[a-c]+$", "a", "^(ab|a)*c?$", "^a{2,4}b?$", "^.{0,3}$", "b$", "^(a|b{0,2})*$"];
  const NAMES = ["", "a", "ab", "abc", "aab", "ac", "b", "bb", "aaaa"];
  const resolve = () => {
    throw new Error("no $ref here");
  };
  /** Random strings over a small alphabet, every short one among them. */
  const strings = (() => {
    const out = new Set<string>([""]);
    let frontier = [""];
    for (let n = 0; n < 4; n++) {
      frontier = frontier.flatMap((s) => ["a", "b", "c", "é"].map((c) => s + c));
      for (const s of frontier) out.add(s);
    }
    return [...out];
  })();

  it.each(PATTERNS)("pattern %s: the language is the RegExp's, and less the names exactly those names", (pattern) => {
    const rx = nameLanguage({ pattern }, "$", resolve)!;
    const re = new RegExp(pattern, "u");
    for (const s of strings) expect({ s, in: matches(rx, s) }).toEqual({ s, in: re.test(s) });
    for (let k = 0; k < NAMES.length; k++) {
      const names = NAMES.filter((_, i) => (i * 7 + k) % 3 === 0);
      const rest = withoutNames(rx, names);
      for (const s of strings)
        expect({ s, names, in: rest !== null && matches(rest, s) }).toEqual({
          s,
          names,
          in: re.test(s) && !names.includes(s),
        });
    }
  });

  it("lengths count code points, as ajv does", () => {
    const rx = nameLanguage({ minLength: 2, maxLength: 3 }, "$", resolve)!;
    for (const s of strings)
      expect({ s, in: matches(rx, s) }).toEqual({ s, in: [...s].length >= 2 && [...s].length <= 3 });
    expect(matches(rx, "😀😀")).toBe(true);
  });
});

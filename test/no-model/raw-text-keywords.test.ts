// String keywords mean the same in every dialect: a value written in the dialect's own call syntax
// (raw text between an XML dialect's value tags, a JSON string elsewhere) is a complete, valid call
// for the parser and a sentence of the tool grammar exactly where ajv finds the value valid. Raw-text
// edge cases: padding newlines, a value holding the value close but its last character, the empty value.
import AjvModule from "ajv";
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";

interface Validator {
  compile(schema: unknown): (data: unknown) => boolean;
}
const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as new (o: object) => Validator;
const ajv = new Ajv({ strict: false, validateFormats: false });

const DEFS = {
  code: { type: "string", pattern: "^[0-9]{4}$" },
  short: { type: "string", maxLength: 2 },
};
/** The tool `f(v)`, v of `schema`; the parameters hold `DEFS` under $defs. */
const tool = (schema: unknown) => ({
  type: "function" as const,
  function: {
    name: "f",
    parameters: { type: "object", properties: { v: schema }, required: ["v"], $defs: DEFS },
  },
});

// [name, schema, values]; each value is checked against ajv's verdict, not an expectation written here.
const CASES: Array<[string, Record<string, unknown>, string[]]> = [
  ["pattern anchored", { type: "string", pattern: "^[0-9]{4}$" }, ["1234", "ab12", "12345", ""]],
  ["pattern unanchored", { type: "string", pattern: "a+b" }, ["xaab", "xb", "ab"]],
  ["pattern untyped", { pattern: "^[a-c]*$" }, ["abc", "abd", ""]],
  ["pattern with <", { type: "string", pattern: "^x<" }, ["x<", "x<y", "y<"]],
  ["minLength", { type: "string", minLength: 3 }, ["abc", "ab", "", "abcdef"]],
  ["maxLength", { type: "string", maxLength: 3 }, ["abc", "abcd", ""]],
  ["minLength and maxLength", { type: "string", minLength: 1, maxLength: 3 }, ["", "a", "abc", "abcd"]],
  ["untyped minLength", { minLength: 2 }, ["ab", "a"]],
  ["enum", { type: "string", enum: ["a b", "c"] }, ["a b", "c", "d", ""]],
  ["const", { const: "x y" }, ["x y", "x", "y"]],
  ["enum with the empty string", { enum: ["", "z"] }, ["", "z", "q"]],
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
  ["untyped $ref", { $ref: "#/$defs/code" }, ["1234", "ab12"]],
  ["typed $ref", { type: "string", $ref: "#/$defs/code" }, ["1234", "ab12"]],
  ["$ref to maxLength", { $ref: "#/$defs/short" }, ["ab", "abc"]],
  ["plain string", { type: "string" }, ["", "a b", " x "]],
  // raw-text edge cases: padding newlines kept or trimmed exactly as the parser reads them
  ["leading and trailing newlines", { type: "string", minLength: 3 }, ["\nab", "ab\n", "\na\n", "\n\n", "\nabc\n"]],
  ["newlines by pattern", { type: "string", pattern: "^\\n?a\\n?$" }, ["a", "\na", "a\n", "\na\n", "\n\na"]],
  ["the empty value", { type: "string", pattern: "^$" }, ["", "a", "\n"]],
];

/** Each XML dialect's value close but its last character, in a value (it does not close it). */
const closePrefix = (dialect: string) => {
  const c = getDialect(dialect).call;
  return c.kind === "xml" ? c.valueClose.slice(0, -1) : "</parameter";
};

/** The call f(v = value) as `dialect` writes it: raw text in XML dialects, a JSON string elsewhere. */
const callText = (dialect: string, value: string) => {
  const spec = getDialect(dialect);
  return writeOutput(spec, [writeCall(spec, "f", [["v", JSON.stringify(value), value]])]);
};

describe.each(dialects)("%s: string keywords as ajv decides them", (dialect) => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ...CASES,
    [
      "a value holding the close but its last character",
      { type: "string", pattern: "^x<" },
      [`x${closePrefix(dialect)}`],
    ],
    ["the close's prefix and maxLength", { type: "string", maxLength: 4 }, [`x${closePrefix(dialect)}`, "x<"]],
  ];
  it.each(cases)("%s", (_name, schema, values) => {
    const tools = [tool(schema)];
    const valid = ajv.compile(tools[0]!.function.parameters);
    const accepts = grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" }));
    for (const value of values) {
      const text = callText(dialect, value);
      const expected = valid({ v: value });
      const r = parseToolCalls(text, { dialect, tools });
      const parsed = r.toolCalls.length === 1 && r.incomplete.length === 0;
      expect({ value, text, parsed }).toEqual({ value, text, parsed: expected });
      if (parsed) expect(JSON.parse(r.toolCalls[0]!.function.arguments)).toEqual({ v: value });
      expect({ value, text, grammar: accepts(text) }).toEqual({ value, text, grammar: expected });
    }
  });
});

describe.each(dialects)("%s: format as hermes has it", (dialect) => {
  const outcome = (d: string, schema: unknown) => {
    const tools = [tool(schema)];
    let accepts: (text: string) => boolean;
    try {
      accepts = grammarAcceptor(buildToolGrammar({ dialect: d, tools, toolChoice: "required" }));
    } catch (e) {
      return { refused: (e as Error).name };
    }
    return Object.fromEntries(
      ["a@b.co", "not an email"].map((v) => [
        v,
        [accepts(callText(d, v)), parseToolCalls(callText(d, v), { dialect: d, tools }).toolCalls.length],
      ]),
    );
  };
  it.each([
    ["typed", { type: "string", format: "email" }],
    ["untyped", { format: "email" }],
  ])("%s format: the same outcome as hermes", (_name, schema) => {
    expect(outcome(dialect, schema)).toEqual(outcome("hermes", schema));
  });
});

describe.each(dialects.filter((d) => getDialect(d).call.kind === "xml"))("%s: a close inside the value", (dialect) => {
  const close = (getDialect(dialect).call as { valueClose: string }).valueClose;
  // The value ends at the first close (the parser's rule): what follows it is no parameter, so the
  // call is invalid, and the grammar refuses the text as well, padding newline or not.
  it.each([
    ["maxLength", { type: "string", maxLength: 30 }],
    ["minLength and maxLength", { type: "string", minLength: 1, maxLength: 30 }],
    ["pattern", { type: "string", pattern: "^a" }],
    ["plain", { type: "string" }],
  ])("%s", (_name, schema) => {
    const tools = [tool(schema)];
    const accepts = grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" }));
    for (const value of [`a${close}b`, `a\n${close}b`]) {
      const text = callText(dialect, value);
      const r = parseToolCalls(text, { dialect, tools });
      expect({ text, parsed: r.toolCalls.length, grammar: accepts(text) }).toEqual({ text, parsed: 0, grammar: false });
    }
  });
});

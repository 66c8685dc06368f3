// Length, item and number bounds of any size, in every dialect: a value written in the dialect's
// own call syntax is a complete, valid call for the parser and a sentence of the tool grammar
// exactly where ajv finds it valid, at the bound and one past it. Bounds past 64 (1,024 for a raw
// XML string) are counted by the native engine (native/core/nfa_count.cpp), not unrolled: Claude
// Code's Workflow tool states maxLength 524,288, and a value of 524,289 characters must be refused
// as exactly as one of 3.
import AjvModule from "ajv";
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { timeoutForMeasured } from "../support/timeouts.js";

interface Validator {
  compile(schema: unknown): (data: unknown) => boolean;
}
const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as new (o: object) => Validator;
const ajv = new Ajv({ strict: false, validateFormats: false });

const tool = (schema: unknown) => ({
  type: "function" as const,
  function: { name: "f", parameters: { type: "object", properties: { v: schema }, required: ["v"] } },
});

const MIX = ["a", "b", "\n", '"', "\\", "é", "😀", " ", "c"];
/** `n` characters: ASCII, escapes in JSON (newline, quote, backslash), a 2-byte and a 4-byte one. */
const chars = (n: number) => Array.from({ length: n }, (_, i) => MIX[i % MIX.length]).join("");
const WORKFLOW = 524_288;
const INT_MAX = 2 ** 31 - 1;

// [name, schema, values]; each value is checked against ajv's verdict, not an expectation written here.
const CASES: Array<[string, Record<string, unknown>, unknown[]]> = [
  [
    "maxLength 524,288 (Claude Code's Workflow tool)",
    { type: "string", maxLength: WORKFLOW },
    ["x".repeat(WORKFLOW), "x".repeat(WORKFLOW + 1), `é${"y".repeat(WORKFLOW - 1)}`, `é${"y".repeat(WORKFLOW)}`],
  ],
  ["minLength 2,000", { type: "string", minLength: 2000 }, [chars(1999), chars(2000), chars(2600)]],
  [
    "minLength 2,000 and maxLength 2,010",
    { type: "string", minLength: 2000, maxLength: 2010 },
    [chars(1999), chars(2000), chars(2010), chars(2011)],
  ],
  ["maxLength 2^31 − 1", { type: "string", maxLength: INT_MAX }, [chars(3000), ""]],
  [
    "anyOf of maxLength 5,000 and a pattern",
    {
      anyOf: [
        { type: "string", maxLength: 5000 },
        { type: "string", pattern: "^a" },
      ],
    },
    ["b".repeat(5000), "b".repeat(5001), `a${"b".repeat(6000)}`],
  ],
  [
    "maxItems 5,000",
    { type: "array", items: { type: "integer" }, maxItems: 5000 },
    [Array.from({ length: 5000 }, (_, i) => i), Array.from({ length: 5001 }, (_, i) => i), []],
  ],
  [
    "minItems 2,000 of strings",
    { type: "array", items: { type: "string" }, minItems: 2000 },
    [Array.from({ length: 1999 }, (_, i) => `s${i}`), Array.from({ length: 2000 }, () => "")],
  ],
  ["maxItems 2^31 − 1", { type: "array", items: { type: "boolean" }, maxItems: INT_MAX }, [Array(3000).fill(true)]],
  ["integer maximum 2^31 − 1", { type: "integer", maximum: INT_MAX }, [INT_MAX, INT_MAX + 1, -5]],
  ["number maximum 10^6", { type: "number", maximum: 1e6 }, [1e6, 1000000.5, 999999.5]],
];

/** The call f(v = value) as `dialect` writes it: a string as raw text in XML dialects, JSON elsewhere. */
const callText = (dialect: string, value: unknown) => {
  const spec = getDialect(dialect);
  const json = JSON.stringify(value);
  return writeOutput(spec, [writeCall(spec, "f", [typeof value === "string" ? ["v", json, value] : ["v", json]])]);
};

// ~2.5 s per dialect for every case on 2 cores at load average 6 (compiling each case's grammar
// over the 256-byte vocabulary, and reading 4 values of ~0.5 MB).
const TIMEOUT = timeoutForMeasured(2500);

describe.each(dialects)("%s: bounds of any size, as ajv decides them", (dialect) => {
  it.each(CASES)(
    "%s",
    (_name, schema, values) => {
      const tools = [tool(schema)];
      const valid = ajv.compile(tools[0]!.function.parameters);
      const accepts = grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" }));
      for (const value of values) {
        const text = callText(dialect, value);
        const shown = `${JSON.stringify(value).slice(0, 40)}… (${typeof value === "string" ? `${Array.from(value).length} characters` : Array.isArray(value) ? `${value.length} items` : "a number"})`;
        const expected = valid({ v: value });
        const r = parseToolCalls(text, { dialect, tools });
        const parsed = r.toolCalls.length === 1 && r.incomplete.length === 0;
        expect({ shown, parsed }).toEqual({ shown, parsed: expected });
        if (parsed) expect(JSON.parse(r.toolCalls[0]!.function.arguments)).toEqual({ v: value });
        expect({ shown, grammar: accepts(text) }).toEqual({ shown, grammar: expected });
      }
    },
    TIMEOUT,
  );
});

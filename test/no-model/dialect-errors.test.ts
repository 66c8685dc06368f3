// Bad input to the dialect functions: an error that names what is wrong and what to do, thrown
// before anything is compiled or parsed — never a grammar or a parse that silently differs.
import { describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  dialects,
  getDialect,
  parseToolCalls,
  ToolCallStreamParser,
  ToolDefinitionError,
} from "../../src/index.js";

const tool = (
  name: string,
  parameters: unknown = { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
) => ({ type: "function", function: { name, parameters } });

// Every entry point that takes dialect options must refuse the same bad input the same way.
const entryPoints: Array<[string, (o: any) => unknown]> = [
  ["buildToolGrammar", (o) => buildToolGrammar(o)],
  ["parseToolCalls", (o) => parseToolCalls("", o)],
  ["ToolCallStreamParser", (o) => new ToolCallStreamParser(o)],
];

const cases: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    "unknown dialect",
    { dialect: "qwen4", tools: [tool("read")] },
    /unknown dialect "qwen4"; known dialects: .*qwen3-coder/,
  ],
  ["dialect not a name or definition", { dialect: 42, tools: [] }, /dialect must be a dialect name or definition/],
  ["options not an object", null as unknown as Record<string, unknown>, /options must be an object/],
  ["tools not an array", { dialect: "hermes", tools: { name: "read" } }, /tools must be an array/],
  ["a tool not an object", { dialect: "hermes", tools: ["read"] }, /tools\[0\] must be an object/],
  [
    "a tool without a name",
    { dialect: "hermes", tools: [{ type: "function", function: { parameters: {} } }] },
    /tools\[0\]\.function\.name must be a non-empty string/,
  ],
  [
    "duplicate tool names",
    { dialect: "qwen3-coder", tools: [tool("read"), tool("write"), tool("read")] },
    /tools\[2\]: duplicate tool name "read"/,
  ],
  [
    "parameters not an object schema",
    { dialect: "hermes", tools: [tool("read", { type: "array", items: {} })] },
    /parameters must describe an object \(type "object"\), got type "array"/,
  ],
  ["parameters an array", { dialect: "hermes", tools: [tool("read", [])] }, /parameters must be a JSON schema object/],
  [
    "properties not an object",
    { dialect: "hermes", tools: [tool("read", { type: "object", properties: [] })] },
    /properties must be an object/,
  ],
  [
    "required not names",
    { dialect: "hermes", tools: [tool("read", { type: "object", properties: {}, required: "path" })] },
    /required must be an array of names/,
  ],
  [
    "XML name with the name's close",
    { dialect: "qwen3-coder", tools: [tool("a>b")] },
    /"a>b" contains ">", which the qwen3-coder dialect uses to end a name/,
  ],
  [
    "XML parameter with the name's close",
    { dialect: "qwen3-coder", tools: [tool("read", { type: "object", properties: { "p>q": { type: "string" } } })] },
    /properties\.p>q: "p>q" contains ">"/,
  ],
  [
    "named name with [ARGS]",
    { dialect: "mistral", tools: [tool("x[ARGS]y")] },
    /contains "\[ARGS\]", which the mistral dialect uses to end a name/,
  ],
  [
    "JSON name with a quote",
    { dialect: "hermes", tools: [tool('say"hi')] },
    /contains "\\"", which the hermes dialect uses to end a name/,
  ],
  [
    "control character in a name",
    { dialect: "deepseek-v3.1", tools: [tool("a\u0001b")] },
    /contains a control character/,
  ],
  [
    "toolChoice names an undeclared tool",
    { dialect: "hermes", tools: [tool("read")], toolChoice: { type: "function", function: { name: "write" } } },
    /toolChoice names "write", which is not among the declared tools/,
  ],
  [
    "toolChoice not a known mode",
    { dialect: "hermes", tools: [tool("read")], toolChoice: "always" },
    /toolChoice must be "auto", "required", "none"/,
  ],
  [
    "required with no tools",
    { dialect: "hermes", tools: [], toolChoice: "required" },
    /toolChoice requires a call but no tools are declared/,
  ],
  [
    "reasoning not a mode",
    { dialect: "hermes", tools: [], reasoning: "yes" },
    /reasoning must be false, true or "forced-open"/,
  ],
  [
    "reasoning for a dialect without thoughts",
    { dialect: { ...getDialect("hermes"), name: "plain", reasoning: undefined }, tools: [], reasoning: true },
    /the plain dialect has no thought block; use reasoning: false/,
  ],
  [
    "maxValueLength negative",
    { dialect: "qwen3-coder", tools: [], maxValueLength: -1 },
    /maxValueLength must be a non-negative integer/,
  ],
];

describe.each(entryPoints)("%s refuses bad input", (_name, call) => {
  it.each(cases)("%s", (_label, options, message) => {
    let error: unknown;
    try {
      call(options);
    } catch (e) {
      error = e;
    }
    expect(error, "no error thrown").toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(message);
    if (!/unknown dialect/.test(String(error))) expect(error).toBeInstanceOf(ToolDefinitionError);
  });
});

describe("the same tools are fine where the dialect can carry them", () => {
  it("a name with > is fine in JSON dialects, a name with a quote in XML ones", () => {
    expect(() => buildToolGrammar({ dialect: "hermes", tools: [tool("a>b")] })).not.toThrow();
    expect(() => buildToolGrammar({ dialect: "qwen3-coder", tools: [tool('say"hi')] })).not.toThrow();
  });
  it("every registered dialect accepts an ordinary tool", () => {
    for (const d of dialects)
      expect(
        () => buildToolGrammar({ dialect: d, tools: [tool("read_file")], toolChoice: "required" }),
        d,
      ).not.toThrow();
  });
});

describe("the stream parser refuses misuse", () => {
  it("feed() with a non-string, feed() or end() after end(), and an unknown finish reason", () => {
    const p = new ToolCallStreamParser({ dialect: "hermes", tools: [tool("read")] });
    expect(() => p.feed(42 as unknown as string)).toThrow(/feed\(\) expects a string/);
    expect(() => p.end("tool_calls" as "stop")).toThrow(/finishReason must be "stop" or "length"/);
    p.feed("hello");
    expect(p.end().content).toBe("hello");
    expect(() => p.feed("more")).toThrow(/create a new ToolCallStreamParser/);
    expect(() => p.end()).toThrow(/already called/);
  });
  it("parseToolCalls with a non-string output", () => {
    expect(() => parseToolCalls(undefined as unknown as string, { dialect: "hermes" })).toThrow(
      /expects the output text as a string/,
    );
  });
});

// Seed-OSS as llama.cpp reads it (seed 003): a complete call whose scope was never closed is
// kept; a scope cut before its call ends is dropped from content; grammar and parser agree.
import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../../src/index.js";
import { toolGrammarAccepts } from "../support/tool-grammar.js";
import { fn } from "../support/tools.js";

const tools = [fn("get_weather", { city: { type: "string" }, days: { type: "integer" } }, ["city"])];
const options = { dialect: "seed-oss", tools };
const accepts = (text: string, o: object = options) => toolGrammarAccepts(o as typeof options, text);
const call =
  "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>";

describe("Seed-OSS", () => {
  it("a complete call whose </seed:tool_call> never came is kept, and the grammar agrees", () => {
    for (const text of [call, `${call}\n`]) {
      const r = parseToolCalls(text, options);
      expect(r.toolCalls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ city: "Paris", days: 3 }]);
      expect(r.finishReason).toBe("tool_calls");
      expect(accepts(text)).toBe(true);
    }
  });

  it("…but only at the end of the output: text after an unclosed scope makes the call unfinished", () => {
    const r = parseToolCalls(`${call}\nmore`, options);
    expect(r.toolCalls).toEqual([]);
    expect(accepts(`${call}\nmore`)).toBe(false);
  });

  it("a scope cut before its call ends is dropped from content", () => {
    for (const text of [
      "Hello <seed:tool_call>\n",
      "Hello <seed:tool_call>\n<function=get_wea",
      "Hello <seed:tool_call>\n<function=get_weather>\n<parameter=city>Par",
    ]) {
      const r = parseToolCalls(text, options);
      expect(r.content).toBe("Hello ");
      expect(r.toolCalls).toEqual([]);
      expect(r.incomplete).toHaveLength(1);
      expect(r.incomplete[0]!.kind).toBe("cut");
    }
  });

  it("string values are kept as generated, including digits and JSON-looking text", () => {
    const t = `<seed:tool_call>\n<function=get_weather>\n<parameter=city>\n42\n</parameter>\n</function>\n</seed:tool_call>`;
    expect(JSON.parse(parseToolCalls(t, options).toolCalls[0]!.function.arguments)).toEqual({ city: "\n42\n" });
  });

  it("required mode lets a thought come first, and text only under auto", () => {
    const o = { ...options, toolChoice: "required" as const, reasoning: true };
    const text = `<seed:think>plan</seed:think>Let me look.\n${call}\n</seed:tool_call>`;
    const r = parseToolCalls(text, o);
    expect(r.reasoning).toBe("plan");
    expect(r.content).toBe("Let me look.\n");
    expect(r.toolCalls).toHaveLength(1);
    // the parser keeps the text; the mask makes the call open the answer under required
    expect(accepts(text, o)).toBe(false);
    expect(accepts(text.replace("Let me look.", ""), o)).toBe(true);
    expect(accepts(text, { ...o, toolChoice: "auto" })).toBe(true);
  });
});

describe("Seed-OSS values written with Python's str() (its template's `| string`)", () => {
  const search = fn(
    "search",
    {
      query: { type: "string" },
      filters: {
        type: "object",
        properties: {
          lang: { type: "string" },
          deep: { type: "object", properties: { n: { type: "array", items: { type: "integer" } } } },
        },
        required: ["lang"],
      },
      tags: { type: "array", items: { type: "string" } },
      strict: { type: ["boolean", "null"] },
      ratio: { type: "number" },
    },
    ["query"],
  );
  const o = { dialect: "seed-oss", tools: [search] };
  const seedCall = (params: Record<string, string>) =>
    `<seed:tool_call>\n<function=search>\n${Object.entries(params)
      .map(([k, v]) => `<parameter=${k}>${v}</parameter>\n`)
      .join("")}</function>\n</seed:tool_call>`;

  it("dicts, lists, True/None and Python escapes become typed arguments; the grammar agrees", () => {
    const text = seedCall({
      query: "q",
      filters: "{'lang': 'ts', 'deep': {'n': [1, 2]}}",
      tags: `['a', "it's", 'tab\\there\\'s \\u00e9\\x41\\U0001F600']`,
      strict: "None",
      ratio: "1e-05",
    });
    const r = parseToolCalls(text, o);
    expect(r.incomplete).toEqual([]);
    expect(JSON.parse(r.toolCalls[0]!.function.arguments)).toEqual({
      query: "q",
      filters: { lang: "ts", deep: { n: [1, 2] } },
      tags: ["a", "it's", "tab\there's éA😀"],
      strict: null,
      ratio: 0.00001,
    });
    expect(toolGrammarAccepts(o as typeof options, text)).toBe(true);
  });

  it("JSON values are still read", () => {
    const text = seedCall({ query: "q", filters: '{"lang": "ts"}', tags: '["a"]', strict: "true" });
    expect(JSON.parse(parseToolCalls(text, o).toolCalls[0]!.function.arguments)).toEqual({
      query: "q",
      filters: { lang: "ts" },
      tags: ["a"],
      strict: true,
    });
    expect(toolGrammarAccepts(o as typeof options, text)).toBe(true);
  });

  it.each([
    ["a dict missing a required key", "filters", "{'deep': {'n': [1]}}"],
    ["a wrong-typed value inside a dict", "filters", "{'lang': 'ts', 'deep': {'n': ['1']}}"],
    ["an undeclared key", "filters", "{'lang': 'ts', 'x': 1}"],
    ["a list item of the wrong type", "tags", "['a', 2]"],
    ["a tuple", "tags", "('a', 'b')"],
    ["JSON's true inside a Python dict", "filters", "{'lang': 'ts', 'deep': {'n': [true]}}"],
  ])("%s makes the call invalid with a reason, and the grammar refuses it", (_label, key, value) => {
    const text = seedCall({ query: "q", [key]: value });
    const r = parseToolCalls(text, o);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toHaveLength(1);
    expect(r.incomplete[0]).toMatchObject({ kind: "invalid", name: "search" });
    expect(r.incomplete[0]!.reason).toMatch(new RegExp(`parameter "${key}".*does not fit its schema`));
    expect(toolGrammarAccepts(o as typeof options, text)).toBe(false);
  });

  it("a string parameter whose value looks like a dict stays that string", () => {
    const text = seedCall({ query: "{'a': 1}" });
    expect(JSON.parse(parseToolCalls(text, o).toolCalls[0]!.function.arguments)).toEqual({ query: "{'a': 1}" });
    expect(toolGrammarAccepts(o as typeof options, text)).toBe(true);
  });
});

// Seed 003: string arguments keep their value as generated; the rest are typed by the schema;
// a value that does not fit makes the call invalid with a reason — never coerced, never dropped.
import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../../src/index.js";
import { TYPED_TOOLS } from "../support/tools.js";

const options = { dialect: "qwen3-coder", tools: TYPED_TOOLS };
const call = (params: Record<string, string>) =>
  `<tool_call>\n<function=configure>\n${Object.entries(params)
    .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
    .join("")}</function>\n</tool_call>`;
const args = (params: Record<string, string>) => {
  const r = parseToolCalls(call(params), options);
  expect(r.incomplete).toEqual([]);
  return JSON.parse(r.toolCalls[0]!.function.arguments);
};

describe("values typed by the schema", () => {
  it('a string parameter keeps 42, {"a": 1}, true and padding-free text as strings', () => {
    expect(args({ label: "42" })).toEqual({ label: "42" });
    expect(args({ label: '{"a": 1}' })).toEqual({ label: '{"a": 1}' });
    expect(args({ label: "true" })).toEqual({ label: "true" });
    expect(args({ label: "  spaced  " })).toEqual({ label: "  spaced  " });
    expect(args({ label: "" })).toEqual({ label: "" });
    expect(args({ label: "line1\nline2" })).toEqual({ label: "line1\nline2" });
  });

  it("integer, number, boolean, object, array and enum values follow the schema", () => {
    expect(
      args({
        label: "x",
        count: "42",
        ratio: "0.5",
        enabled: "true",
        options: '{"a": 1}',
        tags: '["p", "q"]',
        mode: "safe",
      }),
    ).toEqual({ label: "x", count: 42, ratio: 0.5, enabled: true, options: { a: 1 }, tags: ["p", "q"], mode: "safe" });
  });

  it.each([
    ["count", "4x2", /"count".*does not fit its schema \(type "integer"\)/],
    ["count", "4.5", /"count"/],
    ["enabled", "yes", /"enabled"/],
    ["options", '{"a": "one"}', /"options"/],
    ["mode", "turbo", /"mode"/],
  ])("%s = %j makes the call invalid with a reason", (key, value, reason) => {
    const r = parseToolCalls(call({ label: "x", [key]: value }), options);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toHaveLength(1);
    expect(r.incomplete[0]).toMatchObject({ kind: "invalid", name: "configure" });
    expect(r.incomplete[0]!.reason).toMatch(reason);
    expect(r.incomplete[0]!.text).toContain(value);
  });

  it.each(["toString", "constructor", "__proto__", "hasOwnProperty"])(
    "a parameter named %s (an Object property, not a declared one) is undeclared",
    (key) => {
      const r = parseToolCalls(call({ label: "x", [key]: "1" }), options);
      expect(r.toolCalls).toEqual([]);
      expect(r.incomplete[0]!.reason).toMatch(`no parameter "${key}"`);
    },
  );

  it("an undeclared parameter or a parameter given twice is invalid, not ignored", () => {
    expect(parseToolCalls(call({ label: "x", colour: "red" }), options).incomplete[0]!.reason).toMatch(
      /no parameter "colour"/,
    );
    const twice = `<tool_call>\n<function=configure>\n<parameter=label>\na\n</parameter>\n<parameter=label>\nb\n</parameter>\n</function>\n</tool_call>`;
    expect(parseToolCalls(twice, options).incomplete[0]!.reason).toMatch(/given twice/);
  });
});

describe("JSON calls: once the name is read as a declared tool, the call stays a call", () => {
  const tools = TYPED_TOOLS;
  it.each([
    [
      "arguments not valid JSON",
      '<tool_call>\n{"name": "configure", "arguments": {"label": tru}}\n</tool_call>',
      /not valid JSON/,
    ],
    [
      "arguments not an object",
      '<tool_call>\n{"name": "configure", "arguments": [1]}\n</tool_call>',
      /must be a JSON object/,
    ],
  ])("%s: an invalid call with a reason, not content (the start was already streamed)", (_label, text, reason) => {
    const r = parseToolCalls(text, { dialect: "hermes", tools });
    expect(r.content).toBeNull();
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toHaveLength(1);
    expect(r.incomplete[0]).toMatchObject({ kind: "invalid", name: "configure", text });
    expect(r.incomplete[0]!.reason).toMatch(reason);
  });
});

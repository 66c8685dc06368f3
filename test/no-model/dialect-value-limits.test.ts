// maxValueLength, the per-value size limit every dialect honours: the grammar cannot write a string
// value longer than the limit (raw XML text, a JSON string argument, a string inside an object
// argument), and the parser, reading the same definition, calls such a call invalid — the two agree.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, compileGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { fn } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

const LIMIT = 5;
const TOOLS = [
  fn("put", {
    key: { type: "string" },
    meta: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
  }),
];

// Each dialect's call of put(key, meta) as its template writes it.
function call(dialect: string, key: string, note: string): string {
  const args = JSON.stringify({ key, meta: { note } });
  const spec = getDialect(dialect);
  switch (dialect) {
    case "qwen3-coder":
      return `<tool_call>\n<function=put>\n<parameter=key>\n${key}\n</parameter>\n<parameter=meta>\n{"note": ${JSON.stringify(note)}}\n</parameter>\n</function>\n</tool_call>`;
    case "seed-oss":
      return `<seed:tool_call>\n<function=put>\n<parameter=key>${key}</parameter>\n<parameter=meta>{"note": ${JSON.stringify(note)}}</parameter>\n</function>\n</seed:tool_call>`;
    case "glm-4.5":
      return `<tool_call>put\n<arg_key>key</arg_key>\n<arg_value>${key}</arg_value>\n<arg_key>meta</arg_key>\n<arg_value>{"note": ${JSON.stringify(note)}}</arg_value>\n</tool_call>`;
    case "minimax-m2":
      return `<minimax:tool_call>\n<invoke name="put">\n<parameter name="key">${key}</parameter>\n<parameter name="meta">{"note": ${JSON.stringify(note)}}</parameter>\n</invoke>\n</minimax:tool_call>`;
    case "hermes":
      return `<tool_call>\n{"name": "put", "arguments": ${args}}\n</tool_call>`;
    case "mistral":
      return `[TOOL_CALLS]put[ARGS]${args}`;
    case "mistral-nemo":
      return `[TOOL_CALLS][{"name": "put", "arguments": ${args}, "id": "abcdefghi"}]`;
    case "llama3":
      return `{"name": "put", "parameters": ${args}}`;
    case "qwen2.5-coder":
      return `{"name": "put", "arguments": ${args}}`;
    case "deepseek-v3.1":
      return `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>put<｜tool▁sep｜>${args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
    case "kimi-k2":
      return `<|tool_calls_section_begin|><|tool_call_begin|>functions.put:0<|tool_call_argument_begin|>${args}<|tool_call_end|><|tool_calls_section_end|>`;
    case "lfm2":
      return `<|tool_call_start|>[put(key='${key}', meta={'note': '${note}'})]<|tool_call_end|>`;
    case "generic":
      return `{"tool_calls": [{"name": "put", "arguments": ${args}}]}`;
    case "gpt-oss":
      return `<|channel|>commentary to=functions.put <|constrain|>json<|message|>${args}<|call|>`;
  }
  throw new Error(`no sample call for the ${spec.name} dialect: add one to test/no-model/dialect-value-limits.test.ts`);
}

describe.each(dialects)("%s: maxValueLength", (dialect) => {
  const options = { dialect, tools: TOOLS, toolChoice: "required" as const, maxValueLength: LIMIT };
  const grammarTakes = (text: string) => {
    const m = compileGrammar(buildToolGrammar(options), qwen3()).createMatcher();
    return m.acceptString(text) && m.isComplete();
  };

  it("values up to the limit: the grammar writes them and the parser reads a complete call", () => {
    const text = call(dialect, "abcde", "12345");
    expect(grammarTakes(text)).toBe(true);
    const r = parseToolCalls(text, options);
    expect(r.incomplete).toEqual([]);
    expect(JSON.parse(r.toolCalls[0]!.function.arguments)).toEqual({ key: "abcde", meta: { note: "12345" } });
  });

  it.each([
    ["a string argument", "abcdef", "1"],
    ["a string inside an object argument", "a", "123456"],
  ])("%s over the limit: the grammar refuses, the parser calls it invalid", (_label, key, note) => {
    const text = call(dialect, key, note);
    expect(grammarTakes(text)).toBe(false);
    const r = parseToolCalls(text, options);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toHaveLength(1);
    expect(r.incomplete[0]!.kind).toBe("invalid");
    expect(r.incomplete[0]!.reason).toMatch(/longer than maxValueLength \(5 characters\)/);
  });
});

// A model that repeats whitespace inside a call must still be forced forward: every whitespace
// run the grammar allows between a call's JSON tokens is bounded (as the JSON-schema lowering's).
describe.each(["hermes", "mistral-nemo", "llama3"])("%s: whitespace inside a call is bounded", (dialect) => {
  const options = { dialect, tools: TOOLS, toolChoice: "required" as const };
  const m = () => compileGrammar(buildToolGrammar(options), qwen3()).createMatcher();
  const pad = (n: number) => " ".repeat(n);
  const start: Record<string, string> = { hermes: "<tool_call>\n{", "mistral-nemo": "[TOOL_CALLS][", llama3: "{" };
  it("a long run of whitespace at a gap is refused; a short one is fine", () => {
    const at = start[dialect]!;
    expect(m().acceptString(at + pad(32))).toBe(true);
    expect(m().acceptString(at + pad(200))).toBe(false);
  });
  it("the parser agrees: a call with an over-long whitespace run is not a complete call", () => {
    const text = call(dialect, "a", "b")
      .replace('"name":', `${pad(100)}"name":`)
      .replace("[TOOL_CALLS][", `[TOOL_CALLS][${pad(100)}`);
    const g = m();
    expect(g.acceptString(text) && g.isComplete()).toBe(false);
    expect(parseToolCalls(text, options).toolCalls).toEqual([]);
  });
});

describe("XML raw text values keep their schema's maxLength", () => {
  const tools = [fn("tag", { label: { type: "string", maxLength: 3 } })];
  const text = (v: string) =>
    `<tool_call>\n<function=tag>\n<parameter=label>\n${v}\n</parameter>\n</function>\n</tool_call>`;
  it.each([[undefined], [10], [2]])(
    "with maxValueLength %s, the smaller bound holds in the grammar and the parser",
    (max) => {
      const options = {
        dialect: "qwen3-coder",
        tools,
        toolChoice: "required" as const,
        ...(max === undefined ? {} : { maxValueLength: max }),
      };
      const bound = Math.min(3, max ?? 3);
      const takes = (v: string) => {
        const m = compileGrammar(buildToolGrammar(options), qwen3()).createMatcher();
        return m.acceptString(text(v)) && m.isComplete();
      };
      const ok = "x".repeat(bound),
        long = "x".repeat(bound + 1);
      expect(takes(ok)).toBe(true);
      expect(parseToolCalls(text(ok), options).toolCalls).toHaveLength(1);
      expect(takes(long)).toBe(false);
      const r = parseToolCalls(text(long), options);
      expect(r.toolCalls).toEqual([]);
      expect(r.incomplete[0]!.reason).toMatch(
        new RegExp(
          `longer than ${bound === max ? "maxValueLength" : "its schema's maxLength"} \\(${bound} characters\\)`,
        ),
      );
    },
  );
});

// Whitespace around calls is glue (neither content nor part of a call) exactly where it is the
// grammar's whitespace: JSON's four characters. Other Unicode spaces are text, so under a choice
// that requires a call the parser reports them as content, and the grammar never lets a model
// write them before the call (fuzz seed 14, qwen3-coder input 820).
import { describe, expect, it } from "vitest";
import { buildToolGrammar, parseToolCalls } from "../../src/index.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { fn } from "../support/tools.js";

const tools = [fn("read", { path: { type: "string" } })];
const calls: Record<string, string> = {
  "qwen3-coder": "<tool_call>\n<function=read>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>",
  hermes: '<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call>',
};
const JSON_SPACES = [" ", "\n", "\t", "\r"];
const OTHER_SPACES = ["\u2028", "\u2029", "\u00a0", "\u3000", "\u000b", "\u000c", "\ufeff"].map((c) => [
  `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`,
  c,
]);

describe.each(Object.keys(calls))("%s, toolChoice required", (dialect) => {
  const options = { dialect, tools, toolChoice: "required" as const };
  const grammar = buildToolGrammar(options);

  it.each(JSON_SPACES)("%j before the call is glue, and the grammar lets a model write it", (ws) => {
    const text = ws + calls[dialect];
    const r = parseToolCalls(text, options);
    expect(r.toolCalls).toHaveLength(1);
    expect(r.content).toBeNull();
    expect(grammarAccepts(grammar, text)).toBe(true);
  });

  it.each(OTHER_SPACES)("%s before the call is content, which the grammar does not let a model write", (_name, ws) => {
    const text = ws + calls[dialect];
    const r = parseToolCalls(text, options);
    expect(r.toolCalls).toHaveLength(1);
    expect(r.content).toBe(ws);
    expect(grammarAccepts(grammar, text)).toBe(false);
  });

  it.each(OTHER_SPACES)("%s between two calls is content", (_name, ws) => {
    const r = parseToolCalls(calls[dialect] + ws + calls[dialect], options);
    expect(r.toolCalls).toHaveLength(2);
    expect(r.content).toBe(ws);
  });
});

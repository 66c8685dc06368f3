// A request resolved once (resolveRequest, src/dialects/options.ts) is taken as it is by the grammar
// builder, the parser and the verifier: its tools are not normalised again, and the tool-limit
// check is done once and remembered on it, whatever object holds the tools.
import { beforeEach, describe, expect, it, vi } from "vitest";

const counts = vi.hoisted(() => ({ normalizeTools: 0, grammars: 0 }));
vi.mock("../../src/dialects/tools.js", async (importOriginal) => {
  const m = await importOriginal<typeof import("../../src/dialects/tools.js")>();
  return {
    ...m,
    normalizeTools: (...a: Parameters<typeof m.normalizeTools>) => {
      counts.normalizeTools++;
      return m.normalizeTools(...a);
    },
  };
});
vi.mock("../../src/dialects/grammar.js", async (importOriginal) => {
  const m = await importOriginal<typeof import("../../src/dialects/grammar.js")>();
  return {
    ...m,
    buildToolGrammar: (...a: Parameters<typeof m.buildToolGrammar>) => {
      counts.grammars++;
      return m.buildToolGrammar(...a);
    },
  };
});

import {
  buildToolGrammar,
  GrammarLimitError,
  parseToolCalls,
  resolveRequest,
  ToolCallStreamParser,
} from "../../src/index.js";
import { verifyCalls } from "../../src/gateway/verify-calls.js";
import { fn } from "../support/tools.js";

const TOOLS = [fn("read", { path: { type: "string" } }), fn("write", { path: { type: "string" } })];
const CALL = '<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call>';

beforeEach(() => {
  counts.normalizeTools = 0;
  counts.grammars = 0;
});

describe("a resolved request", () => {
  it("is not resolved again by the grammar builder, the parser and the verifier", () => {
    const r = resolveRequest({ dialect: "hermes", tools: TOOLS, toolChoice: "required" });
    expect(counts.normalizeTools).toBe(1);
    expect(resolveRequest(r)).toBe(r);
    for (let i = 0; i < 5; i++) expect(parseToolCalls(CALL, r).toolCalls).toHaveLength(1);
    const p = new ToolCallStreamParser(r);
    p.feed(CALL);
    expect(p.end().toolCalls).toHaveLength(1);
    const v = verifyCalls([{ index: 0, name: "read", arguments: '{"path": "a"}' }], r, "stop");
    expect(v.toolCalls).toHaveLength(1);
    expect(counts.normalizeTools).toBe(1);
    // The tool-limit check built (and lowered) the grammar once, for all six parsers.
    expect(counts.grammars).toBe(1);
    buildToolGrammar(r);
    expect([counts.normalizeTools, counts.grammars]).toEqual([1, 2]);
    expect(r.checked.toolLimits).toBe(true);
  });

  it("plain options are resolved by each parser, and the limit check is not kept for their tools array", () => {
    const options = { dialect: "hermes", tools: TOOLS };
    parseToolCalls(CALL, options);
    parseToolCalls(CALL, options);
    expect(counts.normalizeTools).toBe(2);
    expect(counts.grammars).toBe(2);
  });

  it("refuses tools past a limit with the grammar's error, on every parser made from it", () => {
    const wide = [fn("pick", { a: { enum: Array.from({ length: 20_000 }, (_, i) => `v${i}`) } })];
    const r = resolveRequest({ dialect: "hermes", tools: wide });
    expect(() => parseToolCalls("", r)).toThrow(GrammarLimitError);
    expect(() => new ToolCallStreamParser(r)).toThrow(GrammarLimitError);
    expect(r.checked.toolLimits).toBe(false);
  });

  it("decides the tool choice once: the tools a call may name, and whether one is required", () => {
    const named = resolveRequest({
      dialect: "hermes",
      tools: TOOLS,
      toolChoice: { type: "function", function: { name: "write" } },
    });
    expect(named.tools.map((t) => t.name)).toEqual(["write"]);
    expect(named.declared.map((t) => t.name)).toEqual(["read", "write"]);
    expect([named.toolChoice, named.callRequired]).toEqual(["named", true]);
    const none = resolveRequest({ dialect: "hermes", tools: TOOLS, toolChoice: "none" });
    expect([none.tools, none.callRequired]).toEqual([[], false]);
    // A call to a declared tool the choice does not allow is refused by the verifier, saying so.
    const v = verifyCalls([{ index: 0, name: "read", arguments: '{"path": "a"}' }], named, "stop");
    expect(v.incomplete[0]?.reason).toBe('"read" is not allowed by tool_choice');
    const u = verifyCalls([{ index: 0, name: "delete", arguments: "{}" }], named, "stop");
    expect(u.incomplete[0]?.reason).toBe('"delete" is not a declared tool');
  });
});

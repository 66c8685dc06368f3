// Seed 000, in our API: the grammar (native matcher on Qwen3) and the parser give ONE
// completeness verdict. A call the grammar never closed is incomplete — never a call with
// an argument dropped — and a legal empty value is complete and present.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, compileGrammar, parseToolCalls } from "../../src/index.js";
import { FILE_TOOLS } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

const options = { dialect: "qwen3-coder", tools: FILE_TOOLS, toolChoice: "required" as const };
const grammar = () => compileGrammar(buildToolGrammar(options), qwen3());

function decode(text: string) {
  const m = grammar().createMatcher();
  const accepted = m.acceptString(text);
  return { accepted, complete: accepted && m.isComplete(), m };
}

const call = (body: string) => `<tool_call>\n${body}`;

describe("seed 000: truncated calls", () => {
  it("read whose empty path is closed but whose call is not: incomplete, not `read {}`", () => {
    const raw = call("<function=read>\n<parameter=path>\n\n</parameter></function>\n");
    const v = decode(raw);
    expect(v.accepted).toBe(true);
    expect(v.complete).toBe(false);
    const r = parseToolCalls(raw, options);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toMatchObject([{ name: "read", kind: "cut", missing: [] }]);
    expect(r.finishReason).toBe("stop");
  });

  it("write whose content arrives empty and the call is never closed: incomplete, content present", () => {
    const raw = call(
      "<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\n\n</parameter>\n",
    );
    expect(decode(raw)).toMatchObject({ accepted: true, complete: false });
    const r = parseToolCalls(raw, { ...options, finishReason: "length" });
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete[0]).toMatchObject({ name: "write", kind: "cut", missing: [] });
    expect(r.finishReason).toBe("length");
  });

  it("end of generation inside a value: refused by the mask; the parser reports the call cut, missing content", () => {
    const raw = call("<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\n");
    const v = decode(raw);
    expect(v.accepted).toBe(true);
    for (const id of qwen3().endOfGenerationIds) expect(v.m.acceptToken(id)).toBe(false);
    const r = parseToolCalls(raw, options);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete[0]).toMatchObject({ name: "write", kind: "cut", missing: ["content"] });
    expect(r.incomplete[0]!.reason).toMatch(/inside the value of "content"/);
  });

  it("a healthy multi-parameter call is complete and keeps both arguments", () => {
    const raw = call(
      "<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\nhello\n</parameter>\n</function>\n</tool_call>",
    );
    expect(decode(raw).complete).toBe(true);
    const r = parseToolCalls(raw, options);
    expect(r.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["write", { path: "/tmp/x.c", content: "hello" }],
    ]);
    expect(r.finishReason).toBe("tool_calls");
  });

  it('a legal empty value is complete and present (edit new_string: "")', () => {
    const raw = call(
      "<function=edit>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=old_string>\ndead line\n</parameter>\n<parameter=new_string>\n\n</parameter>\n</function>\n</tool_call>",
    );
    expect(decode(raw).complete).toBe(true);
    const r = parseToolCalls(raw, options);
    expect(JSON.parse(r.toolCalls[0]!.function.arguments)).toEqual({
      path: "/tmp/x.c",
      old_string: "dead line",
      new_string: "",
    });
  });

  it("the naive early close stays refused by the grammar and is an invalid call to the parser", () => {
    for (const raw of [
      call("<function=read>\n</function>\n</tool_call>"),
      call("<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n</function>\n</tool_call>"),
    ]) {
      expect(decode(raw).accepted).toBe(false);
      const r = parseToolCalls(raw, options);
      expect(r.toolCalls).toEqual([]);
      expect(r.incomplete[0]).toMatchObject({ kind: "invalid" });
      expect(r.incomplete[0]!.reason).toMatch(/missing required/);
      expect(r.finishReason).toBe("stop");
    }
  });

  it("after a value's close, prose is off-grammar and makes the call invalid", () => {
    const raw = call(
      "<function=read>\n<parameter=path>\n/tmp/x.c\n</parameter>\nThe bash tool seems to be stale</function>\n</tool_call>",
    );
    expect(decode(raw).accepted).toBe(false);
    expect(parseToolCalls(raw, options).incomplete[0]).toMatchObject({ kind: "invalid", name: "read" });
  });

  it("padded and unpadded closes agree: complete, and the same value", () => {
    for (const body of [
      "<function=read>\n<parameter=path>\n/tmp/x.c\n</parameter>\n</function>",
      "<function=read>\n<parameter=path>\n/tmp/x.c</parameter></function>",
      "<function=read>\n<parameter=path>\n/tmp/x.c\n</parameter></function>",
      "<function=read>\n<parameter=path>\n/tmp/x.c</parameter>\n</function>",
    ]) {
      const raw = call(`${body}\n</tool_call>`);
      expect(decode(raw).complete, body).toBe(true);
      expect(JSON.parse(parseToolCalls(raw, options).toolCalls[0]!.function.arguments)).toEqual({ path: "/tmp/x.c" });
    }
  });
});

describe("a call cut before its name ends", () => {
  it("is an unfinished call (not content) when the name could still be declared; text otherwise", () => {
    const r = parseToolCalls("Hello <tool_call>\n<function=wri", options);
    expect(r.content).toBe("Hello ");
    expect(r.incomplete).toMatchObject([{ kind: "cut", name: null }]);
    expect(r.incomplete[0]!.reason).toMatch(/function name/);
    const s = parseToolCalls("Hello <tool_call>\n<function=zz", options);
    expect(s.content).toBe("Hello <tool_call>\n<function=zz");
    expect(s.incomplete).toEqual([]);
  });
});

describe("Seed-OSS: a call whose scope close the output leaves out", () => {
  // The scope close may be missing where the output ends (the call is complete); an invalid call
  // ending the same way is invalid for its own reason, not cut.
  const seed = { dialect: "seed-oss", tools: FILE_TOOLS };
  it.each([
    [
      "an undeclared parameter",
      "<parameter=path>a</parameter>\n<parameter=nope>x</parameter>",
      /has no parameter "nope"/,
    ],
    ["a parameter given twice", "<parameter=path>a</parameter><parameter=path>b</parameter>", /given twice/],
  ])("%s: invalid with its reason", (_label, params, reason) => {
    for (const end of ["</function>", "</function>\n"]) {
      const r = parseToolCalls(`<seed:tool_call>\n<function=read>\n${params}\n${end}`, seed);
      expect(r.toolCalls).toEqual([]);
      expect(r.incomplete).toMatchObject([{ name: "read", kind: "invalid" }]);
      expect(r.incomplete[0]!.reason).toMatch(reason);
    }
    expect(parseToolCalls(`<seed:tool_call>\n<function=read>\n${params}\n</funct`, seed).incomplete).toMatchObject([
      { kind: "cut" },
    ]);
  });
});

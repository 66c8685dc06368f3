// Seed 000 (truncated tool calls) at the grammar's end: a call the grammar never
// closed is never complete, a legal empty value is, early closes stay refused, and
// padded and unpadded closes agree. The parser's half comes with the dialects.
import { describe, expect, it } from "vitest";
import { compileGrammar } from "../../src/index.js";
import { FILE_TOOLS, xmlToolCalls } from "../support/grammars.js";
import { qwen3 } from "../support/vocabs.js";

const grammar = () => compileGrammar(xmlToolCalls(FILE_TOOLS), qwen3());

function decode(text: string) {
  const m = grammar().createMatcher();
  const accepted = m.acceptString(text);
  return { accepted, complete: accepted && m.isComplete(), m };
}

describe("truncated calls are never complete", () => {
  it("read with an empty path, closed without </tool_call>: accepted byte for byte, not complete", () => {
    const v = decode("<tool_call>\n<function=read>\n<parameter=path>\n\n</parameter></function>\n");
    expect(v.accepted).toBe(true);
    expect(v.complete).toBe(false);
  });

  it("write whose content arrives empty and the call is never closed: not complete", () => {
    const v = decode(
      "<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\n\n</parameter>\n",
    );
    expect(v.accepted).toBe(true);
    expect(v.complete).toBe(false);
  });

  it("end of generation inside a value is refused", () => {
    const v = decode("<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\n");
    expect(v.accepted).toBe(true);
    for (const eog of qwen3().endOfGenerationIds) expect(v.m.acceptToken(eog)).toBe(false);
    expect(v.m.isComplete()).toBe(false);
  });
});

describe("the neighbours that must not move", () => {
  it("a healthy multi-parameter call is complete", () => {
    const v = decode(
      "<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\nhello\n</parameter>\n</function>\n</tool_call>",
    );
    expect(v.complete).toBe(true);
    const eos = qwen3().idOfPiece("<|im_end|>")!;
    expect(v.m.acceptToken(eos)).toBe(true);
  });

  it("a legal empty value (edit new_string) closed by the model is complete", () => {
    const v = decode(
      "<tool_call>\n<function=edit>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=old_string>\ndead line\n</parameter>\n<parameter=new_string>\n\n</parameter>\n</function>\n</tool_call>",
    );
    expect(v.complete).toBe(true);
  });

  it("the naive early close stays refused: no parameters, or one of two required", () => {
    expect(decode("<tool_call>\n<function=read>\n</function>").accepted).toBe(false);
    expect(
      decode("<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n</function>").accepted,
    ).toBe(false);
  });

  it("a parameter cannot be given twice", () => {
    expect(decode("<tool_call>\n<function=write>\n<parameter=path>\na\n</parameter>\n<parameter=path>").accepted).toBe(
      false,
    );
  });

  it("a call to an undeclared function is refused at its name", () => {
    expect(decode("<tool_call>\n<function=rea").accepted).toBe(true);
    expect(decode("<tool_call>\n<function=remove>").accepted).toBe(false);
  });
});

describe("the close returns the walk to the skeleton", () => {
  for (const opener of [
    "<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n",
    "<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c</parameter>",
    "<tool_call>\n<function=write>\n<parameter=path>\n\n</parameter>",
  ]) {
    it(JSON.stringify(opener.slice(opener.indexOf("<parameter"))), () => {
      const g = grammar();
      const at = () => {
        const m = g.createMatcher();
        expect(m.acceptString(opener)).toBe(true);
        return m;
      };
      expect(at().acceptString("The bash tool seems to be stale")).toBe(false);
      expect(at().acceptString("<parameter=content>")).toBe(true);
      expect(at().acceptString("</function>")).toBe(false); // content is still required
      expect(at().isComplete()).toBe(false);
    });
  }

  it("padded and unpadded closes are all complete", () => {
    for (const body of [
      "<parameter=path>\n/tmp/x.c\n</parameter>\n</function>",
      "<parameter=path>\n/tmp/x.c</parameter></function>",
      "<parameter=path>\n/tmp/x.c\n</parameter></function>",
      "<parameter=path>/tmp/x.c</parameter>\n</function>",
    ]) {
      expect(decode(`<tool_call>\n<function=read>\n${body}\n</tool_call>`).complete, body).toBe(true);
    }
  });
});

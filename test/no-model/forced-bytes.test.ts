// GrammarMatcher.forcedBytes: the bytes every continuation shares, as the matcher reports them
// (native/tests checks the automaton byte by byte; here the public API on real grammars).
import { describe, expect, it } from "vitest";
import { alt, buildToolGrammar, compileGrammar, literal, seq, token } from "../../src/index.js";
import { FILE_TOOLS } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("GrammarMatcher.forcedBytes", () => {
  it("is the text up to the first choice, and nothing where the grammar may end or a special token may come", () => {
    const v = qwen3();
    const m = compileGrammar(
      { root: seq(literal("abc"), alt(literal("d"), literal("e")), literal("fg"), alt(literal(""), literal("h"))) },
      v,
    ).createMatcher();
    expect(text(m.forcedBytes())).toBe("abc");
    expect(text(m.forcedBytes(2))).toBe("ab");
    expect(m.acceptString("abcd")).toBe(true);
    expect(text(m.forcedBytes())).toBe("fg"); // then it may end: "h" is not forced
    expect(m.acceptString("fg")).toBe(true);
    expect(m.forcedBytes().length).toBe(0);
    const special = compileGrammar(
      { root: seq(literal("x"), alt(token("<|im_start|>"), literal("y"))) },
      v,
    ).createMatcher();
    expect(text(special.forcedBytes())).toBe("x");
    special.acceptString("x");
    expect(special.forcedBytes().length).toBe(0);
  });

  it("inside a Qwen3-Coder call of one tool, the name is forced, and each byte of the forced text forces the rest", () => {
    const g = compileGrammar(
      buildToolGrammar({ dialect: "qwen3-coder", tools: FILE_TOOLS.slice(0, 1), toolChoice: "required" }),
      qwen3(),
    );
    const m = g.createMatcher();
    const open = qwen3().idOfPiece("<tool_call>")!;
    expect(m.acceptToken(open)).toBe(true);
    expect(m.forcedBytes().length).toBe(0); // the newline after <tool_call> is optional glue
    expect(m.acceptString("\n")).toBe(true);
    const f = m.forcedBytes();
    expect(text(f)).toBe(`<function=${FILE_TOOLS[0]!.function.name}>`);
    for (let k = 1; k <= f.length; k++) {
      expect(m.acceptBytes(f.subarray(k - 1, k))).toBe(true);
      expect(Array.from(m.forcedBytes())).toEqual(Array.from(f.subarray(k)));
    }
  });

  it("refuses a max that is not an integer from 0 to 2^20, by name", () => {
    const m = compileGrammar({ root: literal("a") }, qwen3()).createMatcher();
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 21])
      expect(() => m.forcedBytes(bad)).toThrow(/forcedBytes: max must be an integer/);
    expect(m.forcedBytes(0).length).toBe(0);
  });
});

// The token budget before a call that must come (toolChoice "required", a named tool), in every
// dialect on Qwen3's vocabulary: with `L` tokens left, every token the mask allows at the answer's
// start leaves room to finish after it (minTokensToFinish ≤ L − 1), so the whitespace a dialect
// lets stand before its first call (SeqNode.filler) is not taken where the call would no longer fit.
import { describe, expect, it } from "vitest";
import { buildToolGrammar } from "../../src/dialects/grammar.js";
import { dialects } from "../../src/dialects/index.js";
import { compileGrammar } from "../../src/grammar/compile.js";
import { fn } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

const tools = [fn("get_weather", { city: { type: "string" } })];

describe("the token budget before a required call", () => {
  it.each(dialects)("%s: no token at the start leaves less than the call needs", (dialect) => {
    const v = qwen3();
    for (const toolChoice of ["required", { type: "function", function: { name: "get_weather" } }] as const) {
      const m = compileGrammar(buildToolGrammar({ dialect, tools, toolChoice }), v).createMatcher();
      const least = m.minTokensToFinish();
      const mask = m.allocateBitmask();
      const newline = v.idOfPiece("\u010a")!; // "\n"
      let newlines = 0;
      // From the start, with `extra` tokens to spare: take "\n" while the mask allows it.
      for (const extra of [0, 1, 3]) {
        m.reset();
        for (let left = least + extra; left > 0; left--) {
          m.fillNextTokenBitmask(mask, { tokensLeft: left });
          const allowed: number[] = [];
          for (let id = 0; id < v.size && allowed.length < 4000; id++)
            if ((mask[id >>> 5]! & (1 << (id & 31))) !== 0) allowed.push(id);
          const over: string[] = [];
          for (const id of allowed) {
            if (!m.acceptToken(id)) continue;
            const need = m.minTokensToFinish();
            m.rollback(1);
            if (need > left - 1) over.push(`${JSON.stringify(v.piece(id))} needs ${need}`);
          }
          expect(over, `${dialect}, ${JSON.stringify(toolChoice)}, ${left} left of ${least + extra}`).toEqual([]);
          if (!allowed.includes(newline)) break;
          expect(m.acceptToken(newline)).toBe(true);
          newlines++;
        }
      }
      // hermes and qwen3-coder let whitespace stand before the call: it is taken while there is room
      if (dialect === "hermes" || dialect === "qwen3-coder") expect(newlines).toBe(1 + 3);
    }
  });

  it("text the answer is made of is never cut short to fit: JSON content beside tools, the generic dialect's response", () => {
    const v = qwen3();
    const person = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
    const cases = [
      // under "auto" with a response format beside tools the JSON is content, not a declared call
      {
        o: { dialect: "hermes", tools, toolChoice: "auto", responseFormat: { type: "json_schema", schema: person } },
        head: '{"name": "Ada',
      },
      // the generic dialect's answer is an envelope; its response text stands outside every call
      { o: { dialect: "generic", tools, toolChoice: "auto" }, head: '{"response": "The weather' },
    ] as const;
    for (const { o, head } of cases) {
      const m = compileGrammar(buildToolGrammar(o), v).createMatcher();
      expect(m.acceptString(head), head).toBe(true);
      const mask = m.allocateBitmask();
      const goesOn = [v.idOfPiece("\u0120is")!, v.idOfPiece("\u0120the")!];
      for (const left of [1, 2, 3, 8]) {
        m.fillNextTokenBitmask(mask, { tokensLeft: left });
        const allowed = goesOn.filter((id) => (mask[id >>> 5]! & (1 << (id & 31))) !== 0);
        expect([o.dialect, left, allowed]).toEqual([o.dialect, left, goesOn]);
      }
    }
  });
});

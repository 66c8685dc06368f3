// Tools past a schema limit are refused when the parser is made, in every dialect and for every
// output (the GrammarLimitError that compiling the tools' grammar gives), never only when a call
// to an over-limit tool appears.
import { describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  compileGrammar,
  dialects,
  getDialect,
  GrammarLimitError,
  parseToolCalls,
  ToolCallStreamParser,
} from "../../src/index.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { fn } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

const HUGE_ENUM = [fn("pick", { a: { enum: Array.from({ length: 20_000 }, (_, i) => `v${i}`) } })];
const WIDE = [
  fn("wide", Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [i ? `p${i}` : "a", { type: "string" }])), []),
];
const LONG_NAME = [fn("named", { a: { type: "string" }, ["n".repeat(200)]: { type: "string" } }, [])];
const TOO_MANY = Array.from({ length: 600 }, (_, i) => fn(`t${i}`, { a: { type: "string" } }));

describe.each(dialects)("%s", (dialect) => {
  const spec = getDialect(dialect);
  it.each([
    ["a 20,000-value enum", HUGE_ENUM],
    ["10,001 properties", WIDE],
    ["a 200-character property name", LONG_NAME],
    ["600 tools", TOO_MANY],
  ] as const)(
    "%s: the parser refuses the tools as compiling their grammar does, whatever the output",
    (_label, tools) => {
      const grammarError = (() => {
        try {
          compileGrammar(buildToolGrammar({ dialect, tools: [...tools] }), qwen3());
        } catch (e) {
          return e;
        }
      })();
      expect(grammarError).toBeInstanceOf(GrammarLimitError);
      const call = writeOutput(spec, [writeCall(spec, tools[0]!.function.name, [["a", '"v1"', "v1"]])]);
      for (const text of ["", "hello", call]) {
        let thrown: unknown;
        try {
          parseToolCalls(text, { dialect, tools: [...tools] });
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(GrammarLimitError);
        expect((thrown as GrammarLimitError).message).toBe((grammarError as GrammarLimitError).message);
      }
      expect(() => new ToolCallStreamParser({ dialect, tools: [...tools] })).toThrow(GrammarLimitError);
    },
  );
});

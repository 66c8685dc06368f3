// Numbers reach the client as the model wrote them: a call's `arguments` keeps every digit
// (never a round trip through a double), and a number a double cannot hold (JSON.parse reads
// ±Infinity) makes the call invalid with a reason, in every dialect and value form.
import { describe, expect, it } from "vitest";
import { dialects, getDialect, type ParserOptions } from "../../src/index.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { runChunks } from "../support/stream-run.js";
import { fn } from "../support/tools.js";

const TOOLS = [
  fn(
    "calc",
    {
      x: { type: "number" },
      n: { type: "integer" },
      o: { type: "object" },
      l: { type: "array", items: { type: "number" } },
    },
    [],
  ),
];
const opts = (dialect: string): ParserOptions => ({ dialect, tools: TOOLS });

/** The result of `calc` called with `args` (wire texts), whole and one character at a time alike. */
function calc(dialect: string, args: Array<[string, string]>) {
  const spec = getDialect(dialect);
  const text = writeOutput(spec, [writeCall(spec, "calc", args)]);
  const whole = runChunks(text, opts(dialect), []);
  expect(
    runChunks(
      text,
      opts(dialect),
      Array.from({ length: text.length - 1 }, (_, i) => i + 1),
    ),
  ).toEqual(whole);
  return whole.result;
}

const python = (dialect: string) => {
  const c = getDialect(dialect).call;
  return c.kind === "xml" && c.pythonLiterals === true;
};

describe.each(dialects)("%s", (dialect) => {
  it.each([
    [[["x", "9007199254740993"]], '{"x": 9007199254740993}'],
    [
      [
        ["n", "123456789012345678901234567890"],
        ["x", "1.0"],
      ],
      '{"n": 123456789012345678901234567890, "x": 1.0}',
    ],
    [
      [
        ["x", "-0"],
        ["l", "[1.10, 2E+3, 5e-999]"],
      ],
      '{"x": -0, "l": [1.10,2E+3,5e-999]}',
    ],
    [
      [["o", '{"big": 18446744073709551617, "f": [0.30000000000000004, -1e308]}']],
      '{"o": {"big":18446744073709551617,"f":[0.30000000000000004,-1e308]}}',
    ],
  ] as Array<[Array<[string, string]>, string]>)("%j keeps its digits: %s", (args, expected) => {
    const r = calc(dialect, args);
    expect(r.incomplete).toEqual([]);
    expect(r.toolCalls.map((c) => c.function.arguments)).toEqual([expected]);
  });

  it.each([
    ["1e999", [["x", "1e999"]], "1e999"],
    ["-1e400", [["x", "-1e400"]], "-1e400"],
    ["10^400 written out", [["n", "1" + "0".repeat(400)]], "1" + "0".repeat(19)],
    ["1.5e309 nested", [["o", '{"a": [1, 1.5e309]}']], "1.5e309"],
    ["-1.7976931348623159e308 in an array", [["l", "[2, -17976931348623159e292]"]], "-17976931348623159e292"],
  ] as Array<[string, Array<[string, string]>, string]>)(
    "%s is beyond a double: the call is invalid and says so",
    (_label, args, number) => {
      const r = calc(dialect, args);
      expect(r.toolCalls).toEqual([]);
      expect(r.incomplete).toMatchObject([{ kind: "invalid", name: "calc" }]);
      expect(r.incomplete[0]!.reason).toContain(number);
      expect(r.incomplete[0]!.reason).toMatch(/beyond the range of a double/);
    },
  );

  it.runIf(python(dialect))("Python literals keep their digits too, and overflow alike", () => {
    const r = calc(dialect, [["o", "{'big': 18446744073709551617, 'l': [True, None, 1.0]}"]]);
    expect(r.toolCalls.map((c) => c.function.arguments)).toEqual([
      '{"o": {"big":18446744073709551617,"l":[true,null,1.0]}}',
    ]);
    const over = calc(dialect, [["o", "{'a': 1e999}"]]);
    expect(over.toolCalls).toEqual([]);
    expect(over.incomplete[0]!.reason).toMatch(/1e999.*beyond the range of a double/);
  });
});

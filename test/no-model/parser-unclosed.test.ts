// A call that is never closed is never complete: an argument list, object, array or string whose
// closing delimiter is missing (or replaced by another one) makes the call invalid or cut, in every
// dialect. Checked per call, so a broken call after a complete one is seen too: whatever the parser
// calls complete, the grammar accepts up to that call's end (scripts/lib/call-verdicts.mjs).
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls, type ParserOptions } from "../../src/index.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { completeBeyondGrammar } from "../../scripts/lib/call-verdicts.mjs";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { markersOf } from "../../scripts/lib/parser-fuzz.mjs";
import { closingDrops } from "../../scripts/lib/verdict-mutations.mjs";
import { runChunks } from "../support/stream-run.js";
import { fn } from "../support/tools.js";
import { verdictLib } from "../support/verdict-lib.js";

const lib = verdictLib;
const TOOLS = [
  fn("get_weather", { city: { type: "string" } }),
  fn("delete_all", {}),
  fn("calc", { o: { type: "object" }, l: { type: "array", items: { type: "number" } }, m: { type: "string" } }, []),
];
const lfm2 = { dialect: "lfm2", tools: TOOLS };
const every = (text: string) => Array.from({ length: text.length - 1 }, (_, i) => i + 1);

describe("lfm2: an argument list closed by another bracket", () => {
  it("<|tool_call_start|>[get_weather(city='Paris']<|tool_call_end|> is an invalid call; the section closes", () => {
    const text = "<|tool_call_start|>[get_weather(city='Paris']<|tool_call_end|>";
    const r = parseToolCalls(text, lfm2);
    expect(r.toolCalls).toEqual([]);
    expect(r.finishReason).toBe("stop");
    expect(r.incomplete).toEqual([
      {
        index: 0,
        name: "get_weather",
        kind: "invalid",
        reason: `the argument list is closed by "]", not ")"`,
        missing: [],
        text: "get_weather(city='Paris'",
      },
    ]);
    expect(r.content).toBeNull();
    expect(runChunks(text, lfm2, every(text))).toEqual(runChunks(text, lfm2, []));
    expect(grammarAccepts(buildToolGrammar(lfm2), text)).toBe(false);
  });

  it("[get_weather(city='Paris'), delete_all(] gives one complete call and one invalid, not two complete", () => {
    const text = "<|tool_call_start|>[get_weather(city='Paris'), delete_all(]<|tool_call_end|>";
    const r = parseToolCalls(text, lfm2);
    expect(r.toolCalls.map((c) => [c.function.name, c.function.arguments])).toEqual([
      ["get_weather", '{"city": "Paris"}'],
    ]);
    expect(r.incomplete).toMatchObject([{ index: 1, name: "delete_all", kind: "invalid", text: "delete_all(" }]);
    expect(completeBeyondGrammar(lib, getDialect("lfm2"), text, lfm2)).toBeUndefined();
  });

  it("a nested bracket closed by another one keeps the call invalid", () => {
    for (const args of ["l=[1, 2)", "o={'a': 1]", "o={'a': [1}]"]) {
      const r = parseToolCalls(`<|tool_call_start|>[calc(${args})]<|tool_call_end|>`, lfm2);
      expect(r.toolCalls, args).toEqual([]);
      expect(r.incomplete[0], args).toMatchObject({ name: "calc" });
    }
  });
});

describe.each(dialects)("%s: each closing delimiter dropped in turn", (dialect) => {
  const spec = getDialect(dialect);
  const calls = [
    writeCall(spec, "get_weather", [["city", '"Paris"', "Paris"]], { index: 0 }),
    writeCall(
      spec,
      "calc",
      [
        ["o", '{"k": [1, {"j": "x"}], "s": "a)b"}'],
        ["l", "[1, 2]"],
        ["m", '"q\'s"', "q's"],
      ],
      { index: 1, id: "abcdefgh1" },
    ),
    writeCall(spec, "delete_all", [], { index: 2, id: "abcdefgh2" }),
  ];
  const text = writeOutput(spec, spec.call.kind === "harmony" ? [calls[1]!] : calls, {});
  const options: ParserOptions = { dialect, tools: TOOLS };

  it("the written answer is complete and the grammar accepts it", () => {
    const r = parseToolCalls(text, options);
    expect(r.incomplete).toEqual([]);
    expect(r.toolCalls.length).toBeGreaterThan(0);
    expect(grammarAccepts(buildToolGrammar(options), text)).toBe(true);
  });

  it("no call the parser reports complete is one the grammar refuses", () => {
    const drops = closingDrops(text, markersOf(spec));
    expect(drops.length).toBeGreaterThan(10);
    const failures = [];
    for (const d of drops) {
      const why = completeBeyondGrammar(lib, spec, d.text, options);
      if (why) failures.push(`${d.what}: ${why}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

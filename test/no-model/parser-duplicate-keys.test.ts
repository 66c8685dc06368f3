// A key given twice anywhere in a call is a verdict: the call is invalid and the reason names the
// key, in every dialect (an envelope's keys, a call object's name, arguments and id, argument keys
// at every depth), never a call that keeps one of the two values. Where the key is one the
// grammar writes once (a declared property, the envelope's and call object's own keys), the
// grammar refuses the text too; keys of a free-form object the grammar cannot count
// (docs/dialects.md), so there the parser's verdict is the only one.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls, type ParserOptions } from "../../src/index.js";
import { verifyCalls } from "../../src/gateway/verify-calls.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { completeBeyondGrammar } from "../../scripts/lib/call-verdicts.mjs";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { duplicateKeys, severalCalls } from "../../scripts/lib/verdict-mutations.mjs";
import { runChunks } from "../support/stream-run.js";
import { fn } from "../support/tools.js";
import { verdictLib } from "../support/verdict-lib.js";

const lib = verdictLib;
const TOOLS = [
  fn("get_weather", { city: { type: "string" } }),
  fn("delete_all", {}),
  fn("calc", { o: { type: "object" }, city: { type: "string" } }, []),
];
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const every = (text: string) => Array.from({ length: text.length - 1 }, (_, i) => i + 1);
const generic = { dialect: "generic", tools: TOOLS };
const weather = '{"name": "get_weather", "arguments": {"city": "x"}}';
const deleteAll = '{"name": "delete_all", "arguments": {}}';

describe("generic: the answer object", () => {
  it('{"tool_calls": […], "tool_calls": […]} is invalid, naming the key; no call is kept', () => {
    const text = `{"tool_calls": [${weather}], "tool_calls": [${deleteAll}]}`;
    const r = parseToolCalls(text, generic);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toEqual([
      {
        index: 0,
        name: null,
        kind: "invalid",
        reason: 'the key "tool_calls" is given twice in the answer object',
        missing: [],
        text,
      },
    ]);
    expect(r.content).toBeNull();
    expect(grammarAccepts(buildToolGrammar(generic), text)).toBe(false);
  });

  it("a tool_calls array whose second call lacks its } is not content: the call is invalid, under any choice", () => {
    const broken = '{"name": "delete_all", "arguments": {}';
    const text = `{"tool_calls": [${weather}, ${broken}]}`;
    for (const toolChoice of ["auto", "required"] as const) {
      const o = { ...generic, toolChoice };
      const r = parseToolCalls(text, o);
      expect(r.toolCalls.map((c) => c.function.name)).toEqual(["get_weather"]);
      expect(r.incomplete).toEqual([
        {
          index: 1,
          name: "delete_all",
          kind: "invalid",
          reason: 'the answer object is not valid JSON: "]" cannot come there',
          missing: [],
          text: broken,
        },
      ]);
      expect(r.content).toBe("]}");
      expect(runChunks(text, o, every(text))).toEqual(runChunks(text, o, []));
      expect(completeBeyondGrammar(lib, getDialect("generic"), text, o)).toBeUndefined();
      expect(grammarAccepts(buildToolGrammar(o), text)).toBe(false);
    }
  });

  it("an answer object that names no call and breaks stays content", () => {
    const text = '{"response": "hi"]';
    expect(parseToolCalls(text, generic)).toMatchObject({ content: text, toolCalls: [], incomplete: [] });
  });
});

describe("hermes: the reason names the key", () => {
  it('{"city": "x", "city": "rm -rf /"} is invalid because "city" is given twice', () => {
    const text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "x", "city": "rm -rf /"}}\n</tool_call>';
    const o = { dialect: "hermes", tools: TOOLS };
    const r = parseToolCalls(text, o);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toMatchObject([
      { name: "get_weather", kind: "invalid", reason: 'the key "city" is given twice', missing: [] },
    ]);
    // Nothing of the arguments streams: no text the model did not write ({"city": "rm -rf /"}).
    const { events } = runChunks(text, o, every(text));
    expect(events.filter((e) => e.type === "tool_call_arguments")).toEqual([]);
  });

  it("a key given twice inside a free-form object is invalid too, with where it is", () => {
    const text = '<tool_call>\n{"name": "calc", "arguments": {"o": {"a": {"b": 1, "b": 2}}}}\n</tool_call>';
    const r = parseToolCalls(text, { dialect: "hermes", tools: TOOLS });
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toMatchObject([{ reason: 'the key "b" is given twice in the object at /o/a' }]);
  });
});

describe.each(dialects)("%s: each key given twice in turn", (dialect) => {
  const spec = getDialect(dialect);
  const options: ParserOptions = { dialect, tools: TOOLS };
  const text = writeOutput(spec, [
    writeCall(spec, "calc", [
      ["city", '"Paris"', "Paris"],
      ["o", '{"inner": {"deep": [1, {"deepest": 2}]}, "side": "x"}'],
    ]),
  ]);

  it("the written answer is one complete call", () => {
    const r = parseToolCalls(text, options);
    expect(r.incomplete).toEqual([]);
    expect(r.toolCalls).toHaveLength(1);
  });

  it.each([
    ["the same value", undefined],
    ["another value", '"rm -rf /"'],
  ])("with %s: no call is complete, the reason names the key", (_, other) => {
    const variants = duplicateKeys(spec, text, other);
    expect(variants.length).toBeGreaterThanOrEqual(6);
    const failures = [];
    for (const v of variants) {
      const r = parseToolCalls(v.text, options);
      const key = /["']?([A-Za-z_]+)/.exec(v.what.replace(/^parameter.*/, ""))?.[1];
      const told = r.incomplete.some((x) => /given twice/.test(x.reason) && (!key || x.reason.includes(key)));
      if (r.toolCalls.length || !told)
        failures.push(`${v.what}: ${JSON.stringify({ calls: r.toolCalls, incomplete: r.incomplete })}`);
      // The copy's value never streams as an argument (the value read in place of the first).
      const deltas = runChunks(v.text, options, []).events.filter((e) => e.type === "tool_call_arguments");
      if (other && deltas.some((e) => String(e.delta).includes("rm -rf /")))
        failures.push(`${v.what}: the copy streams: ${JSON.stringify(deltas)}`);
      const why = completeBeyondGrammar(lib, spec, v.text, options);
      if (why) failures.push(`${v.what}: ${why}`);
      // A key the grammar writes once: the grammar refuses the text as well.
      const free = /"(inner|deep|deepest|side)"/.test(v.what);
      if (!free && grammarAccepts(buildToolGrammar(options), v.text))
        failures.push(`${v.what}: the grammar accepts it`);
    }
    expect(failures).toEqual([]);
  });
});

describe.each(dialects)("%s: several calls where one is allowed", (dialect) => {
  const spec = getDialect(dialect);
  const calls = [
    writeCall(spec, "get_weather", [["city", '"a"', "a"]], { index: 0, id: "abcdefgh0" }),
    writeCall(spec, "delete_all", [], { index: 1, id: "abcdefgh1" }),
  ];
  it("with parallelToolCalls false, at most the first is complete and the grammar accepts it", () => {
    for (const { text } of severalCalls(spec, calls, writeOutput)) {
      for (const toolChoice of ["auto", "required"] as const) {
        const o: ParserOptions = { dialect, tools: TOOLS, parallelToolCalls: false, toolChoice };
        const r = parseToolCalls(text, o);
        expect(r.toolCalls.length, text).toBeLessThanOrEqual(1);
        expect(completeBeyondGrammar(lib, spec, text, o), text).toBeUndefined();
      }
    }
  });

  it("every call written is a call, an incomplete or a dropped entry, never content; alike for every split", () => {
    const failures = [];
    for (const v of severalCalls(spec, calls, writeOutput)) {
      for (const parallelToolCalls of [true, false]) {
        const o: ParserOptions = { dialect, tools: TOOLS, parallelToolCalls };
        const r = parseToolCalls(v.text, o);
        const settled = r.toolCalls.length + r.incomplete.length + r.dropped.length;
        if (settled < v.settles)
          failures.push(`${v.what}, parallel ${parallelToolCalls}: ${settled} of ${v.settles}: ${JSON.stringify(r)}`);
        if (!same(runChunks(v.text, o, every(v.text)), runChunks(v.text, o, [])))
          failures.push(`${v.what}, parallel ${parallelToolCalls}: another result fed one character at a time`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("gateway, verify-only (an engine's structured tool_calls)", () => {
  it("arguments that give a key twice are invalid, with the key, where JSON.parse would keep the last", () => {
    const verify = (args: string) =>
      verifyCalls([{ index: 0, id: "c0", name: "calc", arguments: args }], { dialect: "hermes", tools: TOOLS }, "stop");
    const cases: Array<[string, string]> = [
      ['{"city": "x", "city": "rm -rf /"}', 'the key "city" is given twice'],
      ['{"o": {"s": "safe", "s": "rm -rf /"}}', 'the key "s" is given twice in the object at /o'],
    ];
    for (const [args, reason] of cases) {
      const r = verify(args);
      expect(r.toolCalls, args).toEqual([]);
      expect(r.incomplete, args).toMatchObject([{ name: "calc", kind: "invalid", reason }]);
    }
    expect(verify('{"o": {"s": "safe"}}').toolCalls).toHaveLength(1);
  });
});

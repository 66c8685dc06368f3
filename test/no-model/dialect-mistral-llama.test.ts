// Mistral Nemo (a JSON array of calls with ids), Mistral Small 3.2 ([CALL_ID]id in the mistral
// dialect), Llama 3.x (a marker-less call that opens the answer), and call ids taken from the wire
// (Kimi K2's functions.NAME:IDX included): the parser's verdicts, the ids in its events, and the
// grammar on a real vocabulary accepting what each real template writes.
import { describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  compileGrammar,
  parseToolCalls,
  ToolCallStreamParser,
  type StreamEvent,
} from "../../src/index.js";
import { renderAssistantToolCalls, toolsFor, type Call, type TemplateDialect } from "../support/template-fixtures.js";
import { FILE_TOOLS } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

const nemo = (name: string, args: unknown, id: string) =>
  `{"name": "${name}", "arguments": ${JSON.stringify(args)}, "id": "${id}"}`;
const nemoOut = (...calls: string[]) => `[TOOL_CALLS][${calls.join(", ")}]`;
const small = (name: string, args: unknown, id?: string) =>
  `[TOOL_CALLS]${name}${id === undefined ? "" : `[CALL_ID]${id}`}[ARGS]${JSON.stringify(args)}`;
const llama = (name: string, args: unknown) => `{"name": "${name}", "parameters": ${JSON.stringify(args)}}`;
const kimi = (calls: Array<[string, unknown, number]>) =>
  `<|tool_calls_section_begin|>${calls.map(([n, a, i]) => `<|tool_call_begin|>functions.${n}:${i}<|tool_call_argument_begin|>${JSON.stringify(a)}<|tool_call_end|>`).join("")}<|tool_calls_section_end|>`;

const READ = { path: "/etc/hosts" };
const WRITE = { path: "/tmp/x", content: "a, b]} {" };

interface Case {
  dialect: string;
  one: string;
  two: string;
  cut: string;
  undeclared: string;
}
const CASES: Case[] = [
  {
    dialect: "mistral-nemo",
    one: nemoOut(nemo("read", READ, "abcdefghi")),
    two: nemoOut(nemo("read", READ, "abcdefghi"), nemo("write", WRITE, "ABCDEFGH1")),
    cut: '[TOOL_CALLS][{"name": "write", "arguments": {"path": "/tmp/x", "con',
    undeclared: nemoOut(nemo("rm", { path: "/" }, "abcdefghi")),
  },
  {
    dialect: "mistral",
    one: small("read", READ, "abcdefghi"),
    two: small("read", READ, "abcdefghi") + small("write", WRITE, "ABCDEFGH1"),
    cut: '[TOOL_CALLS]write[CALL_ID]abcdefghi[ARGS]{"path": "/tmp/x", "con',
    undeclared: small("rm", { path: "/" }, "abcdefghi"),
  },
  {
    dialect: "llama3",
    one: llama("read", READ),
    two: "", // one call per message: see the Llama 3.x tests below
    cut: '{"name": "write", "parameters": {"path": "/tmp/x", "con',
    undeclared: llama("rm", { path: "/" }),
  },
];

const calls = (r: ReturnType<typeof parseToolCalls>) =>
  r.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]);

function stream(text: string, options: Parameters<typeof parseToolCalls>[1], step = 1): StreamEvent[] {
  const p = new ToolCallStreamParser(options);
  const ev: StreamEvent[] = [];
  for (let i = 0; i < text.length; i += step) ev.push(...p.feed(text.slice(i, i + step)));
  ev.push(...p.end().events);
  return ev;
}

describe.each(CASES)("$dialect: the parser", ({ dialect, one, two, cut, undeclared }) => {
  it("toolChoice auto: a call, and content alone", () => {
    const r = parseToolCalls(one, { dialect, tools: FILE_TOOLS });
    expect(calls(r)).toEqual([["read", READ]]);
    expect(r).toMatchObject({ content: null, incomplete: [], finishReason: "tool_calls" });
    const text = parseToolCalls("The file says {x: 1}.", { dialect, tools: FILE_TOOLS });
    expect(text).toMatchObject({ content: "The file says {x: 1}.", toolCalls: [], finishReason: "stop" });
  });

  it("toolChoice required and named read the call; a call to another tool than the named one is content", () => {
    expect(calls(parseToolCalls(one, { dialect, tools: FILE_TOOLS, toolChoice: "required" }))).toEqual([
      ["read", READ],
    ]);
    const named = { type: "function" as const, function: { name: "read" } };
    expect(calls(parseToolCalls(one, { dialect, tools: FILE_TOOLS, toolChoice: named }))).toEqual([["read", READ]]);
    const other = parseToolCalls(one, {
      dialect,
      tools: FILE_TOOLS,
      toolChoice: { type: "function", function: { name: "write" } },
    });
    expect(other).toMatchObject({ toolCalls: [], content: one });
  });

  it("toolChoice none: the call text is content", () => {
    expect(parseToolCalls(one, { dialect, tools: FILE_TOOLS, toolChoice: "none" })).toMatchObject({
      toolCalls: [],
      content: one,
      finishReason: "stop",
    });
  });

  it("an undeclared name is content, and nothing about the call was streamed", () => {
    const r = parseToolCalls(undeclared, { dialect, tools: FILE_TOOLS });
    expect(r).toMatchObject({ toolCalls: [], content: undeclared, incomplete: [] });
    expect(stream(undeclared, { dialect, tools: FILE_TOOLS }).every((e) => e.type === "content")).toBe(true);
  });

  it("a cut mid-arguments is incomplete with what is missing, never a call", () => {
    const r = parseToolCalls(cut, { dialect, tools: FILE_TOOLS, finishReason: "length" });
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toMatchObject([{ index: 0, name: "write", kind: "cut", missing: ["path", "content"] }]);
    expect(r.finishReason).toBe("length");
  });

  it.skipIf(two === "")("parallelToolCalls false: a second call is invalid, the first kept", () => {
    expect(calls(parseToolCalls(two, { dialect, tools: FILE_TOOLS }))).toEqual([
      ["read", READ],
      ["write", WRITE],
    ]);
    const r = parseToolCalls(two, { dialect, tools: FILE_TOOLS, parallelToolCalls: false });
    expect(calls(r)).toEqual([["read", READ]]);
    expect(r.incomplete).toMatchObject([
      { index: 1, name: "write", kind: "invalid", reason: "a second call, but parallelToolCalls is false" },
    ]);
  });
});

describe("Mistral Nemo", () => {
  it("reads the array as the template writes it and as JSON allows (whitespace), with content before it", () => {
    const text = `Sure.[TOOL_CALLS] [\n  ${nemo("read", READ, "abcdefghi")} ,\n${nemo("write", WRITE, "ABCDEFGH1")}\n]`;
    const r = parseToolCalls(text, { dialect: "mistral-nemo", tools: FILE_TOOLS });
    expect(calls(r)).toEqual([
      ["read", READ],
      ["write", WRITE],
    ]);
    expect(r.content).toBe("Sure.");
  });

  it("a call without its id, or with keys out of order, is invalid with a reason (llama.cpp refuses both)", () => {
    const noId = parseToolCalls(`[TOOL_CALLS][{"name": "read", "arguments": ${JSON.stringify(READ)}}]`, {
      dialect: "mistral-nemo",
      tools: FILE_TOOLS,
    });
    expect(noId.incomplete).toMatchObject([
      { name: "read", kind: "invalid", reason: 'the call\'s "id" must be 9 letters or digits, got none' },
    ]);
    const order = parseToolCalls(
      `[TOOL_CALLS][{"name": "read", "id": "abcdefghi", "arguments": ${JSON.stringify(READ)}}]`,
      { dialect: "mistral-nemo", tools: FILE_TOOLS },
    );
    expect(order.incomplete).toMatchObject([
      {
        name: "read",
        kind: "invalid",
        reason: 'the call object must hold exactly "name", "arguments", "id", in that order',
      },
    ]);
  });

  it("an array never closed keeps its finished calls and reports the cut", () => {
    const r = parseToolCalls(`[TOOL_CALLS][${nemo("read", READ, "abcdefghi")}, `, {
      dialect: "mistral-nemo",
      tools: FILE_TOOLS,
    });
    expect(calls(r)).toEqual([["read", READ]]);
    expect(r.incomplete).toMatchObject([{ index: 1, name: null, kind: "cut" }]);
  });
});

describe("Llama 3.x: a call opens the answer", () => {
  const o = { dialect: "llama3", tools: FILE_TOOLS };

  it("after whitespace only; the whitespace is glue, not content", () => {
    const r = parseToolCalls(`\n\n ${llama("read", READ)}\n`, o);
    expect(calls(r)).toEqual([["read", READ]]);
    expect(r.content).toBeNull();
  });

  it("content with braces is never a call, even when a call follows (llama.cpp fails the whole parse there)", () => {
    const text = `Use {x}, then ${llama("read", READ)}`;
    expect(parseToolCalls(text, o)).toMatchObject({ content: text, toolCalls: [], incomplete: [] });
    const prose = `Here it is: ${llama("read", READ)}`;
    expect(parseToolCalls(prose, o)).toMatchObject({ content: prose, toolCalls: [] });
  });

  it("an answer that is JSON but not a declared call is content", () => {
    expect(parseToolCalls(' {"a": 1} is JSON', o)).toMatchObject({ content: ' {"a": 1} is JSON', toolCalls: [] });
  });

  it("one call per message: text after the call, a second call included, is content", () => {
    const r = parseToolCalls(`${llama("read", READ)}; ${llama("write", WRITE)}`, o);
    expect(calls(r)).toEqual([["read", READ]]);
    expect(r.content).toBe(`; ${llama("write", WRITE)}`);
  });

  it("the OpenAI wrapper key is not the format: the call is invalid, not dropped", () => {
    const r = parseToolCalls(`{"type": "function", "name": "read", "parameters": ${JSON.stringify(READ)}}`, o);
    expect(r.incomplete).toMatchObject([{ name: "read", kind: "invalid" }]);
  });
});

describe("call ids from the wire", () => {
  const starts = (ev: StreamEvent[]) =>
    ev.filter((e) => e.type === "tool_call_start").map((e) => (e as { id: string }).id);

  it.each([1, 3, 1000])(
    "Nemo's \"id\", Small 3.2's [CALL_ID] and Kimi's functions.NAME:IDX are the calls' ids (chunks of %i)",
    (step) => {
      const cases: Array<[string, string, string[]]> = [
        [
          "mistral-nemo",
          nemoOut(nemo("read", READ, "abcdefghi"), nemo("write", WRITE, "ABCDEFGH1")),
          ["abcdefghi", "ABCDEFGH1"],
        ],
        ["mistral", small("read", READ, "abcdefghi") + small("write", WRITE), ["abcdefghi", "call_1"]],
        [
          "kimi-k2",
          kimi([
            ["read", READ, 12],
            ["write", WRITE, 3],
          ]),
          ["functions.read:12", "functions.write:3"],
        ],
        ["llama3", llama("read", READ), ["call_0"]],
      ];
      for (const [dialect, text, ids] of cases) {
        const o = { dialect, tools: FILE_TOOLS };
        expect(
          parseToolCalls(text, o).toolCalls.map((c) => c.id),
          dialect,
        ).toEqual(ids);
        expect(starts(stream(text, o, step)), dialect).toEqual(ids);
      }
    },
  );

  it("Kimi: the start waits until the index is complete", () => {
    const p = new ToolCallStreamParser({ dialect: "kimi-k2", tools: FILE_TOOLS });
    expect(starts(p.feed("<|tool_calls_section_begin|><|tool_call_begin|>functions.read:1"))).toEqual([]);
    expect(starts(p.feed("2"))).toEqual([]);
    expect(starts(p.feed("<|tool_call_argument_begin|>"))).toEqual(["functions.read:12"]);
  });

  it("Small 3.2: the start waits until the id is complete; Nemo's until the call object ends (the id comes last)", () => {
    const s = new ToolCallStreamParser({ dialect: "mistral", tools: FILE_TOOLS });
    expect(starts(s.feed("[TOOL_CALLS]read[CALL_ID]abcd"))).toEqual([]);
    expect(starts(s.feed("efghi[ARGS]"))).toEqual(["abcdefghi"]);
    const n = new ToolCallStreamParser({ dialect: "mistral-nemo", tools: FILE_TOOLS });
    expect(starts(n.feed('[TOOL_CALLS][{"name": "read", "arguments": {"path": "a"}, "id": "abcd'))).toEqual([]);
    expect(starts(n.feed('efghi"}'))).toEqual(["abcdefghi"]);
  });

  it("Small 3.2: an id the template would refuse on the next turn makes the call invalid", () => {
    const r = parseToolCalls(small("read", READ, "ab-d_"), { dialect: "mistral", tools: FILE_TOOLS });
    expect(r.incomplete).toMatchObject([
      { name: "read", kind: "invalid", reason: 'the call id "ab-d_" is not 9 letters or digits' },
    ]);
  });
});

describe("the grammar on Qwen3's vocabulary", () => {
  const CALLS: Call[][] = [
    [{ name: "write_file", arguments: { path: "/tmp/a b.txt", content: 'x\n"y"', ok: true, mode: 420 } }],
    [
      { name: "read_file", arguments: { path: "☃" } },
      { name: "noop", arguments: {} },
    ],
  ];
  const TEMPLATES: Array<[TemplateDialect, string, string]> = [
    ["mistral-nemo", "mistral-nemo", "mistralai-Mistral-Nemo-Instruct-2407.jinja"],
    ["mistral", "mistral", "Mistral-Small-3.2-24B-Instruct-2506.jinja"],
    ["mistral", "mistral", "unsloth-mistral-Devstral-Small-2507.jinja"],
    ["llama3", "llama3", "meta-llama-Llama-3.1-8B-Instruct.jinja"],
    ["llama3", "llama3", "meta-llama-Llama-3.3-70B-Instruct.jinja"],
    ["kimi-k2", "kimi-k2", "Kimi-K2-Instruct.jinja"],
  ];

  const matcher = (options: Parameters<typeof buildToolGrammar>[0]) =>
    compileGrammar(buildToolGrammar(options), qwen3()).createMatcher();

  it.each(TEMPLATES)(
    "%s accepts what %s writes (%s), and refuses a cut or an early close",
    (fixture, dialect, file) => {
      for (const c of CALLS) {
        if (dialect === "llama3" && c.length > 1) continue;
        const text = renderAssistantToolCalls(fixture, c, { template: file }).assistant;
        for (const toolChoice of ["auto", "required"] as const) {
          const m = matcher({ dialect, tools: toolsFor(c), toolChoice });
          expect(m.acceptString(text), `${toolChoice}: ${text}`).toBe(true);
          expect(m.isComplete(), text).toBe(true);
        }
        // Cut inside the last call's arguments: not complete, so end of generation is impossible there.
        const at = text.lastIndexOf(":") + 2;
        const m = matcher({ dialect, tools: toolsFor(c) });
        expect(m.acceptString(text.slice(0, at))).toBe(true);
        expect(m.isComplete(), text.slice(0, at)).toBe(false);
        // Closing the first call's arguments object before its first value: refused.
        const early = matcher({ dialect, tools: toolsFor(c) });
        const open =
          text.indexOf(dialect === "llama3" ? '"parameters": {' : dialect === "mistral-nemo" ? '"arguments": {' : "{") +
          (dialect === "llama3" ? 15 : dialect === "mistral-nemo" ? 14 : 1);
        if (Object.keys(c[0]!.arguments).length > 0)
          expect(early.acceptString(text.slice(0, open) + "}"), text.slice(0, open)).toBe(false);
      }
    },
    60_000,
  );

  it("Nemo: the id is 9 letters or digits, after the arguments", () => {
    const tools = toolsFor([{ name: "noop", arguments: {} }]);
    const ok = matcher({ dialect: "mistral-nemo", tools });
    expect(ok.acceptString('[TOOL_CALLS][{"name": "noop", "arguments": {}, "id": "abcDEF123"}]')).toBe(true);
    expect(ok.isComplete()).toBe(true);
    expect(
      matcher({ dialect: "mistral-nemo", tools }).acceptString(
        '[TOOL_CALLS][{"name": "noop", "arguments": {}, "id": "abc-EF123"',
      ),
    ).toBe(false);
    expect(
      matcher({ dialect: "mistral-nemo", tools }).acceptString('[TOOL_CALLS][{"name": "noop", "arguments": {}}'),
    ).toBe(false);
    expect(
      matcher({ dialect: "mistral-nemo", tools }).acceptString(
        '[TOOL_CALLS][{"name": "noop", "arguments": {}, "id": "abcDEF1234',
      ),
    ).toBe(false);
  });

  it("Nemo with parallelToolCalls false: the array holds one call", () => {
    const tools = toolsFor([{ name: "noop", arguments: {} }]);
    const m = matcher({ dialect: "mistral-nemo", tools, parallelToolCalls: false });
    expect(m.acceptString('[TOOL_CALLS][{"name": "noop", "arguments": {}, "id": "abcDEF123"}')).toBe(true);
    expect(m.acceptString(",")).toBe(false);
  });

  it("Llama 3.x under auto: content may hold braces but not open with one; required: the call only", () => {
    const tools = toolsFor([{ name: "noop", arguments: {} }]);
    const auto = () => matcher({ dialect: "llama3", tools });
    const braces = auto();
    expect(braces.acceptString("Use {x} here.")).toBe(true);
    expect(braces.isComplete()).toBe(true);
    expect(auto().acceptString(' {"a": 1}')).toBe(false);
    const lead = auto();
    expect(lead.acceptString('\n{"name": "noop", "parameters": {}}')).toBe(true);
    expect(lead.isComplete()).toBe(true);
    const cut = auto();
    expect(cut.acceptString('{"name": "noop", "param')).toBe(true);
    expect(cut.isComplete()).toBe(false);
    expect(matcher({ dialect: "llama3", tools, toolChoice: "required" }).acceptString("Sure")).toBe(false);
  });

  it("toolChoice none: no call structure at all, any text", () => {
    const m = matcher({ dialect: "mistral-nemo", tools: FILE_TOOLS, toolChoice: "none" });
    expect(m.acceptString("anything [TOOL_CALLS][ at all")).toBe(true);
    expect(m.isComplete()).toBe(true);
  });
});

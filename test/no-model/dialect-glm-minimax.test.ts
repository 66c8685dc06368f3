// GLM-4.5/4.6/4.7 and MiniMax-M2: the options every dialect honours, values typed by the schema,
// names decided at the name (also when one declared name is a prefix of another), the thought
// blocks the templates write, and the grammar (native matcher on Qwen3) agreeing with the parser.
import { describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  compileGrammar,
  parseToolCalls,
  ToolCallStreamParser,
  type DialectOptions,
  type StreamEvent,
} from "../../src/index.js";
import { glmCall, minimaxInvoke, minimaxSection } from "../support/corpus-glm-minimax.js";
import { renderAssistantToolCalls } from "../support/template-fixtures.js";
import { fn } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

const tools = [
  fn("read", { path: { type: "string" } }),
  fn("read_file", { path: { type: "string" }, limit: { type: "integer" } }, ["path"]),
  fn(
    "configure",
    {
      label: { type: "string" },
      count: { type: "integer" },
      enabled: { type: "boolean" },
      options: { type: "object", properties: { a: { type: "integer" } } },
    },
    ["label"],
  ),
];

type Params = Array<[string, string]>;
interface Wire {
  label: string;
  dialect: string;
  calls: (calls: Array<[string, Params]>) => string;
}
const WIRES: Wire[] = [
  {
    label: "GLM-4.5/4.6 spelling",
    dialect: "glm-4.5",
    calls: (cs) => cs.map(([n, p]) => glmCall(n, p, true)).join("\n"),
  },
  { label: "GLM-4.7 spelling", dialect: "glm-4.5", calls: (cs) => cs.map(([n, p]) => glmCall(n, p, false)).join("") },
  {
    label: "MiniMax-M2",
    dialect: "minimax-m2",
    calls: (cs) => minimaxSection(cs.map(([n, p]) => minimaxInvoke(n, p))),
  },
];

const compiled = new Map<string, ReturnType<typeof compileGrammar>>();
/** Whether the grammar accepts `text`, and accepts it as a finished answer. */
function grammar(options: DialectOptions, text: string): { accepted: boolean; complete: boolean } {
  const key = JSON.stringify(options);
  let g = compiled.get(key);
  if (!g) compiled.set(key, (g = compileGrammar(buildToolGrammar(options), qwen3())));
  const m = g.createMatcher();
  const accepted = m.acceptString(text);
  return { accepted, complete: accepted && m.isComplete() };
}

const named = (c: { function: { name: string; arguments: string } }) => ({
  name: c.function.name,
  arguments: JSON.parse(c.function.arguments),
});

function stream(text: string, options: DialectOptions, cuts: number[]) {
  const p = new ToolCallStreamParser(options);
  const events: StreamEvent[] = [];
  let at = 0;
  for (const c of [...cuts, text.length]) {
    events.push(...p.feed(text.slice(at, c)));
    at = c;
  }
  const { events: last, ...result } = p.end();
  return { result, events: [...events, ...last] };
}

describe.each(WIRES)("$label", ({ dialect, calls }) => {
  const o = { dialect, tools };
  const readFile = calls([
    [
      "read_file",
      [
        ["path", "/etc/hosts"],
        ["limit", "3"],
      ],
    ],
  ]);

  it("toolChoice auto: text beside a call is kept, and text alone is a finished answer", () => {
    const text = `Let me look.\n${readFile}`;
    const r = parseToolCalls(text, o);
    expect(r.content).toBe("Let me look.\n");
    expect(r.toolCalls.map(named)).toEqual([{ name: "read_file", arguments: { path: "/etc/hosts", limit: 3 } }]);
    expect(r.finishReason).toBe("tool_calls");
    expect(grammar(o, text)).toEqual({ accepted: true, complete: true });
    expect(grammar(o, "Just text.")).toEqual({ accepted: true, complete: true });
  });

  it("toolChoice required: a call must come; text alone is not a finished answer", () => {
    const req = { ...o, toolChoice: "required" as const };
    expect(parseToolCalls(readFile, req).toolCalls).toHaveLength(1);
    expect(grammar(req, readFile).complete).toBe(true);
    expect(grammar(req, "Just text.").complete).toBe(false);
  });

  it("toolChoice none: the call's text is content, no tool_calls", () => {
    const r = parseToolCalls(readFile, { ...o, toolChoice: "none" });
    expect(r.toolCalls).toEqual([]);
    expect(r.content).toBe(readFile);
    expect(r.finishReason).toBe("stop");
  });

  it("toolChoice named: only that tool is a call; its longer-named sibling is text", () => {
    const only = { ...o, toolChoice: { type: "function" as const, function: { name: "read" } } };
    const read = calls([["read", [["path", "a"]]]]);
    expect(parseToolCalls(read, only).toolCalls.map(named)).toEqual([{ name: "read", arguments: { path: "a" } }]);
    expect(grammar(only, read).complete).toBe(true);
    const r = parseToolCalls(readFile, only);
    expect(r.toolCalls).toEqual([]);
    expect(r.content).toBe(readFile);
    expect(grammar(only, readFile).accepted).toBe(false);
  });

  it("parallelToolCalls false: a second call is reported, not returned, and the grammar refuses it", () => {
    const two = calls([
      ["read", [["path", "a"]]],
      ["read_file", [["path", "b"]]],
    ]);
    const single = { ...o, parallelToolCalls: false };
    const r = parseToolCalls(two, single);
    expect(r.toolCalls.map(named)).toEqual([{ name: "read", arguments: { path: "a" } }]);
    expect(r.incomplete).toMatchObject([
      { name: "read_file", kind: "invalid", reason: "a second call, but parallelToolCalls is false" },
    ]);
    expect(grammar(single, two).accepted).toBe(false);
    expect(parseToolCalls(two, o).toolCalls.map(named)).toEqual([
      { name: "read", arguments: { path: "a" } },
      { name: "read_file", arguments: { path: "b" } },
    ]);
    expect(grammar(o, two).complete).toBe(true);
  });

  it("a cut mid-value is an incomplete call with what it misses, never a call without it", () => {
    const cut = readFile.slice(0, readFile.indexOf("/etc/ho") + 7);
    const r = parseToolCalls(cut, { ...o, finishReason: "length" });
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toMatchObject([{ name: "read_file", kind: "cut", missing: ["path"] }]);
    expect(r.incomplete[0]!.reason).toContain(`the value of "path"`);
    expect(r.finishReason).toBe("length");
    expect(grammar(o, cut)).toEqual({ accepted: true, complete: false });
  });

  it("an undeclared name is content, decided at the name: nothing about the call streams first", () => {
    const text = `ok ${calls([["read_files", [["path", "a"]]]])}`;
    const r = parseToolCalls(text, o);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toEqual([]);
    expect(r.content).toBe(text);
    const events = stream(
      text,
      o,
      Array.from({ length: text.length - 1 }, (_, i) => i + 1),
    ).events;
    expect(events.every((e) => e.type === "content")).toBe(true);
    // Refused as soon as no declared name fits: "read_files" is neither "read" nor "read_file".
    const at = text.indexOf("read_files") + "read_files".length;
    const early = new ToolCallStreamParser(o).feed(text.slice(0, at));
    expect(early.map((e) => (e.type === "content" ? e.delta : e.type)).join("")).toContain("read_file");
  });

  it("names that are prefixes of each other (read, read_file) both work, whatever the chunking", () => {
    const text = calls([
      [
        "read_file",
        [
          ["path", "b"],
          ["limit", "2"],
        ],
      ],
      ["read", [["path", "a"]]],
    ]);
    const ref = stream(text, o, []);
    expect(ref.result.toolCalls.map(named)).toEqual([
      { name: "read_file", arguments: { path: "b", limit: 2 } },
      { name: "read", arguments: { path: "a" } },
    ]);
    for (let i = 1; i < text.length; i++) expect(stream(text, o, [i]).result).toEqual(ref.result);
  });

  it("values are typed by the schema; a string stays as generated", () => {
    const text = calls([
      [
        "configure",
        [
          ["label", "42"],
          ["count", "7"],
          ["enabled", "true"],
          ["options", '{"a": 1}'],
        ],
      ],
    ]);
    expect(parseToolCalls(text, o).toolCalls.map(named)).toEqual([
      { name: "configure", arguments: { label: "42", count: 7, enabled: true, options: { a: 1 } } },
    ]);
    expect(grammar(o, text).complete).toBe(true);
    const bad = calls([
      [
        "configure",
        [
          ["label", "x"],
          ["count", "seven"],
        ],
      ],
    ]);
    const r = parseToolCalls(bad, o);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toMatchObject([{ name: "configure", kind: "invalid" }]);
    expect(r.incomplete[0]!.reason).toContain(`parameter "count"`);
    expect(grammar(o, bad).accepted).toBe(false);
  });

  it("the grammar refuses a call closed early or without a required argument; the parser calls it invalid", () => {
    for (const text of [calls([["read_file", []]]), calls([["read_file", [["limit", "1"]]]])]) {
      expect(grammar(o, text).accepted).toBe(false);
      expect(parseToolCalls(text, o).incomplete).toMatchObject([
        { name: "read_file", kind: "invalid", missing: ["path"] },
      ]);
    }
  });
});

describe("GLM-specific", () => {
  const o = { dialect: "glm-4.5", tools };

  it("a name the wire cannot carry is refused up front, saying which and why", () => {
    expect(() => parseToolCalls("", { dialect: "glm-4.5", tools: [fn("a<b", {})] })).toThrow(
      /tools\[0\]\.function\.name: "a<b" contains "<"/,
    );
    expect(() => parseToolCalls("", { dialect: "minimax-m2", tools: [fn('say">', {})] })).toThrow(/contains "\\">"/);
  });

  it("a name followed by neither a parameter nor the close is refused", () => {
    for (const text of ["<tool_call>readme</tool_call>", "<tool_call>read please</tool_call>"]) {
      const r = parseToolCalls(text, o);
      expect(r.content).toBe(text);
      expect(r.toolCalls).toEqual([]);
    }
  });

  it("whitespace opening the answer is glue before a call, and content before an undeclared one", () => {
    expect(parseToolCalls(`\n${glmCall("read", [["path", "a"]], true)}`, o).content).toBeNull();
    const refused = `\n${glmCall("nope", [], true)}`;
    expect(parseToolCalls(refused, o).content).toBe(refused);
    expect(parseToolCalls(" \n", o).content).toBeNull();
    expect(parseToolCalls("\nHello", o).content).toBe("\nHello");
  });

  it("GLM-4.6's thought (\\n<think>…</think>) and GLM-4.7's (opened by the prompt) are reasoning", () => {
    const call = glmCall("read", [["path", "a"]], true);
    const r46 = parseToolCalls(`\n<think>plan ${call}</think>\n${call}`, { ...o, reasoning: true });
    expect(r46.reasoning).toBe(`plan ${call}`);
    expect(r46.content).toBeNull();
    expect(r46.toolCalls).toHaveLength(1);
    expect(grammar({ ...o, reasoning: true }, `\n<think>plan</think>\n${call}`).complete).toBe(true);
    const r47 = parseToolCalls(`plan</think>${glmCall("read", [["path", "a"]], false)}`, {
      ...o,
      reasoning: "forced-open",
    });
    expect(r47.reasoning).toBe("plan");
    expect(r47.toolCalls).toHaveLength(1);
  });
});

describe("MiniMax-specific", () => {
  const o = { dialect: "minimax-m2", tools, reasoning: "forced-open" as const };

  it("the thought opened by the prompt, then the section, as the template writes them", () => {
    const turn = renderAssistantToolCalls("minimax-m2", [{ name: "read", arguments: { path: "a" } }], {
      reasoning: "plan",
    });
    const r = parseToolCalls(turn.assistant, o);
    expect(r.reasoning).toBe("plan\n");
    expect(r.content).toBeNull();
    expect(r.toolCalls.map(named)).toEqual([{ name: "read", arguments: { path: "a" } }]);
  });

  it("a section never closed, or cut after its opening, is incomplete", () => {
    const open = `<minimax:tool_call>\n${minimaxInvoke("read", [["path", "a"]])}`;
    expect(parseToolCalls(`plan</think>${open}`, o).incomplete).toMatchObject([{ kind: "cut" }]);
    expect(grammar(o, `plan</think>${open}`)).toEqual({ accepted: true, complete: false });
    expect(parseToolCalls("x <minimax:tool_call>\n", { ...o, reasoning: false })).toMatchObject({
      content: "x ",
      incomplete: [{ kind: "cut" }],
    });
    expect(grammar(o, "plan</think><minimax:tool_call>\n</minimax:tool_call>").accepted).toBe(false);
  });
});

describe("the grammar accepts what the real templates write", () => {
  const turns = [
    ["glm-4.5", "GLM-4.6.jinja", true],
    ["glm-4.5", "GLM-4.7-Flash.jinja", true],
    ["minimax-m2", "MiniMax-M2.jinja", "forced-open"],
  ] as const;
  const calls = [
    { name: "read_file", arguments: { path: "☃ <x>\n", limit: 3 } },
    { name: "configure", arguments: { label: "42", count: 1, enabled: false, options: { a: 2 } } },
  ];
  it.each(turns)("%s: %s", (dialect, file, reasoning) => {
    const turn = renderAssistantToolCalls(dialect, calls, {
      template: file,
      content: "Sure.",
      ...(dialect === "minimax-m2" ? { reasoning: "plan" } : {}),
    });
    const opts = { dialect, tools, reasoning, toolChoice: "auto" as const };
    expect(grammar(opts, turn.assistant)).toEqual({ accepted: true, complete: true });
    const r = parseToolCalls(turn.assistant, opts);
    expect(r.toolCalls.map(named)).toEqual(calls);
    expect(r.content?.trim()).toBe("Sure.");
    // under required the call opens the answer: the turn without its text
    const bare = renderAssistantToolCalls(dialect, calls, {
      template: file,
      ...(dialect === "minimax-m2" ? { reasoning: "plan" } : {}),
    });
    expect(grammar({ ...opts, toolChoice: "required" }, bare.assistant)).toEqual({ accepted: true, complete: true });
    expect(grammar({ ...opts, toolChoice: "required" }, turn.assistant).accepted).toBe(false);
  });

  it.each(turns)("%s: %s — every prefix gets one verdict from grammar and parser", (dialect, file, reasoning) => {
    const turn = renderAssistantToolCalls(dialect, calls, {
      template: file,
      ...(dialect === "minimax-m2" ? { reasoning: "plan" } : {}),
    });
    const opts = { dialect, tools, reasoning };
    let complete = 0;
    // Inside a thought the prompt opened the grammar cannot end, while the parser has no call to report.
    const from = reasoning === "forced-open" ? turn.assistant.indexOf("</think>") + "</think>".length : 0;
    for (let i = from; i <= turn.assistant.length; i++) {
      const text = turn.assistant.slice(0, i);
      const r = parseToolCalls(text, opts);
      const g = grammar(opts, text);
      expect(g.accepted, text).toBe(true);
      // The grammar calls a prefix finished exactly when the parser has nothing unfinished in it.
      expect(g.complete, text).toBe(r.incomplete.length === 0);
      if (r.toolCalls.length > 0 && r.incomplete.length === 0) complete++;
    }
    expect(complete).toBeGreaterThan(0);
  });
});

// Found while adding MiniMax's section: both held for every sectioned dialect (DeepSeek V3.1 here).
describe("call sections", () => {
  const o = { dialect: "deepseek-v3.1", tools };

  it("an output cut inside a call's marker in a section is a cut section, dropped from content", () => {
    const r = parseToolCalls("x<｜tool▁calls▁begin｜><｜tool▁call", o);
    expect(r.content).toBe("x");
    expect(r.incomplete).toMatchObject([{ kind: "cut", text: "<｜tool▁calls▁begin｜><｜tool▁call" }]);
  });

  it("text inside a section is reported the same however the output was chunked", () => {
    const text = "<｜tool▁calls▁begin｜>hello";
    const ref = stream(text, o, []).result;
    expect(ref.incomplete).toMatchObject([{ kind: "invalid", text: "<｜tool▁calls▁begin｜>" }]);
    for (let i = 1; i < text.length; i++) expect(stream(text, o, [i]).result).toEqual(ref);
  });
});

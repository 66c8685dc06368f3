// gpt-oss (harmony): the answer is messages on channels (src/dialects/gpt-oss.ts has the decisions).
// The grammar and the parser are both checked here, and llama.cpp's own parser is the oracle.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  compileGrammar,
  getDialect,
  parseToolCalls,
  ToolCallStreamParser,
  type StreamEvent,
} from "../../src/index.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { startLlamaOracle, templatePath, type LlamaOracle, type OracleTool } from "../support/llama-oracle.js";
import { renderAssistantToolCalls, toolsFor, type Call } from "../support/template-fixtures.js";
import { fn, FILE_TOOLS } from "../support/tools.js";
import { rng } from "../support/tokenize.js";
import { allowedIds, qwen3 } from "../support/vocabs.js";

const base = { dialect: "gpt-oss", tools: FILE_TOOLS, reasoning: true } as const;
type Opts = Parameters<typeof parseToolCalls>[1];
const accepts = (o: Opts, text: string) => grammarAccepts(buildToolGrammar(o), text);
const calls = (text: string, o: Opts = base) =>
  parseToolCalls(text, o).toolCalls.map((c) => ({
    name: c.function.name,
    arguments: JSON.parse(c.function.arguments),
  }));

const READ = '{"path": "a.txt"}';
/** The recipient in the role header, as the template writes it. */
const roleCall = (name: string, args: string) => ` to=functions.${name}<|channel|>commentary json<|message|>${args}`;
/** The recipient after the channel, with <|constrain|>, as the harmony docs write it. */
const channelCall = (name: string, args: string) =>
  `<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${args}`;
const THOUGHT = "<|channel|>analysis<|message|>The user wants a.txt.<|end|><|start|>assistant";
const FINAL = "<|channel|>final<|message|>Here it is.";

describe("gpt-oss: what the parser reads", () => {
  it("a call in either header form, with or without <|call|>, after a thought and a preamble", () => {
    for (const call of [roleCall("read", READ), channelCall("read", READ)])
      for (const end of ["", "<|call|>"]) {
        const text = `${THOUGHT}<|channel|>commentary<|message|>Reading it.<|end|><|start|>assistant${call}${end}`;
        const r = parseToolCalls(text, base);
        expect(r.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
          ["read", { path: "a.txt" }],
        ]);
        expect(r.reasoning).toBe("The user wants a.txt.");
        expect(r.content).toBe("Reading it."); // a preamble is content
        expect(r.finishReason).toBe("tool_calls");
        expect(accepts(base, text)).toBe(true);
      }
  });

  it("the final channel is content; <|return|> and <|end|> end it", () => {
    for (const end of ["", "<|return|>", "<|end|>"]) {
      const r = parseToolCalls(`${THOUGHT}${FINAL}${end}`, base);
      expect([r.content, r.reasoning, r.toolCalls, r.finishReason]).toEqual([
        "Here it is.",
        "The user wants a.txt.",
        [],
        "stop",
      ]);
      expect(accepts(base, `${THOUGHT}${FINAL}${end}`)).toBe(true);
    }
  });

  it("one call per turn: a call message after <|call|> is invalid, other text after it content", () => {
    const second = `<|start|>assistant${roleCall("write", '{"path": "b", "content": ""}')}`;
    const text = `${roleCall("read", READ)}<|call|>${second}`;
    const r = parseToolCalls(text, base);
    expect(calls(text)).toEqual([{ name: "read", arguments: { path: "a.txt" } }]);
    expect(r.incomplete).toMatchObject([{ index: 1, name: "write", kind: "invalid", text: second }]);
    expect(r.content).toBeNull();
    expect(accepts(base, text)).toBe(false);
    const final = "<|start|>assistant<|channel|>final<|message|>Done.";
    expect(parseToolCalls(`${roleCall("read", READ)}<|call|>${final}`, base).content).toBe(final);
    expect(accepts(base, `${roleCall("read", READ)}<|call|>${final}`)).toBe(true);
  });

  it("markers inside argument strings are values", () => {
    const args = JSON.stringify({ path: "<|call|><|start|>assistant<|end|>", content: "}{" });
    expect(calls(channelCall("write", args))).toEqual([{ name: "write", arguments: JSON.parse(args) }]);
  });

  it("a call on the analysis channel, or without <|call|> before more text, is invalid, not a call", () => {
    const onAnalysis = ` to=functions.read<|channel|>analysis<|message|>${READ}<|call|>`;
    const unended = `${roleCall("read", READ)}<|start|>assistant${FINAL}`;
    for (const text of [onAnalysis, unended]) {
      const r = parseToolCalls(text, base);
      expect(r.toolCalls).toEqual([]);
      expect(r.incomplete.map((c) => [c.name, c.kind])).toEqual([["read", "invalid"]]);
      expect(accepts(base, text)).toBe(false);
    }
    expect(parseToolCalls(onAnalysis, base).incomplete[0]!.reason).toMatch(/commentary channel/);
    expect(parseToolCalls(unended, base).incomplete[0]!.reason).toMatch(/<\|call\|> is missing/);
  });
});

describe("gpt-oss: toolChoice", () => {
  const required = { ...base, toolChoice: "required" } as const;
  const none = { ...base, toolChoice: "none" } as const;
  const named = { ...base, toolChoice: { type: "function", function: { name: "write" } } } as const;

  it("auto allows a final answer or a call; required and named only a call", () => {
    expect(accepts(base, `${THOUGHT}${FINAL}`)).toBe(true);
    expect(accepts(required, `${THOUGHT}${FINAL}`)).toBe(false);
    expect(accepts(required, `${THOUGHT}${roleCall("read", READ)}`)).toBe(true);
    expect(accepts(named, roleCall("read", READ))).toBe(false);
    expect(accepts(named, roleCall("write", '{"path": "b", "content": "c"}'))).toBe(true);
  });

  it("none allows no call; the parser reads a call's text as content", () => {
    expect(accepts(none, roleCall("read", READ))).toBe(false);
    expect(accepts(none, `${THOUGHT}${FINAL}`)).toBe(true);
    const r = parseToolCalls(roleCall("read", READ), none);
    expect([r.toolCalls, r.content]).toEqual([[], roleCall("read", READ)]);
  });

  it("the named tool only: another declared tool's call is content", () => {
    const r = parseToolCalls(`${THOUGHT}${roleCall("read", READ)}`, named);
    expect([r.toolCalls, r.content, r.reasoning]).toEqual([[], roleCall("read", READ), "The user wants a.txt."]);
  });
});

describe("gpt-oss: reasoning", () => {
  it("false: the grammar allows no analysis message", () => {
    const off = { ...base, reasoning: false };
    expect(accepts(off, `${THOUGHT}${FINAL}`)).toBe(false);
    expect(accepts(off, FINAL)).toBe(true);
    expect(
      accepts(off, `<|channel|>commentary<|message|>Reading.<|end|><|start|>assistant${roleCall("read", READ)}`),
    ).toBe(true);
  });

  it('"forced-open": the output starts inside the thought the prompt opened', () => {
    const open = { ...base, reasoning: "forced-open" as const };
    const text = `Plan: read it.<|end|><|start|>assistant${roleCall("read", READ)}`;
    const r = parseToolCalls(text, open);
    expect([r.reasoning, r.content, calls(text, open)]).toEqual([
      "Plan: read it.",
      null,
      [{ name: "read", arguments: { path: "a.txt" } }],
    ]);
    expect(accepts(open, text)).toBe(true);
    expect(accepts(base, text)).toBe(false);
    expect(accepts(open, "Plan: read it.")).toBe(false); // no end inside an open thought
  });

  it("the spec's thought markers are its analysis channel's header and <|end|>", () => {
    const spec = getDialect("gpt-oss");
    const f = spec.call;
    if (f.kind !== "harmony") throw new Error("gpt-oss is a harmony dialect");
    expect(spec.reasoning).toEqual({ open: f.channel + f.channels.reasoning + f.message, close: f.end });
  });
});

describe("gpt-oss: completeness and names", () => {
  const cutArgs = channelCall("write", '{"path": "a", "con');

  it("a call cut in its arguments is incomplete with what is missing; the grammar cannot end there", () => {
    const r = parseToolCalls(cutArgs, base);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toMatchObject([{ name: "write", kind: "cut", missing: ["path", "content"] }]);
    const m = compileGrammar(buildToolGrammar({ ...base, toolChoice: "required" }), qwen3()).createMatcher();
    expect(m.acceptString(cutArgs)).toBe(true);
    expect(m.isComplete()).toBe(false);
    expect(m.acceptString('tent": "x"}')).toBe(true);
    expect(m.isComplete()).toBe(true);
  });

  it("every prefix of a call is grammar-complete exactly when the parser reads it complete, else cut", () => {
    const required = { ...base, toolChoice: "required" } as const;
    for (const call of [roleCall("read", READ), channelCall("read", READ)]) {
      const text = `${THOUGHT}${call}<|call|>`;
      for (let n = text.indexOf(" to=functions.") + " to=functions.".length; n <= text.length; n++) {
        const p = text.slice(0, n);
        const r = parseToolCalls(p, required);
        if (accepts(required, p)) expect([r.toolCalls.length, r.incomplete], p).toEqual([1, []]);
        else expect([r.toolCalls.length, r.incomplete.map((c) => c.kind)], p).toEqual([0, ["cut"]]);
      }
    }
  });

  it("cut in the name or the header is incomplete too", () => {
    expect(parseToolCalls("<|channel|>commentary to=functions.wr", base).incomplete).toMatchObject([
      { name: null, kind: "cut" },
    ]);
    expect(parseToolCalls(" to=functions.read<|channel|>comm", base).incomplete).toMatchObject([
      { name: "read", kind: "cut" },
    ]);
  });

  it("an undeclared name is content, decided at the name: nothing about the call was streamed", () => {
    const text = channelCall("get_indicators", '{"symbol": "1"}');
    for (const tools of [undefined, [], [fn("other", { a: { type: "string" } })], FILE_TOOLS]) {
      const p = new ToolCallStreamParser({ ...base, tools });
      const events: StreamEvent[] = [];
      for (const ch of text) events.push(...p.feed(ch));
      const r = p.end();
      events.push(...r.events);
      expect(events.every((e) => e.type === "content")).toBe(true);
      expect([r.content, r.toolCalls, r.incomplete]).toEqual([text, [], []]);
    }
  });

  it("a declared name starts the call as soon as it is complete", () => {
    const p = new ToolCallStreamParser(base);
    expect(p.feed(" to=functions.rea")).toEqual([]);
    expect(p.feed("d<|channel|>")).toEqual([{ type: "tool_call_start", index: 0, id: "call_0", name: "read" }]);
  });

  it("values are typed by the schema: a string stays a string, a wrong type makes the call invalid", () => {
    const o = { ...base, tools: [fn("set", { label: { type: "string" }, count: { type: "integer" } })] };
    expect(calls(roleCall("set", '{"label": "42", "count": 3}'), o)).toEqual([
      { name: "set", arguments: { label: "42", count: 3 } },
    ]);
    const r = parseToolCalls(roleCall("set", '{"label": 42, "count": "3"}'), o);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toMatchObject([{ name: "set", kind: "invalid" }]);
  });

  it("names that harmony cannot carry are refused up front", () => {
    expect(() => parseToolCalls("", { ...base, tools: [fn("a b", {})] })).toThrow(/contains " "/);
    expect(() => parseToolCalls("", { ...base, tools: [fn("a<|b", {})] })).toThrow(/contains "<\|"/);
  });
});

describe("gpt-oss: the template's turns", () => {
  const CALL: Call = {
    name: "write_file",
    arguments: { path: "/tmp/a b.txt", content: 'x "y" <|end|>\n', ok: true, mode: 420 },
  };

  it("the grammar (compiled on Qwen3, where harmony's markers are text) accepts them, and they parse back", () => {
    const v = qwen3();
    for (const opts of [{}, { reasoning: "Think <hard>." }, { content: "I'll write it." }]) {
      const turn = renderAssistantToolCalls("gpt-oss", [CALL], opts);
      const o = { dialect: "gpt-oss", tools: toolsFor([CALL]), reasoning: true, toolChoice: "required" } as const;
      for (const text of [turn.assistant, turn.raw]) {
        const m = compileGrammar(buildToolGrammar(o), v).createMatcher();
        expect(m.acceptString(text), text).toBe(true);
        expect(m.isComplete()).toBe(true);
        const r = parseToolCalls(text, o);
        expect(calls(text, o)).toEqual([CALL]);
        expect(r.reasoning).toBe("reasoning" in opts ? opts.reasoning : "content" in opts ? opts.content : null);
      }
    }
  });
});

describe("gpt-oss: walks of the mask", () => {
  // Bounded strings, so random walks finish; both header forms, from the call's first byte.
  const tools = [
    fn("read", { path: { type: "string", maxLength: 6 } }),
    fn("edit", { path: { type: "string", maxLength: 4 }, n: { type: "integer" }, ok: { type: "boolean" } }, ["path"]),
  ];
  it("parse as one complete call of a declared tool with its required arguments", () => {
    const v = qwen3();
    const o = { dialect: "gpt-oss", tools, toolChoice: "required", reasoning: true } as const;
    const m = compileGrammar(buildToolGrammar(o), v).createMatcher();
    const mask = m.allocateBitmask();
    const eog = new Set(v.endOfGenerationIds);
    const r = rng(11);
    let finished = 0;
    for (let w = 0; w < 24; w++) {
      m.reset();
      const start = w % 2 ? " to=functions." : "<|channel|>commentary to=functions.";
      expect(m.acceptString(start)).toBe(true);
      const ids: number[] = [];
      for (let step = 0; step < 200 && !m.isTerminated(); step++) {
        m.fillNextTokenBitmask(mask);
        const allowed = allowedIds(mask);
        const ends = allowed.filter((id) => eog.has(id));
        const id = ends.length
          ? ends[0]!
          : allowed[Math.floor(r() * Math.min(allowed.length, r() < 0.5 ? 40 : allowed.length))]!;
        expect(m.acceptToken(id)).toBe(true);
        if (!eog.has(id)) ids.push(id);
      }
      if (!m.isTerminated()) continue;
      finished++;
      const text = start + Buffer.concat(ids.map((id) => Buffer.from(v.tokenBytes(id)))).toString("utf8");
      const res = parseToolCalls(text, o);
      expect([res.toolCalls.length, res.incomplete], text).toEqual([1, []]);
      const tool = tools.find((t) => t.function.name === res.toolCalls[0]!.function.name)!;
      for (const k of tool.function.parameters.required)
        expect(JSON.parse(res.toolCalls[0]!.function.arguments), text).toHaveProperty(k);
    }
    expect(finished).toBeGreaterThan(12);
  });
});

// llama.cpp's common_chat_parse on the same outputs: where it agrees, and where we differ on purpose.
describe("gpt-oss: llama.cpp's parser as the oracle", () => {
  let oracle: LlamaOracle;
  beforeAll(async () => {
    oracle = await startLlamaOracle();
  });
  afterAll(() => oracle?.close());
  const parseLlama = async (text: string) => {
    const r = await oracle.parse({
      template: templatePath("openai-gpt-oss-120b.jinja"),
      tools: FILE_TOOLS as OracleTool[],
      text,
    });
    if (!r.ok) return { error: r.error };
    return {
      content: r.content || null,
      reasoning: r.reasoning_content || null,
      calls: r.tool_calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) })),
    };
  };
  const ours = (text: string) => {
    const r = parseToolCalls(text, base);
    return { content: r.content, reasoning: r.reasoning, calls: calls(text) };
  };

  it("agrees on well-formed turns", async () => {
    for (const text of [
      roleCall("read", READ),
      channelCall("read", READ),
      `${THOUGHT}${roleCall("read", READ)}`,
      `<|channel|>commentary<|message|>Reading.<|end|><|start|>assistant${channelCall("read", READ)}`,
      `${THOUGHT}${FINAL}`,
      `${FINAL}<|end|>`,
    ])
      expect(ours(text), text).toEqual(await parseLlama(text));
  });

  it("differs where it drops text, ships unfinished calls or fails", async () => {
    const second = `<|start|>assistant${roleCall("write", '{"path": "b", "content": ""}')}`;
    // A second call after <|call|>: llama.cpp drops it silently; ours is an invalid entry (not content).
    const after = `${roleCall("read", READ)}<|call|>${second}`;
    expect(await parseLlama(after)).toMatchObject({ content: null, calls: [{ name: "read" }] });
    expect(ours(after)).toMatchObject({ content: null, calls: [{ name: "read" }] });
    expect(parseToolCalls(after, base).incomplete).toMatchObject([{ name: "write", kind: "invalid" }]);
    // A cut call: llama.cpp returns its unfinished arguments as a call; ours is incomplete.
    const cut = channelCall("write", '{"path": "a", "con');
    const llamaCut = await oracle.parse({
      template: templatePath("openai-gpt-oss-120b.jinja"),
      tools: FILE_TOOLS as OracleTool[],
      text: cut,
    });
    expect(llamaCut.ok && llamaCut.tool_calls.map((c) => c.arguments)).toEqual(['{"path": "a", "con']);
    expect(parseToolCalls(cut, base).toolCalls).toEqual([]);
    // An undeclared name, or text outside harmony's messages: llama.cpp fails; ours is content.
    for (const text of [channelCall("nope", "{}"), "Hello"]) {
      expect(await parseLlama(text)).toMatchObject({ error: expect.stringMatching(/does not match/) });
      expect(ours(text).content).toBe(text);
    }
    // A call on the analysis channel: llama.cpp reads it; ours is invalid (the grammar sends calls to commentary).
    const onAnalysis = `<|channel|>analysis to=functions.read <|constrain|>json<|message|>${READ}`;
    expect((await parseLlama(onAnalysis)).calls).toHaveLength(1);
    expect(ours(onAnalysis).calls).toEqual([]);
    // <|return|> after the final text: llama.cpp keeps it in the content; ours ends the message there.
    expect((await parseLlama(`${FINAL}<|return|>`)).content).toBe("Here it is.<|return|>");
    expect(ours(`${FINAL}<|return|>`).content).toBe("Here it is.");
  });
});

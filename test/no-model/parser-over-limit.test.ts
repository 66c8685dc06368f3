// Over-limit constructs (seed 004): a call longer than maxCallLength is dropped as one construct,
// through its own terminator (the dialect's own end of that call: JSON by its balanced braces with
// strings respected, XML by its value and call closes), and recorded in `dropped`. Nothing of it
// leaks (no open marker, body or close), the bytes after it continue normally, and the result and
// the event stream are the same for every split of the bytes.
import { describe, expect, it } from "vitest";
import {
  dialects,
  getDialect,
  parseToolCalls,
  ToolCallStreamParser,
  type ParserOptions,
  type StreamEvent,
} from "../../src/index.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { runChunks } from "../support/stream-run.js";
import { rng } from "../support/tokenize.js";
import { FILE_TOOLS } from "../support/tools.js";

const LIMIT = 200;
const big = (n: number) => "Z".repeat(n);

// Per dialect: a call of `read` with a given path, whole.
const CALL: Record<string, (path: string) => string> = {
  "qwen3-coder": (p) => `<tool_call>\n<function=read>\n<parameter=path>\n${p}\n</parameter>\n</function>\n</tool_call>`,
  "seed-oss": (p) =>
    `<seed:tool_call>\n<function=read>\n<parameter=path>${p}</parameter>\n</function>\n</seed:tool_call>`,
  hermes: (p) => `<tool_call>\n{"name": "read", "arguments": {"path": ${JSON.stringify(p)}}}\n</tool_call>`,
  mistral: (p) => `[TOOL_CALLS]read[ARGS]{"path": ${JSON.stringify(p)}}`,
  "deepseek-v3.1": (p) =>
    `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read<｜tool▁sep｜>{"path": ${JSON.stringify(p)}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
  "mistral-nemo": (p) =>
    `[TOOL_CALLS][{"name": "read", "arguments": {"path": ${JSON.stringify(p)}}, "id": "abcdefghi"}]`,
  "kimi-k2": (p) =>
    `<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{"path": ${JSON.stringify(p)}}<|tool_call_end|><|tool_calls_section_end|>`,
};

// Section dialects wrap calls in a section; the construct dropped is the call, not the section.
const SECTION: Record<string, number> = {
  "mistral-nemo": "[TOOL_CALLS][".length + "]".length,
  "deepseek-v3.1": "<｜tool▁calls▁begin｜>".length + "<｜tool▁calls▁end｜>".length,
  "kimi-k2": "<|tool_calls_section_begin|>".length + "<|tool_calls_section_end|>".length,
};
const SECTION_OPEN: Record<string, number> = {
  "mistral-nemo": "[TOOL_CALLS][".length,
  "deepseek-v3.1": "<｜tool▁calls▁begin｜>".length,
  "kimi-k2": "<|tool_calls_section_begin|>".length,
};

const opts = (dialect: string): ParserOptions => ({ dialect, tools: FILE_TOOLS, maxCallLength: LIMIT });

/** Same result and events for whole, 1-char, every split around the limit, and random splits. */
function expectChunkInvariant(text: string, o: ParserOptions) {
  const ref = runChunks(text, o, []);
  const r = rng(text.length);
  const all = Array.from({ length: text.length - 1 }, (_, i) => i + 1);
  const variants: number[][] = [all, ...all.filter((i) => i % 7 === 0 || Math.abs(i - LIMIT) < 40).map((i) => [i])];
  for (let k = 0; k < 200; k++) variants.push(all.filter(() => r() < 0.05));
  for (const cuts of variants) expect(runChunks(text, o, cuts), `cuts ${cuts.slice(0, 10).join(",")}`).toEqual(ref);
  return ref.result;
}

describe.each(Object.keys(CALL))("%s: an over-limit call is dropped as one construct", (dialect) => {
  const call = CALL[dialect]!;
  const o = opts(dialect);

  it("a small call still parses; a large one is dropped, recorded, and nothing of it leaks", () => {
    // A dialect with a section writes both calls in one (a second section's calls are invalid).
    const spec = getDialect(dialect);
    const one = (p: string, index: number) => writeCall(spec, "read", [["path", JSON.stringify(p), p]], { index });
    const small = spec.section ? one("a.txt", 1) : call("a.txt");
    const large = spec.section ? one(big(500), 0) : call(big(500));
    const text = spec.section
      ? writeOutput(spec, [large, small], { before: "before ", after: " after" })
      : `before ${large} middle ${small} after`;
    const r = expectChunkInvariant(text, o);
    expect(r.dropped).toEqual([
      {
        index: 0,
        name: "read",
        reason: `the call is longer than maxCallLength (${LIMIT} characters)`,
        length: large.length,
      },
    ]);
    expect(r.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["read", { path: "a.txt" }],
    ]);
    expect(r.toolCalls[0]!.id).not.toBe("call_0"); // the dropped call keeps its index
    expect(r.content).toContain("before ");
    if (!spec.section) expect(r.content).toContain(" middle ");
    expect(r.content).toContain(" after");
    for (const leak of ["Z", "read", "path", "tool", "TOOL", "｜", "|"]) expect(r.content, leak).not.toContain(leak);
    expect(r.incomplete).toEqual([]);
  });

  it("a small call followed by a lot of prose is not dropped (the construct is measured, not the buffer)", () => {
    const r = expectChunkInvariant(`${call("a.txt")}${" word".repeat(300)}`, o);
    expect(r.dropped).toEqual([]);
    expect(r.toolCalls).toHaveLength(1);
  });

  it("an over-limit call that never terminates is dropped whole at the end", () => {
    const text = "hi " + call(big(500)).slice(0, 350);
    const r = expectChunkInvariant(text, o);
    expect(r.dropped).toHaveLength(1);
    expect(r.dropped[0]!.length).toBe(text.length - 3 - (SECTION_OPEN[dialect] ?? 0));
    expect(r.content).toBe("hi ");
    expect(r.toolCalls).toEqual([]);
    // A section the output ended inside is reported as cut, as without a limit.
    expect(r.incomplete.map((c) => [c.kind, c.name])).toEqual(SECTION[dialect] ? [["cut", null]] : []);
  });

  it("the stream says so once the call passes the limit, after the name and before the terminator", () => {
    const text = call(big(500));
    const p = new ToolCallStreamParser(o);
    const seen: StreamEvent[] = [];
    for (let i = 0; i < text.length; i++) {
      seen.push(...p.feed(text[i]!));
      if (seen.some((e) => e.type === "tool_call_dropped")) {
        expect(i).toBeLessThanOrEqual(text.indexOf("read") + LIMIT + 20);
        break;
      }
    }
    const d = seen.find((e) => e.type === "tool_call_dropped");
    expect(d).toEqual({
      type: "tool_call_dropped",
      index: 0,
      name: "read",
      reason: `the call is longer than maxCallLength (${LIMIT} characters)`,
    });
  });
});

describe("the terminator is the construct's own", () => {
  it("JSON: braces and quotes inside strings and nested objects do not end it", () => {
    const tools = [
      {
        type: "function",
        function: { name: "w", parameters: { type: "object", properties: { o: { type: "object" } } } },
      },
    ];
    const body = { o: { s: '}}"\\"}</tool_call>', n: { m: [big(300), "}"] } } };
    const call = `<tool_call>\n{"name": "w", "arguments": ${JSON.stringify(body)}}\n</tool_call>`;
    const o = { dialect: "hermes", tools, maxCallLength: LIMIT };
    const r = expectChunkInvariant(`${call}tail`, o);
    expect(r.dropped).toHaveLength(1);
    expect(r.dropped[0]!.length).toBe(call.length);
    expect(r.content).toBe("tail");
  });

  it("XML: a call close written inside a value does not end it", () => {
    const call = `<tool_call>\n<function=write>\n<parameter=path>\nx\n</parameter>\n<parameter=content>\n${big(300)}</function></tool_call>\n</parameter>\n</function>\n</tool_call>`;
    const r = expectChunkInvariant(`${call}tail`, opts("qwen3-coder"));
    expect(r.dropped).toEqual([{ index: 0, name: "write", reason: expect.any(String), length: call.length }]);
    expect(r.content).toBe("tail");
  });

  it("in a call section, only the over-limit call is dropped; the section and its other calls stand", () => {
    const one = (p: string) =>
      `<|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{"path": ${JSON.stringify(p)}}<|tool_call_end|>`;
    const text = `<|tool_calls_section_begin|>${one("a")}${one(big(400))}${one("b")}<|tool_calls_section_end|>done`;
    const r = expectChunkInvariant(text, opts("kimi-k2"));
    expect(r.toolCalls.map((c) => JSON.parse(c.function.arguments).path)).toEqual(["a", "b"]);
    expect(r.dropped.map((d) => [d.index, d.length])).toEqual([[1, one(big(400)).length]]);
    expect(r.content).toBe("done");
  });
});

describe("gpt-oss (harmony): a call message over the limit", () => {
  const o = opts("gpt-oss");
  const call = (p: string) =>
    `<|channel|>commentary to=functions.read <|constrain|>json<|message|>${JSON.stringify({ path: p })}<|call|>`;
  it("is dropped through its own <|call|>, recorded, and nothing of it leaks", () => {
    const large = call(big(500));
    const r = expectChunkInvariant(`<|channel|>analysis<|message|>hm<|end|><|start|>assistant${large}after`, o);
    expect(r.dropped).toEqual([
      {
        index: 0,
        name: "read",
        reason: `the call is longer than maxCallLength (${LIMIT} characters)`,
        length: large.length,
      },
    ]);
    expect(r.toolCalls).toEqual([]);
    expect(r.content).toBe("after");
    expect(r.reasoning).toBe("hm");
  });
  it("a small call is kept, and one cut past the limit is dropped to the end", () => {
    expect(expectChunkInvariant(call("a.txt"), o).toolCalls).toHaveLength(1);
    const cut = call(big(500)).slice(0, 400);
    const r = expectChunkInvariant(cut, o);
    expect(r.dropped.map((d) => d.length)).toEqual([cut.length]);
    expect(r.incomplete).toEqual([]);
  });
});

describe("maxCallLength is checked", () => {
  it.each([0, -1, 1.5, "100", Number.NaN])("%s is refused", (v) => {
    expect(() => parseToolCalls("", { dialect: "hermes", tools: FILE_TOOLS, maxCallLength: v as number })).toThrow(
      /maxCallLength must be a positive integer/,
    );
  });
  it("without it nothing is dropped", () => {
    const r = parseToolCalls(CALL.hermes!(big(100_000)), { dialect: "hermes", tools: FILE_TOOLS });
    expect(r.dropped).toEqual([]);
    expect(r.toolCalls).toHaveLength(1);
  });
});

describe.each(dialects)("%s: every maxCallLength decides alike for every split", (dialect) => {
  const spec = getDialect(dialect);
  const call = writeOutput(spec, [writeCall(spec, "read", [["path", '"a.txt"', "a.txt"]])]);
  // Text after the call's object that only begins like its end (<|start|> after an object that
  // lacks <|call|>): the call's end is known only from what follows it.
  const objectEnd = call.lastIndexOf("}") + 1;
  const texts = [
    call,
    `${call} after`,
    `${call.slice(0, objectEnd)}<|start|>assistant`,
    `${call.slice(0, objectEnd)}<x`,
    `x ${call}${call}`,
  ];
  it.each(texts.map((t) => [t]))("%j", (text) => {
    const r = rng(text.length);
    const all = Array.from({ length: text.length - 1 }, (_, i) => i + 1);
    for (let limit = 1; limit <= text.length + 2; limit++) {
      const o = { dialect, tools: FILE_TOOLS, maxCallLength: limit };
      const ref = runChunks(text, o, []);
      for (const cuts of [all, all.filter(() => r() < 0.3)]) {
        const got = runChunks(text, o, cuts);
        if (JSON.stringify(got) !== JSON.stringify(ref))
          expect({ limit, cuts, ...got }).toEqual({ limit, cuts, ...ref });
      }
    }
  });
});

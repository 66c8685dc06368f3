// tool_call_argument events: one per complete top-level argument, with its name, JSON pointer,
// value and whether the value fits its schema; the same events for every split of the output.
import { describe, expect, it } from "vitest";
import { parseToolCalls, ToolCallStreamParser, type StreamEvent } from "../../src/index.js";
import { MAX_VALUE_DEPTH } from "../../src/parser/argument-event.js";
import { fn } from "../support/tools.js";

const tools = [
  fn("write", { path: { type: "string" }, count: { type: "integer" }, "a/b~c": { type: "boolean" } }, ["path"]),
];
type Options = ConstructorParameters<typeof ToolCallStreamParser>[0];
const argEvents = (events: StreamEvent[]) => events.filter((e) => e.type === "tool_call_argument");

/** The events of `text` fed in two pieces, split at `cut`. */
function eventsSplitAt(text: string, options: Options, cut: number): StreamEvent[] {
  const p = new ToolCallStreamParser(options);
  return [...p.feed(text.slice(0, cut)), ...p.feed(text.slice(cut)), ...p.end().events];
}

const xml = (params: string) => `<tool_call>\n<function=write>\n${params}</function>\n</tool_call>`;
const param = (k: string, v: string) => `<parameter=${k}>\n${v}\n</parameter>\n`;

describe("qwen3-coder (parameters stream one by one)", () => {
  const options = { dialect: "qwen3-coder", tools };
  const text = xml(param("path", "notes.txt") + param("count", "3") + param("a/b~c", "true"));

  it("each argument is told once its parameter closes, before the call ends", () => {
    const p = new ToolCallStreamParser(options);
    const upToCount = text.indexOf("<parameter=count>");
    const first = p.feed(text.slice(0, upToCount));
    expect(argEvents(first)).toEqual([
      {
        type: "tool_call_argument",
        index: 0,
        name: "path",
        path: "/path",
        value: "notes.txt",
        json: '"notes.txt"',
        valid: true,
      },
    ]);
    expect(first.some((e) => e.type === "tool_call_end")).toBe(false);
    const rest = [...p.feed(text.slice(upToCount)), ...p.end().events];
    expect(argEvents(rest)).toEqual([
      { type: "tool_call_argument", index: 0, name: "count", path: "/count", value: 3, json: "3", valid: true },
      // RFC 6901: "/" is written "~1" and "~" is written "~0".
      { type: "tool_call_argument", index: 0, name: "a/b~c", path: "/a~1b~0c", value: true, json: "true", valid: true },
    ]);
  });

  it("every split of the output tells the same argument events", () => {
    const whole = argEvents(eventsSplitAt(text, options, text.length));
    expect(whole).toHaveLength(3);
    for (let cut = 0; cut <= text.length; cut++)
      expect(argEvents(eventsSplitAt(text, options, cut)), `split at ${cut}`).toEqual(whole);
  });

  it("a cut call's complete arguments are told, and its unfinished one is not", () => {
    const cutText = xml(param("path", "a.txt") + param("count", "7")).slice(0, -40);
    const p = new ToolCallStreamParser(options);
    const events = [...p.feed(cutText), ...p.end("length").events];
    expect(argEvents(events).map((e) => (e as { name: string }).name)).toEqual(["path"]);
    expect(events.some((e) => e.type === "tool_call_error")).toBe(true);
  });
});

describe("hermes (the arguments arrive as one JSON object)", () => {
  const options = { dialect: "hermes", tools };
  const call = (args: string) => `<tool_call>\n{"name": "write", "arguments": ${args}}\n</tool_call>`;

  it("a valid call tells each argument, valid, just before its end", () => {
    const text = call('{"path": "x", "count": 2}');
    const events = eventsSplitAt(text, options, 30);
    const i = events.findIndex((e) => e.type === "tool_call_end");
    expect(argEvents(events)).toEqual([
      { type: "tool_call_argument", index: 0, name: "path", path: "/path", value: "x", json: '"x"', valid: true },
      { type: "tool_call_argument", index: 0, name: "count", path: "/count", value: 2, json: "2", valid: true },
    ]);
    expect(events.indexOf(argEvents(events)[1]!)).toBeLessThan(i);
  });

  it("in an invalid call, the argument that does not fit its schema is told invalid, the others valid", () => {
    const text = call('{"path": "x", "count": "two", "extra": 1}');
    const r = parseToolCalls(text, options);
    expect(r.toolCalls).toEqual([]);
    const p = new ToolCallStreamParser(options);
    const events = [...p.feed(text), ...p.end().events];
    expect(argEvents(events).map((e) => [(e as { name: string }).name, (e as { valid: boolean }).valid])).toEqual([
      ["path", true],
      ["count", false],
      // Declared properties without additionalProperties allow no others.
      ["extra", false],
    ]);
  });
});

describe("values", () => {
  const free = [fn("put", { v: {} }, [])];
  const call = (v: string) => `<tool_call>\n{"name": "put", "arguments": {"v": ${v}}}\n</tool_call>`;
  const told = (v: string) => {
    const p = new ToolCallStreamParser({ dialect: "hermes", tools: free });
    return argEvents([...p.feed(call(v)), ...p.end().events])[0] as { value: unknown; json: string };
  };

  it("json keeps a number as written; value is the parsed number", () => {
    expect(told("12345678901234567890")).toMatchObject({ json: "12345678901234567890", value: 12345678901234567000 });
  });

  it("a value nested deeper than MAX_VALUE_DEPTH comes as json alone (JSON.stringify could not walk it)", () => {
    const deep = "[".repeat(MAX_VALUE_DEPTH + 1) + "]".repeat(MAX_VALUE_DEPTH + 1);
    const e = told(deep);
    expect(e.value).toBeUndefined();
    expect(e.json).toBe(deep);
    const edge = "[".repeat(MAX_VALUE_DEPTH) + "]".repeat(MAX_VALUE_DEPTH);
    expect(JSON.stringify(told(edge).value)).toBe(edge);
  });
});

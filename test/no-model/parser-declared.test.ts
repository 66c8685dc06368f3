// Seed 001: a call to a tool the request did not declare is text, decided at the name —
// in streaming, nothing about the call is emitted before the refusal.
import { describe, expect, it } from "vitest";
import { parseToolCalls, ToolCallStreamParser, type StreamEvent } from "../../src/index.js";
import { fn } from "../support/tools.js";

const call = (name: string, params: Record<string, string>) =>
  `<tool_call>\n<function=${name}>\n${Object.entries(params)
    .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
    .join("")}</function>\n</tool_call>`;
const out =
  call("get_indicators", { curr_date: "2026-10-15", indicator: "close_10_ema", symbol: "600076" }) +
  call("get_indicators", { curr_date: "2026-10-15", indicator: "close_50_sma", symbol: "600076" });
const getIndicators = fn("get_indicators", {
  curr_date: { type: "string" },
  indicator: { type: "string" },
  symbol: { type: "integer" },
});

describe("seed 001: undeclared means text", () => {
  it.each([
    ["tools absent", undefined, undefined, 0],
    ["tools: []", [], undefined, 0],
    ["tools: [get_indicators]", [getIndicators], undefined, 2],
    ["tools: [some_other_tool]", [fn("some_other_tool", { x: { type: "string" } })], undefined, 0],
    ["toolChoice: none", [getIndicators], "none" as const, 0],
  ])("%s", (_label, tools, toolChoice, calls) => {
    for (const dialect of ["qwen3-coder"]) {
      const r = parseToolCalls(out, { dialect, tools, ...(toolChoice ? { toolChoice } : {}) });
      expect(r.toolCalls).toHaveLength(calls);
      if (calls === 0) {
        expect(r.content).toBe(out);
        expect(r.finishReason).toBe("stop");
      } else {
        expect(r.content).toBeNull();
        expect(r.toolCalls.map((c) => JSON.parse(c.function.arguments).symbol)).toEqual([600076, 600076]);
        expect(r.finishReason).toBe("tool_calls");
      }
    }
  });

  it("the Hermes dialect refuses undeclared names the same way", () => {
    const text = 'ok <tool_call>\n{"name": "rm_rf", "arguments": {"path": "/"}}\n</tool_call>';
    const r = parseToolCalls(text, { dialect: "hermes", tools: [fn("read", { path: { type: "string" } })] });
    expect(r.toolCalls).toEqual([]);
    expect(r.content).toBe(text);
  });

  it("streaming: nothing about a refused call is emitted, and the refusal comes at the name", () => {
    const p = new ToolCallStreamParser({
      dialect: "qwen3-coder",
      tools: [fn("get_weather", { city: { type: "string" } })],
    });
    const events: StreamEvent[] = [];
    events.push(...p.feed("Let me check. <tool_call>\n<function=get_"));
    // "get_" could still be get_weather: held back, shown neither as content nor as a call.
    expect(events).toEqual([{ type: "content", delta: "Let me check. " }]);
    events.push(...p.feed("ind"));
    // No declared name starts with "get_ind": refused now, and the held text is content.
    expect(events.slice(1).every((e) => e.type === "content")).toBe(true);
    expect(
      events
        .slice(1)
        .map((e) => (e as { delta: string }).delta)
        .join(""),
    ).toBe("<tool_call>\n<function=get_ind");
    events.push(...p.feed("icators>\n<parameter=symbol>\n1\n</parameter>\n</function>\n</tool_call>"));
    const r = p.end();
    expect(events.some((e) => e.type.startsWith("tool_call"))).toBe(false);
    expect(r.toolCalls).toEqual([]);
    expect(r.content).toContain("<function=get_indicators>");
  });

  it("a declared name starts the call only once the name is complete", () => {
    const p = new ToolCallStreamParser({
      dialect: "qwen3-coder",
      tools: [fn("read", { path: { type: "string" } }), fn("reader", { path: { type: "string" } })],
    });
    expect(p.feed("<tool_call>\n<function=read")).toEqual([]);
    const ev = p.feed("er>\n");
    expect(ev).toEqual([{ type: "tool_call_start", index: 0, id: "call_0", name: "reader" }]);
  });

  it("a Hermes name that leaves every declared one is refused there, whatever follows it (fuzz seed 14, input 2870)", () => {
    // The name runs on into a raw newline, which no JSON string may hold: the head is decided at
    // "<", where the name left every declared one, not by whether the object parses later on.
    const tools = [
      fn("get_weather_in_a_city", { city: { type: "string" } }),
      fn("write", { path: { type: "string" } }),
    ];
    const text =
      '<tool_call>\n{"name": "get_weather_in<tool_call>\n{"name": "write", "arguments": {"path": "a"}}</tool_call>';
    const opts = { dialect: "hermes", tools };
    const whole = parseToolCalls(text, opts);
    // The "<" is the departing character, so the trigger it begins is text, as in the grammar (refusedCall).
    expect(whole.toolCalls).toEqual([]);
    expect(whole.content).toBe(text);
    for (let cut = 1; cut < text.length; cut++) {
      const p = new ToolCallStreamParser(opts);
      p.feed(text.slice(0, cut));
      p.feed(text.slice(cut));
      const { events: _e, ...r } = p.end();
      expect(r, `split at ${cut}`).toEqual(whole);
    }
  });
});

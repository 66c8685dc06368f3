// A call written after the end of the answer is a verdict, never content: gpt-oss ends its answer
// at the call's <|call|> or the final message's <|return|> / <|end|>, the generic dialect's answer
// is one JSON object. Such a call is an invalid entry with the reason (its text not in content),
// the result and events are the same for every split, the OpenAI deltas hold no such call, and the
// grammar refuses the text. (A second tool-call section: test/no-model/parser-sections.test.ts.)
import { describe, expect, it } from "vitest";
import { buildToolGrammar, parseToolCalls, type ParserOptions } from "../../src/index.js";
import { StreamDeltas } from "../../src/engine/stream.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { deltasDisagree, eventsDisagree } from "../../scripts/lib/parser-runs.mjs";
import { runChunks } from "../support/stream-run.js";
import { rng } from "../support/tokenize.js";
import { fn } from "../support/tools.js";

const TOOLS = [fn("get_weather", { city: { type: "string" } }), fn("delete_all", {})];
const every = (text: string) => Array.from({ length: text.length - 1 }, (_, i) => i + 1);
const randomCuts = (text: string, seed: number) => {
  const r = rng(seed);
  return every(text).filter(() => r() < 0.2);
};
const argsOf = (r: ReturnType<typeof parseToolCalls>) => r.toolCalls.map((c) => JSON.parse(c.function.arguments));

/** The same result and events for every split; events and deltas tell the result. */
function sameForEverySplit(text: string, o: ParserOptions): void {
  const whole = runChunks(text, o, []);
  expect(whole.result).toEqual(parseToolCalls(text, o));
  expect(eventsDisagree(whole.result, whole.events)).toBeUndefined();
  expect(deltasDisagree(whole.result, whole.events, StreamDeltas)).toBeUndefined();
  expect(runChunks(text, o, every(text))).toEqual(whole);
  for (const seed of [1, 2, 3]) expect(runChunks(text, o, randomCuts(text, seed))).toEqual(whole);
}

describe("gpt-oss: a call after the answer's end", () => {
  const AFTER_CALL = "a call after the answer's call: the dialect ends its answer at the first call's <|call|>";
  const AFTER_FINAL = "a call after the final message: the final message ends the answer";
  const AFTER_TEXT = "a call after text that is not a message: the answer ended there";
  const channelCall = (city: string) =>
    `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "${city}"}<|call|>`;
  const roleCall = (city: string) =>
    ` to=functions.get_weather<|channel|>commentary json<|message|>{"city": "${city}"}<|call|>`;
  const PARIS = channelCall("Paris");
  const base = { dialect: "gpt-oss", tools: TOOLS } as const;
  const entry = (reason: string, text: string, index = 1, name: string | null = "get_weather") => ({
    index,
    name,
    kind: "invalid",
    reason,
    missing: [],
    text,
  });

  it("the second call message after <|call|> is invalid, not content, with parallel calls on and off", () => {
    const second = `<|start|>assistant${channelCall("Rome")}`;
    const text = `${PARIS}${second}`;
    for (const parallelToolCalls of [true, false]) {
      const o = { ...base, parallelToolCalls };
      const r = parseToolCalls(text, o);
      expect(argsOf(r)).toEqual([{ city: "Paris" }]);
      expect(r.incomplete).toEqual([entry(AFTER_CALL, second)]);
      expect([r.content, r.dropped, r.finishReason]).toEqual([null, [], "tool_calls"]);
      sameForEverySplit(text, o);
      expect(grammarAccepts(buildToolGrammar(o), text)).toBe(false);
      expect(grammarAccepts(buildToolGrammar(o), PARIS)).toBe(true);
    }
  });

  it("in every spelling: role header, no message start, text before it, no <|call|>, cut, invalid arguments", () => {
    const cases: Array<[string, string, string | null]> = [
      [`<|start|>assistant${roleCall("Rome")}`, `<|start|>assistant${roleCall("Rome")}`, null],
      [channelCall("Rome"), channelCall("Rome"), null],
      [roleCall("Rome"), roleCall("Rome"), null],
      [`\n\nAnd Rome: ${channelCall("Rome")}`, channelCall("Rome"), "\n\nAnd Rome: "],
      [channelCall("Rome").replace("<|call|>", ""), channelCall("Rome").replace("<|call|>", ""), null],
      ['<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"ci', "", null],
      [
        '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": 1}<|call|>',
        "",
        null,
      ],
      ["<|start|>assistant<|channel|>commentary to=functions.get_wea", "", null],
    ];
    for (const [after, entryText, content] of cases) {
      const text = `${PARIS}${after}`;
      const o = { ...base, parallelToolCalls: false };
      const r = parseToolCalls(text, o);
      expect(argsOf(r), text).toEqual([{ city: "Paris" }]);
      const name = after.endsWith("get_wea") ? null : "get_weather";
      expect(r.incomplete, text).toEqual([entry(AFTER_CALL, entryText || after, 1, name)]);
      expect(r.content, text).toBe(content);
      sameForEverySplit(text, o);
      expect(grammarAccepts(buildToolGrammar(o), text), text).toBe(false);
    }
  });

  it("after a call that is itself invalid (its <|call|> missing), the next call is outside the answer too", () => {
    const first = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}';
    const second = `<|start|>assistant${channelCall("Rome")}`;
    const r = parseToolCalls(`${first}${second}`, base);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete.map((x) => [x.index, x.reason])).toEqual([
      [0, "the call's end <|call|> is missing"],
      [1, AFTER_CALL],
    ]);
    expect(r.content).toBeNull();
    sameForEverySplit(`${first}${second}`, base);
  });

  it("a call after the final message's <|return|> or <|end|> is invalid; the final text is the content", () => {
    for (const end of ["<|return|>", "<|end|>"]) {
      const final = `<|channel|>final<|message|>It is sunny.${end}`;
      for (const after of [`<|start|>assistant${channelCall("Rome")}`, roleCall("Rome")]) {
        const text = `${final}${after}`;
        const r = parseToolCalls(text, base);
        expect(r.toolCalls).toEqual([]);
        expect(r.incomplete, text).toEqual([entry(AFTER_FINAL, after, 0)]);
        expect(r.content).toBe("It is sunny.");
        sameForEverySplit(text, base);
        // As text, the final message's body may hold <|return|> (where it is a special token, the
        // end of generation, no text holds it): the grammar on text refuses the call after <|end|>.
        if (end === "<|end|>") expect(grammarAccepts(buildToolGrammar(base), text)).toBe(false);
        expect(grammarAccepts(buildToolGrammar(base), `${final} more text`)).toBe(true);
      }
    }
  });

  it("a call after text that is not a message is invalid: the text stays content", () => {
    for (const [lead, after] of [
      ["Sure, checking.", channelCall("Rome")],
      ["<|channel|>analysis<|message|>Rome.<|end|>", channelCall("Rome")],
      ["Sure.", `<|start|>assistant${roleCall("Rome")}`],
    ] as const) {
      const text = `${lead}${after}`;
      const o = { ...base, reasoning: true };
      const r = parseToolCalls(text, o);
      expect(r.toolCalls).toEqual([]);
      expect(r.incomplete, text).toEqual([entry(AFTER_TEXT, after, 0)]);
      expect([r.content, r.reasoning], text).toEqual(lead.startsWith("<") ? [null, "Rome."] : [lead, null]);
      sameForEverySplit(text, o);
      expect(grammarAccepts(buildToolGrammar(o), text)).toBe(false);
    }
  });

  it("what is not a call of an allowed tool after the end stays content as written", () => {
    const named = { ...base, toolChoice: { type: "function", function: { name: "get_weather" } } } as const;
    for (const [after, o] of [
      ["<|start|>assistant<|channel|>final<|message|>Done.<|return|>", base],
      ["<|start|>assistant<|channel|>commentary to=functions.nope <|constrain|>json<|message|>{}<|call|>", base],
      ["<|start|>assistant<|channel|>commentary to=functions.delete_all <|constrain|>json<|message|>{}<|call|>", named],
      [" to=functions and <|start|>assistant and <|channel|>", base],
    ] as const) {
      const text = `${PARIS}${after}`;
      const r = parseToolCalls(text, o);
      expect(argsOf(r), text).toEqual([{ city: "Paris" }]);
      expect([r.incomplete, r.content], text).toEqual([[], after]);
      sameForEverySplit(text, o);
    }
    // The grammar allows text after <|call|> that names no function.
    expect(grammarAccepts(buildToolGrammar(base), `${PARIS}<|start|>assistant<|channel|>final<|message|>Done.`)).toBe(
      true,
    );
  });

  it("a call after the end over maxCallLength is dropped, as any call over it", () => {
    const o = { ...base, maxCallLength: 100 };
    const text = `${roleCall("P")}${channelCall("Rome, a city with a long name")}`;
    const r = parseToolCalls(text, o);
    expect(argsOf(r)).toEqual([{ city: "P" }]);
    expect(r.dropped).toMatchObject([{ index: 1, name: "get_weather" }]);
    expect([r.incomplete, r.content]).toEqual([[], null]);
    sameForEverySplit(text, o);
  });
});

describe("generic: a call after the answer object", () => {
  const AFTER = "a call after the answer object: the dialect's answer is one JSON object";
  const A = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
  const B = '{"name": "get_weather", "arguments": {"city": "Rome"}}';
  const C = '{"name": "delete_all", "arguments": {}}';
  const base = { dialect: "generic", tools: TOOLS } as const;

  it("every call of a second answer object is invalid, its text not content, with parallel calls on and off", () => {
    for (const first of [`{"tool_calls": [${A}]}`, `{"tool_call": ${A}}`])
      for (const gap of ["", " ", "\n\n"])
        for (const second of [`{"tool_calls": [${B}, ${C}]}`, `{"tool_call": ${B}}`]) {
          const text = `${first}${gap}${second}`;
          for (const parallelToolCalls of [true, false]) {
            const o = { ...base, parallelToolCalls };
            const r = parseToolCalls(text, o);
            expect(argsOf(r), text).toEqual([{ city: "Paris" }]);
            const written = second.includes(C) ? [B, C] : [B];
            expect(r.incomplete, text).toEqual(
              written.map((t, k) => ({
                index: 1 + k,
                name: t === C ? "delete_all" : "get_weather",
                kind: "invalid",
                reason: AFTER,
                missing: [],
                text: t,
              })),
            );
            expect(r.content, text).toBeNull();
            sameForEverySplit(text, o);
            expect(grammarAccepts(buildToolGrammar(o), text)).toBe(false);
          }
        }
  });

  it("after a response, after text, after a broken object, and cut: the calls are invalid", () => {
    const cases: Array<[string, string | null, number, string[]]> = [
      [`{"response": "Paris is sunny."}{"tool_calls": [${B}]}`, "Paris is sunny.", 0, [B]],
      [`{"tool_calls": [${A}]} and also {"tool_calls": [${B}]}`, " and also ", 1, [B]],
      [`{"tool_calls": [${A}]}{{"tool_call": ${B}}`, "{", 1, [B]],
      [
        `{"tool_calls": [${A}]}\n{"tool_calls": [${B}, {"name": "get_weather", "argu`,
        null,
        1,
        [B, '{"name": "get_weather", "argu'],
      ],
    ];
    for (const [text, content, first, texts] of cases) {
      const r = parseToolCalls(text, base);
      expect(r.toolCalls.length, text).toBe(first);
      expect(
        r.incomplete.map((x) => [x.kind, x.reason, x.text]),
        text,
      ).toEqual(texts.map((t) => ["invalid", AFTER, t]));
      expect(r.content, text).toBe(content);
      sameForEverySplit(text, base);
      expect(grammarAccepts(buildToolGrammar(base), text)).toBe(false);
    }
  });

  it("an object after the answer that names no call, and other text, stay content as written", () => {
    for (const after of [' {"note": 1}', '{"response": "more"}', " {x} {", ' {"a": {"tool_calls": []}}']) {
      const text = `{"tool_calls": [${A}]}${after}`;
      const r = parseToolCalls(text, base);
      expect(argsOf(r), text).toEqual([{ city: "Paris" }]);
      expect([r.incomplete, r.content], text).toEqual([[], after]);
      sameForEverySplit(text, base);
    }
  });

  it("an answer in words that holds an answer object stays content (the model answered in text)", () => {
    const text = `Here: {"tool_calls": [${A}]}`;
    expect(parseToolCalls(text, base)).toMatchObject({ toolCalls: [], incomplete: [], content: text });
  });
});

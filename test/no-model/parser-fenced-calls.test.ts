// Calls that open the answer bare or in a ```json fence, one after another (DialectSpec.openingCalls:
// qwen2.5-coder; hermes with fencedCalls), read by the parser and written by the grammar alike. The
// answers below are what Qwen2.5-Coder-0.5B-Instruct wrote (bench/results/models-real.json #0,
// bench/results/bfcl-required.json parallel_60, parallel_73, parallel_173, parallel_multiple_60,
// parallel_93); docs/dialects.md, "Fenced and bare calls".
import { describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  compileGrammar,
  parseToolCalls,
  resolveRequest,
  ToolCallStreamParser,
  type ParserOptions,
  type ToolChoice,
} from "../../src/index.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { runChunks } from "../../scripts/lib/parser-runs.mjs";
import { fn } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

const WEATHER = fn("get_weather", { city: { type: "string" }, days: { type: "integer" } }, ["city"]);
const BFCL = [
  fn("math_factorial", { number: { type: "integer" } }),
  fn("calculus_derivative", {
    function: { type: "string" },
    value: { type: "integer" },
    function_variable: { type: "string" },
  }),
  fn("investment_predictProfit", {
    investment_amount: { type: "integer" },
    annual_return: { type: "number" },
    years: { type: "integer" },
  }),
  fn("country_info_capital", { country: { type: "string" } }),
  fn("country_info_population", { country: { type: "string" } }),
  fn("country_info_largest_city", { country: { type: "string" } }),
  fn("route_estimate_time", {
    start_location: { type: "string" },
    end_location: { type: "string" },
    stops: { type: "array", items: { type: "string" } },
  }),
];

const opts = (
  tools: unknown[],
  toolChoice: ToolChoice = "auto",
  extra: Partial<ParserOptions> = {},
): ParserOptions => ({
  dialect: "qwen2.5-coder",
  tools,
  toolChoice,
  ...extra,
});
const names = (r: ReturnType<typeof parseToolCalls>) => r.toolCalls.map((c) => c.function.name);
const args = (r: ReturnType<typeof parseToolCalls>) => r.toolCalls.map((c) => JSON.parse(c.function.arguments));

/** The result and merged events for the text whole, fed one character at a time, and split at every offset: all the same. */
function everySplit(text: string, options: ParserOptions) {
  const o = { ...options, ...resolveRequest(options) }; // once for every split
  const whole = runChunks(ToolCallStreamParser, text, o, []);
  const one = runChunks(
    ToolCallStreamParser,
    text,
    o,
    Array.from({ length: Math.max(0, text.length - 1) }, (_, i) => i + 1),
  );
  expect(one, "fed one character at a time").toEqual(whole);
  for (let k = 1; k < text.length; k++)
    expect(runChunks(ToolCallStreamParser, text, o, [k]), `split at ${k}`).toEqual(whole);
  expect(whole.result).toEqual(parseToolCalls(text, options));
  return whole.result;
}

/** The grammar accepts `text` whole, character-level and token by token on Qwen3's vocabulary. */
function writable(text: string, o: ParserOptions): boolean {
  const { finishReason: _f, ...g } = o;
  const grammar = buildToolGrammar(g);
  const chars = grammarAccepts(grammar, text);
  const m = compileGrammar(grammar, qwen3()).createMatcher();
  expect(m.acceptString(text) && m.isComplete(), `the matcher on ${JSON.stringify(text)}`).toBe(chars);
  return chars;
}

const FENCED =
  '```json\n{\n  "name": "get_weather",\n  "arguments": {\n    "city": "Paris",\n    "days": 14\n  }\n}\n```';

describe("qwen2.5-coder: the forms the model writes", () => {
  it("a call in a ```json fence, indented (39 of 56 real-model answers), is a call under every choice, whole and at every split", () => {
    for (const choice of [
      "auto",
      "required",
      { type: "function", function: { name: "get_weather" } },
    ] as ToolChoice[]) {
      const r = everySplit(FENCED, opts([WEATHER], choice));
      expect(args(r)).toEqual([{ city: "Paris", days: 14 }]);
      expect(r).toMatchObject({ content: null, incomplete: [], finishReason: "tool_calls" });
      expect(writable(FENCED, opts([WEATHER], choice))).toBe(true);
    }
    // "```" without "json", JSON whitespace before the object and before the close.
    const plain = '```\n  {"name": "get_weather", "arguments": {"city": "Rome"}}  \n```';
    expect(args(everySplit(plain, opts([WEATHER])))).toEqual([{ city: "Rome" }]);
    expect(writable(plain, opts([WEATHER], "required"))).toBe(true);
  });

  it("several bare calls, separated by a line break, a blank line, or a comma and a line break (BFCL parallel answers)", () => {
    const answers: Array<[string, string, number]> = [
      [
        "parallel_60",
        '{\n  "name": "math_factorial",\n  "arguments": {\n    "number": 5\n  }\n}\n{\n  "name": "math_factorial",\n  "arguments": {\n    "number": 7\n  }\n}\n{\n  "name": "math_factorial",\n  "arguments": {\n    "number": 9\n  }\n}',
        3,
      ],
      [
        "parallel_73",
        '{\n  "name": "calculus_derivative",\n  "arguments": {\n    "function": "3x^2 + 2x - 1",\n    "value": 5,\n    "function_variable": "x"\n  }\n}\n\n{\n  "name": "calculus_derivative",\n  "arguments": {\n    "function": "4y^3 - 3y^2 + 2y - 1",\n    "value": 3,\n    "function_variable": "y"\n  }\n}',
        2,
      ],
      [
        "parallel_173",
        '{"name": "investment_predictProfit", "arguments": {\n  "investment_amount": 5000,\n  "annual_return": 0.07,\n  "years": 5\n}},\n{"name": "investment_predictProfit", "arguments": {\n  "investment_amount": 8000,\n  "annual_return": 0.05,\n  "years": 7\n}}',
        2,
      ],
      [
        "parallel_multiple_60",
        '{"name": "country_info_capital", "arguments": {"country": "Australia"}},\n{"name": "country_info_population", "arguments": {"country": "Canada"}},\n{"name": "country_info_largest_city", "arguments": {"country": "Brazil"}}',
        3,
      ],
    ];
    for (const [id, text, n] of answers) {
      for (const choice of ["auto", "required"] as const) {
        const r = everySplit(text, opts(BFCL, choice));
        expect(r.toolCalls.length, id).toBe(n);
        expect(r, id).toMatchObject({ content: null, incomplete: [], finishReason: "tool_calls" });
        expect(writable(text, opts(BFCL, choice)), id).toBe(true);
      }
      // One call allowed: the second is read, and invalid; the grammar refuses it.
      const one = everySplit(text, opts(BFCL, "auto", { parallelToolCalls: false }));
      expect(one.toolCalls.length, id).toBe(1);
      expect(
        one.incomplete.map((c) => c.reason),
        id,
      ).toEqual(Array(n - 1).fill("a second call, but parallelToolCalls is false"));
      expect(writable(text, opts(BFCL, "auto", { parallelToolCalls: false })), id).toBe(false);
    }
  });

  it("several fences, and fences and bare calls mixed", () => {
    const text = `${FENCED}\n\n${FENCED.replace("Paris", "Rome")}\n{"name": "get_weather", "arguments": {"city": "Oslo"}}`;
    const r = everySplit(text, opts([WEATHER]));
    expect(args(r).map((a) => a.city)).toEqual(["Paris", "Rome", "Oslo"]);
    expect(r.content).toBeNull();
    expect(writable(text, opts([WEATHER], "required"))).toBe(true);
  });

  it("text after the calls is content, and a call after that text is content too", () => {
    const text = `${FENCED}\n\nIt will be sunny.\n${FENCED.replace("Paris", "Rome")}`;
    const r = everySplit(text, opts([WEATHER]));
    expect(args(r).map((a) => a.city)).toEqual(["Paris"]);
    expect(r.content).toBe(text.slice(FENCED.length));
    expect(writable(text, opts([WEATHER]))).toBe(true);
    // parallel_93 (unmasked, cut): prose, then a fence; the model's answer opened with prose.
    const prose =
      'To estimate the travel time, use the `route_estimate_time` function. Here are the estimated travel times for each scenario:\n\n### Scenario 1: Start from New York\n\n```json\n{\n  "name": "route_estimate_time",\n  "arguments": {\n    "start_location": "NYC",\n    "end_location": "Miami",\n    "stops": ["Philadelphia", "Washington D.C", "Atlanta"]\n  }\n}\n```\n\n### Scenario 2: Start from';
    const p = everySplit(prose, opts(BFCL, "auto", { finishReason: "length" }));
    expect(p).toMatchObject({ toolCalls: [], incomplete: [], content: prose });
  });

  it("a stray fence line after a bare call is text: the fenced call after it is content, kept whole", () => {
    const bare = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
    const text = `${bare}\n\`\`\`\n${FENCED.replace("Paris", "Rome")}`;
    const r = everySplit(text, opts([WEATHER]));
    expect(args(r).map((a) => a.city)).toEqual(["Paris"]);
    expect(r.content).toBe(text.slice(bare.length));
    expect(writable(text, opts([WEATHER]))).toBe(true);
    expect(writable(text, opts([WEATHER], "required"))).toBe(true);
  });

  it("a JSON array of calls (no real answer wrote one) is content", () => {
    const text =
      '[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_weather", "arguments": {"city": "Rome"}}]';
    expect(everySplit(text, opts([WEATHER]))).toMatchObject({ toolCalls: [], incomplete: [], content: text });
    expect(writable(text, opts([WEATHER]))).toBe(true);
    expect(writable(text, opts([WEATHER], "required"))).toBe(false);
  });
});

describe("qwen2.5-coder: JSON that is no call stays text", () => {
  const texts = [
    '```json\n{"city": "Paris"}\n```',
    '```json\n{\n  "city": "Paris",\n  "name": "get_weather"\n}\n```',
    '{"city": "Paris"}',
    '{"arguments": {"city": "Paris"}, "name": "get_weather"}',
    "```\n[1, 2, 3]\n```",
    "```python\nprint({'name': 'get_weather'})\n```",
    "```js\nconst x = {};\n```",
    "`get_weather` takes a city.",
    '{"name": "get_weather\\u0022", "arguments": {}}',
    `${" ".repeat(33)}{"name": "get_weather", "arguments": {"city": "Paris"}}`,
  ];
  it("under auto: content for the parser, whole and at every split, and the grammar lets a model write it", () => {
    for (const text of texts) {
      expect(everySplit(text, opts([WEATHER])), text).toMatchObject({ toolCalls: [], incomplete: [], content: text });
      expect(writable(text, opts([WEATHER])), text).toBe(true);
    }
  });

  it("under a choice that requires a call: refused by the grammar", () => {
    for (const text of texts) expect(writable(text, opts([WEATHER], "required")), text).toBe(false);
  });

  it("is decided at the character where it leaves every call's head, before the object ends", () => {
    // [text, the text just before the character that leaves every head]
    const cases: Array<[string, string]> = [
      ['```json\n{"city": "Paris"}\n```', '```json\n{"'],
      ['{"nam" : 1}', '{"nam'],
      ["```python\nprint(1)\n```", "```"],
      ['```json\n{\n  "name": "get_weatherX", "arguments": {}}\n```', '```json\n{\n  "name": "get_weather'],
      ['{ \t"name":"get_weather ", "arguments": {}}', '{ \t"name":"get_weather'],
    ];
    for (const [text, before] of cases) {
      const at = before.length;
      const p = new ToolCallStreamParser(opts([WEATHER]));
      let content = "";
      for (let k = 0; k < text.length; k++) {
        for (const e of p.feed(text[k]!)) if (e.type === "content") content += e.delta;
        expect(content, `${JSON.stringify(text)} after ${k + 1} characters`).toBe(k < at ? "" : text.slice(0, k + 1));
      }
    }
    // A declared tool's head is a call's: no content, whatever follows.
    const p = new ToolCallStreamParser(opts([WEATHER]));
    expect([...p.feed('{"name": "get_weather"'), ...p.feed(" x")].some((e) => e.type === "content")).toBe(false);
  });

  it("a fenced or bare call of a tool the request does not declare (or allow) is content", () => {
    const undeclared = '```json\n{\n  "name": "delete_all",\n  "arguments": {}\n}\n```';
    const prefix = '```json\n{\n  "name": "get_weathe",\n  "arguments": {"city": "Paris"}\n}\n```';
    for (const text of [undeclared, prefix, '{"name": "Short Joke", "arguments": {"joke": "…"}}']) {
      expect(everySplit(text, opts([WEATHER])), text).toMatchObject({ toolCalls: [], incomplete: [], content: text });
      expect(writable(text, opts([WEATHER])), text).toBe(true);
      expect(writable(text, opts([WEATHER], "required")), text).toBe(false);
    }
    const other = fn("get_time", { zone: { type: "string" } });
    const named = opts([WEATHER, other], { type: "function", function: { name: "get_time" } });
    expect(everySplit(FENCED, named)).toMatchObject({ toolCalls: [], content: FENCED });
    expect(writable(FENCED, named)).toBe(false);
  });
});

describe("qwen2.5-coder: a call cut off or left open is never complete", () => {
  it("every prefix of a fenced call before its closing ``` is a cut call (finish length or stop), never a complete one", () => {
    for (let k = 1; k < FENCED.length; k++) {
      const prefix = FENCED.slice(0, k);
      for (const finishReason of ["length", "stop"] as const) {
        const r = parseToolCalls(prefix, opts([WEATHER], "auto", { finishReason }));
        expect(r.toolCalls, prefix).toEqual([]);
        expect(
          r.incomplete.map((c) => c.kind),
          prefix,
        ).toEqual(["cut"]);
        expect(r.finishReason, prefix).toBe(finishReason);
      }
      expect(writable(prefix, opts([WEATHER])), prefix).toBe(false);
    }
  });

  it("a fence closed by other text is an invalid call; the text after the object is read as what follows a call", () => {
    const text = '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\nDone.';
    const r = everySplit(text, opts([WEATHER]));
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete.map((c) => [c.kind, c.reason])).toEqual([
      ["invalid", 'the call\'s closing "```" is missing after the object'],
    ]);
    expect(r.content).toBe("\nDone.");
    expect(writable(text, opts([WEATHER]))).toBe(false);
  });

  it("a separator with no call after it, at the end, is a cut call", () => {
    const text = '{"name": "get_weather", "arguments": {"city": "Paris"}},\n';
    const r = everySplit(text, opts([WEATHER], "auto", { finishReason: "length" }));
    expect(names(r)).toEqual(["get_weather"]);
    expect(r.incomplete.map((c) => c.kind)).toEqual(["cut"]);
    expect(writable(text, opts([WEATHER]))).toBe(false);
    // Whitespace alone after a call is not: the answer may end there.
    const ws = '{"name": "get_weather", "arguments": {"city": "Paris"}}\n\n';
    expect(everySplit(ws, opts([WEATHER]))).toMatchObject({
      content: null,
      incomplete: [],
      finishReason: "tool_calls",
    });
    expect(writable(ws, opts([WEATHER]))).toBe(true);
  });
});

describe("hermes with fencedCalls", () => {
  const tagged = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>';
  const hermes = (toolChoice: ToolChoice = "auto", extra: Partial<ParserOptions> = {}): ParserOptions => ({
    dialect: "hermes",
    tools: [WEATHER],
    toolChoice,
    fencedCalls: true,
    ...extra,
  });

  it("is off by default: a fenced call is content, as before", () => {
    const o = { dialect: "hermes", tools: [WEATHER] };
    expect(parseToolCalls(FENCED, o)).toMatchObject({ toolCalls: [], content: FENCED });
    expect(grammarAccepts(buildToolGrammar({ ...o, toolChoice: "required" }), FENCED)).toBe(false);
  });

  it("reads fenced and bare calls opening the answer, then <tool_call> calls among the text", () => {
    const text = `${FENCED}\n${tagged}\nDone. ${tagged}`;
    const r = everySplit(text, hermes());
    expect(args(r).map((a) => a.city)).toEqual(["Paris", "Rome", "Rome"]);
    expect(r.content).toBe("\nDone. ");
    expect(writable(text, hermes())).toBe(true);
    for (const choice of ["auto", "required"] as const) {
      expect(writable(tagged, hermes(choice)), choice).toBe(true);
      expect(writable(FENCED, hermes(choice)), choice).toBe(true);
    }
    // Text first: a fence after it is text; a <tool_call> after it is a call.
    const later = `Sure.\n${FENCED}\n${tagged}`;
    const l = everySplit(later, hermes());
    expect(args(l).map((a) => a.city)).toEqual(["Rome"]);
    expect(l.content).toBe(`Sure.\n${FENCED}\n`);
    expect(writable(later, hermes())).toBe(true);
  });

  it("calls quoted inside the thought stay text (the thought the prompt opened)", () => {
    const forced = hermes("auto", { reasoning: "forced-open" });
    const text = `I could write ${FENCED} here.</think>\nNo call needed.`;
    const r = everySplit(text, forced);
    expect(r).toMatchObject({ toolCalls: [], incomplete: [], content: "\nNo call needed." });
    expect(r.reasoning).toContain(FENCED);
    expect(writable(text, forced)).toBe(true);
    const called = `Weather.</think>\n${FENCED}`;
    expect(args(everySplit(called, hermes("required", { reasoning: "forced-open" })))).toEqual([
      { city: "Paris", days: 14 },
    ]);
    expect(writable(called, hermes("required", { reasoning: "forced-open" }))).toBe(true);
  });

  it("is refused with reasoning: true, where a thought may or may not open the answer", () => {
    // Read so, the grammar took "<think>a</think>" for text and let an invalid call follow it,
    // which the parser, reading a thought, reported invalid.
    for (const f of [parseToolCalls.bind(null, ""), buildToolGrammar])
      expect(() => f(hermes("auto", { reasoning: true }) as never)).toThrow(
        /fencedCalls\) cannot be combined with reasoning: true .* use reasoning: "forced-open"/,
      );
  });

  it("is refused where a dialect's calls are no JSON object in markers, and cannot be turned off in qwen2.5-coder", () => {
    for (const dialect of ["llama3", "qwen3-coder", "mistral", "generic"])
      expect(() => parseToolCalls("", { dialect, tools: [WEATHER], fencedCalls: true }), dialect).toThrow(
        /fencedCalls is for dialects whose call is a \{"name", "arguments"\} object inside markers/,
      );
    expect(() => parseToolCalls("", { dialect: "qwen2.5-coder", tools: [WEATHER], fencedCalls: false })).toThrow(
      /always reads fenced and bare JSON calls/,
    );
    expect(
      parseToolCalls(FENCED, { dialect: "qwen2.5-coder", tools: [WEATHER], fencedCalls: true }).toolCalls,
    ).toHaveLength(1);
  });
});

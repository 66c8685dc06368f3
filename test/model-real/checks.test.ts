// The real-model suite's own judges, shown to fail where they must: the ajv verdict on answers
// (scripts/lib/real-answers.mjs) and the over-constraint replay (src/bench/overconstraint.ts),
// here on the random-weight test model's Qwen3 vocabulary with hand-written Hermes answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endedByModel, replayThroughMask } from "../../src/bench/overconstraint.js";
import { getDialect, loadModel, type LlamaModel } from "../../src/index.js";
import { escapeRegex } from "../../src/parser/escape-regex.js";
import { answerVerdict, cutProblem, type RequestView } from "../../scripts/lib/real-answers.mjs";
import { TOOLS } from "../../scripts/lib/real-cases.mjs";
import { callOpening } from "../../scripts/lib/real-suite.mjs";
import { IM_END } from "../support/generation-checks.js";
import { testModelPath } from "../support/test-model.js";

const tools = [TOOLS.get_weather!, TOOLS.create_user!];
const call = (name: string, args: unknown) => ({
  function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
});
const finished = (toolCalls: ReturnType<typeof call>[], over: Partial<Parameters<typeof answerVerdict>[0]> = {}) => ({
  finishReason: toolCalls.length ? ("tool_calls" as const) : ("stop" as const),
  toolCalls,
  incomplete: [],
  completionTokens: 20,
  endedByModel: true,
  text: "",
  ...over,
});
const request = (toolChoice: unknown = "auto", parallel = true): RequestView => ({
  tools,
  toolChoice,
  parallel,
  maxTokens: 40,
});

describe("answerVerdict (ajv against the request's schemas)", () => {
  it("passes a finished answer with declared, schema-valid calls", () => {
    const v = answerVerdict(
      finished([
        call("get_weather", { city: "Paris", unit: "celsius" }),
        call("create_user", { profile: { name: "A", address: { city: "Oslo" } } }),
      ]),
      request(),
    );
    expect(v).toEqual({ cut: false, valid: true, calls: 2, problems: [] });
  });

  it("names each way a finished answer can be wrong", () => {
    const problems = (a: Parameters<typeof answerVerdict>[0], r = request()) => answerVerdict(a, r).problems;
    expect(problems(finished([call("get_time", {})]))).toEqual(['call to "get_time", which is not declared']);
    expect(problems(finished([call("get_weather", { city: "Paris", days: 30 })]))[0]).toMatch(
      /fail its schema \(ajv: \/days must be <= 14\)/,
    );
    expect(problems(finished([call("get_weather", { unit: "celsius" })]))[0]).toMatch(
      /must have required property 'city'/,
    );
    expect(problems(finished([call("create_user", { profile: { name: "A", address: {} } })]))[0]).toMatch(
      /\/profile\/address must have required property 'city'/,
    );
    expect(problems(finished([call("get_weather", '{"city": "Par')]))[0]).toMatch(/not JSON/);
    expect(
      problems(
        finished([call("create_user", { profile: { name: "A" } })]),
        request({ type: "function", function: { name: "get_weather" } }),
      ),
    ).toEqual(["call to create_user although tool_choice names get_weather"]);
    expect(problems(finished([call("get_weather", { city: "A" })]), request("none"))).toEqual([
      'call to get_weather although tool_choice is "none"',
    ]);
    expect(problems(finished([]), request("required"))).toEqual([
      "finished without a call although the tool choice requires one",
    ]);
    const prose = finished([call("get_weather", { city: "A" })], {
      text: 'Sure. <tool_call>\n{"name": "get_weather", "arguments": {"city": "A"}}\n</tool_call>',
    });
    expect(problems(prose, { ...request("required"), trigger: "<tool_call>" })).toEqual([
      "text before the first call although the tool choice requires the call to open the answer",
    ]);
    expect(
      problems({ ...prose, text: prose.text.slice(6) }, { ...request("required"), trigger: "<tool_call>" }),
    ).toEqual([]);
    expect(problems(prose, { ...request("auto"), trigger: "<tool_call>" })).toEqual([]);
    const envelope = finished([call("get_weather", { city: "A" })], {
      text: '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "A"}}]}\nDone.',
      content: "\nDone.",
    });
    expect(problems(envelope, { ...request("auto"), callsAlone: true })).toEqual([
      "text beside the calls although the dialect's answer is its JSON object alone",
    ]);
    expect(problems({ ...envelope, content: "\n" }, { ...request("auto"), callsAlone: true })).toEqual([]);
    // Qwen2.5-Coder's unmasked answer to "Tell me a short joke." (bench/results/models-real.json #48):
    // a bare call to a tool nobody declared, which the parser leaves as content: the model's text,
    // not markup the parser failed to read.
    const bare = callOpening({ escapeRegex }, getDialect("qwen2.5-coder"), undefined)!;
    const tagged = callOpening({ escapeRegex }, getDialect("hermes"), "<tool_call>")!;
    const unread = /the content opens a call \("\{"\) that was not read as one: markup the parser could not read/;
    const joke = '{"name": "Short Joke", "arguments": {"short joke": "Why did the tomato turn red?"}}';
    expect(problems(finished([], { text: joke, content: joke }), { ...request("auto"), opening: bare })).toEqual([]);
    expect(
      problems(finished([], { text: `\n${joke}`, content: `\n${joke}` }), { ...request("auto"), opening: bare }),
    ).toEqual([]);
    // An object whose head is no call's, bare or fenced, is text (docs/dialects.md, "Fenced and bare
    // calls"); a declared call's head left in content is markup the parser could not read.
    for (const text of ['{"city": "Paris"}', '```json\n{"city": "Paris"}\n```', "```python\nprint(1)\n```"])
      expect(problems(finished([], { text, content: text }), { ...request("auto"), opening: bare }), text).toEqual([]);
    for (const markup of [
      '\n{"name": "get_weather", "arguments": {"city": 3}}',
      '{"name": "get_weather"',
      '```json\n{\n  "name": "get_weather", "arguments": {"city": 3}}\n```',
    ])
      expect(
        problems(finished([], { text: markup, content: markup }), { ...request("auto"), opening: bare })[0],
        markup,
      ).toMatch(unread);
    // A name the tool choice does not allow is another tool's: content too.
    const other = '{"name": "create_user", "arguments": {}}';
    expect(
      problems(finished([], { text: other, content: other }), {
        ...request({ type: "function", function: { name: "get_weather" } }),
        opening: bare,
      }),
    ).toEqual(["finished without a call although the tool choice requires one"]);
    expect(
      problems(finished([], { text: "Use {x}.", content: "Use {x}." }), { ...request("auto"), opening: bare }),
    ).toEqual([]);
    expect(
      problems(finished([], { text: '{"city": "Paris"}', content: '{"city": "Paris"}' }), {
        ...request("none"),
        opening: bare,
      }),
    ).toEqual([]); // no call structure under none
    const rm = 'Sure. <tool_call>\n{"name": "rm", "arguments": {}}\n</tool_call>';
    expect(problems(finished([], { text: rm, content: rm }), { ...request("auto"), opening: tagged })).toEqual([]);
    const broken = 'Sure. <tool_call>\nget_weather(city="Paris")</tool_call>';
    expect(
      problems(finished([], { text: broken, content: broken }), { ...request("auto"), opening: tagged })[0],
    ).toMatch(/opens a call \("<tool_call>"\)/);
    expect(
      problems(finished([], { text: "Sure.", content: "Sure." }), { ...request("auto"), opening: tagged }),
    ).toEqual([]);
    expect(
      problems(
        finished([call("get_weather", { city: "A" }), call("get_weather", { city: "B" })]),
        request("auto", false),
      ),
    ).toEqual(["2 calls although parallel calls are off"]);
    expect(problems(finished([], { incomplete: [{ kind: "invalid", reason: "bad" }] }))).toEqual([
      "finished with an incomplete call (invalid: bad)",
    ]);
    expect(problems(finished([call("get_weather", { city: "A" })], { finishReason: "stop" }))).toEqual([
      "finish_reason stop, expected tool_calls",
    ]);
  });

  it("a cut must finish with length, and a call it ships must still be valid", () => {
    const cut = {
      finishReason: "length" as const,
      toolCalls: [],
      incomplete: [],
      completionTokens: 40,
      endedByModel: false,
      text: "",
    };
    expect(answerVerdict(cut, request("required"))).toEqual({ cut: true, valid: false, calls: 0, problems: [] });
    expect(answerVerdict({ ...cut, finishReason: "stop" }, request()).problems).toEqual([
      "cut at 40 tokens but finish_reason is stop",
    ]);
    expect(answerVerdict({ ...cut, toolCalls: [call("get_weather", {})] }, request()).problems[0]).toMatch(
      /required property 'city'/,
    );
  });

  it("cutProblem: an output that ended inside a call must list a cut call", () => {
    const open = {
      toolCalls: [],
      incomplete: [],
      text: 'ok <tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa',
    };
    expect(cutProblem(open, false, "<tool_call>")).toMatch(/ended inside a call/);
    expect(cutProblem({ ...open, incomplete: [{ kind: "cut", reason: "cut" }] }, false, "<tool_call>")).toBe("");
    expect(cutProblem({ ...open, text: "just text" }, false, "<tool_call>")).toBe(""); // before any call (required): finish length says it
    expect(cutProblem(open, true, "<tool_call>")).toBe(""); // a complete answer was not cut inside anything
  });
});

describe("replayThroughMask (the over-constraint check)", () => {
  let model: LlamaModel;
  beforeAll(async () => {
    model = await loadModel({ path: testModelPath(), gpu: false, parallel: 1, contextSize: 1024 });
  });
  afterAll(() => model?.dispose());
  const options = {
    messages: [{ role: "user" as const, content: "Weather in Paris?" }],
    tools,
    dialect: "hermes",
    toolChoice: "auto" as const,
    parallelToolCalls: false,
  };
  const tokens = async (text: string, end = true) => [
    ...(await model.native.tokenizePrompt(text)),
    ...(end ? [IM_END] : []),
  ];

  it("accepts every token of a valid answer, end of generation included", async () => {
    const ids = await tokens(
      'Sure. <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>',
    );
    expect(endedByModel(model, ids)).toBe(true);
    const r = await replayThroughMask(model, options, ids);
    expect(r).toMatchObject({
      masked: true,
      tokens: ids.length,
      accepted: ids.length,
      refused: null,
      complete: true,
      terminated: true,
    });
  });

  it("refuses the first token an invalid answer takes outside the grammar, and says where", async () => {
    const undeclared = await tokens('<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>');
    // Under auto a call to an undeclared tool is text (the parser's reading); a required call must name a declared tool.
    expect(await replayThroughMask(model, options, undeclared)).toMatchObject({ refused: null, complete: true });
    const r = await replayThroughMask(model, { ...options, toolChoice: "required" }, undeclared);
    expect(r.refused).not.toBeNull();
    expect(r.refused!.textBefore).toMatch(/^<tool_call>\n\{"name": "get_?$/); // the token that leaves "get_weather" (tokenization decides where)
    expect(r.accepted).toBe(r.refused!.index);
    const outOfRange = await replayThroughMask(
      model,
      options,
      await tokens('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 99}}\n</tool_call>'),
    );
    expect(outOfRange.refused?.textBefore).toMatch(/"days": 9$/);
    const second = await replayThroughMask(
      model,
      options,
      await tokens('<tool_call>\n{"name": "get_weather", "arguments": {"city": "A"}}\n</tool_call><tool_call>'),
    );
    expect(second.refused?.piece).toBe("<tool_call>"); // parallel calls off
  });

  it("an answer that stops early is accepted but not complete; under none every text is", async () => {
    const cut = await replayThroughMask(
      model,
      options,
      await tokens('<tool_call>\n{"name": "get_weather", "arguments": {"ci', false),
    );
    expect(cut).toMatchObject({ refused: null, complete: false, terminated: false });
    const none = await replayThroughMask(model, { ...options, toolChoice: "none" }, await tokens("No tools today."));
    expect(none).toMatchObject({ refused: null, complete: true, terminated: true });
  });
});

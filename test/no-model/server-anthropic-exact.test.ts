// /v1/messages writes a call's tool_use.input as the model wrote its arguments (issue 30, defect 8):
// the input is the arguments' own JSON text (JSON whitespace between tokens dropped), never
// JSON.parse's value written again, which rounded 9007199254740993 to 9007199254740992, wrote -0
// as 0 and 5e-999 as 0, and moved integer-like keys first. The body is read raw off the socket
// (the bytes on the wire); the streamed input_json_delta strings joined are the same text; the
// real @anthropic-ai/sdk reads an ordinary call as before. The calls come from a verify-only
// gateway (an OpenAI-compatible upstream scripted here), so no model is needed.
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { httpRequest } from "../support/raw-http.js";
import { useScriptedGateway } from "../support/scripted-gateway.js";
import { anthropicClient } from "../support/server-fixtures.js";
import { NO_TOKENS } from "../support/timeouts.js";

const fixture = useScriptedGateway();

const TOOLS = [
  { name: "record", input_schema: { type: "object" } },
  {
    name: "get_weather",
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];
const request = (stream: boolean) =>
  JSON.stringify({
    model: "m",
    max_tokens: 64,
    messages: [{ role: "user", content: "Go" }],
    tools: TOOLS,
    stream,
  });

/** The upstream's next answer: one call of `name` with `args` (its arguments text), whole or streamed. */
function answerWith(name: string, args: string, stream: boolean) {
  const call = { index: 0, id: "c1", type: "function", function: { name, arguments: args } };
  if (!stream)
    return fixture.upstream.reply({
      body: {
        choices: [
          { index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" },
        ],
      },
    });
  const events = [
    { choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }] },
    { choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
  ];
  return fixture.upstream.reply({
    write: (res) =>
      void res
        .writeHead(200, { "content-type": "text/event-stream" })
        .end(`${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`),
  });
}

/** The whole answer's body as sent, for a call with `args`. */
async function wholeBody(name: string, args: string): Promise<string> {
  answerWith(name, args, false);
  const r = await httpRequest(fixture.gateway.url, {
    path: "/v1/messages",
    body: request(false),
    headers: { "content-type": "application/json" },
  });
  expect(r.status, r.body).toBe(200);
  expect(r.headers["content-type"]).toMatch(/^application\/json/);
  return r.body;
}

/** The streamed answer's input_json_delta strings, joined, for a call with `args`. */
async function streamedInput(name: string, args: string): Promise<string> {
  answerWith(name, args, true);
  const r = await httpRequest(fixture.gateway.url, {
    path: "/v1/messages",
    body: request(true),
    headers: { "content-type": "application/json" },
  });
  expect(r.status, r.body).toBe(200);
  const deltas = r.body
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: { type: string; partial_json?: string } })
    .filter((e) => e.type === "content_block_delta" && e.delta?.type === "input_json_delta");
  expect(deltas.length).toBeGreaterThan(0);
  return deltas.map((e) => e.delta!.partial_json).join("");
}

describe("tool_use.input on the wire is the arguments as written", () => {
  it.each([
    ['{"n": 9007199254740993}', '{"n":9007199254740993}'],
    ['{"n": 12345678901234567891}', '{"n":12345678901234567891}'],
    ['{"n": 3.14159265358979323846}', '{"n":3.14159265358979323846}'],
    ['{"n": -0, "m": 1.10, "k": 12e3}', '{"n":-0,"m":1.10,"k":12e3}'],
    ['{"n": 5e-999}', '{"n":5e-999}'],
    ['{"b": 1, "2": "x", "a": [1, {"1": 2, "0": 3}]}', '{"b":1,"2":"x","a":[1,{"1":2,"0":3}]}'],
    ['{"s": "caf\\u00e9 \\"a b\\"\\n", "t": "x\\/y"}', '{"s":"caf\\u00e9 \\"a b\\"\\n","t":"x\\/y"}'],
    ['\n {\n  "n" : 9007199254740993 ,\t"s": " spaced  out "\r\n}\n', '{"n":9007199254740993,"s":" spaced  out "}'],
  ])("%j: input %s, whole and streamed alike", async (args, input) => {
    const body = await wholeBody("record", args);
    expect(body).toContain(`"input":${input}`);
    // the body is one JSON text, and its input what JSON.parse makes of the arguments
    expect((JSON.parse(body) as { content: Array<{ input: unknown }> }).content[0]!.input).toEqual(JSON.parse(args));
    expect(await streamedInput("record", args)).toBe(input);
  });

  it("empty arguments are the input {}", async () => {
    expect(await wholeBody("record", "")).toContain('"input":{}');
    expect(await streamedInput("record", "")).toBe("{}");
  });
});

describe("the real @anthropic-ai/sdk reads an ordinary call as before", () => {
  const sdk = () => anthropicClient(fixture.gateway.url, NO_TOKENS); // a scripted upstream decodes nothing;
  const params = {
    model: "m",
    max_tokens: 64,
    messages: [{ role: "user" as const, content: "Weather in Paris?" }],
    tools: TOOLS as Anthropic.Tool[],
  };

  it("whole and streamed: one tool_use with the arguments as an object, stop_reason tool_use", async () => {
    answerWith("get_weather", '{"city": "Paris"}', false);
    const m = await sdk().messages.create(params);
    expect(m.stop_reason).toBe("tool_use");
    expect(m.content).toEqual([
      { type: "tool_use", id: expect.any(String), name: "get_weather", input: { city: "Paris" } },
    ]);
    answerWith("get_weather", '{"city": "Paris"}', true);
    const s = await sdk().messages.stream(params).finalMessage();
    expect(s.stop_reason).toBe("tool_use");
    expect(s.content).toEqual([
      { type: "tool_use", id: expect.any(String), name: "get_weather", input: { city: "Paris" } },
    ]);
  });
});

// A gateway's streams hold only the calls its whole answers hold. Scripted upstreams (engine
// "openai") answer with calls a verdict refuses — written as text, read by the hermes parser (a
// duplicate key, a second call when one is allowed, a call cut by the upstream's length limit), or
// sent structured — and each request goes through the real clients both ways (chat.completions
// .stream(), messages.stream(), responses.stream() against their create()): the streamed answer is
// the whole one, a refused call in neither.
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { chatBothWays, messagesBothWays, responsesBothWays } from "../support/both-ways.js";
import { answeringGateway, type ReasoningGateway, type UpstreamAnswer } from "../support/reasoning-upstream.js";
import { client, anthropicClient } from "../support/server-fixtures.js";
import { NO_TOKENS } from "../support/timeouts.js";

const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const chatTools = [{ type: "function" as const, function: { name: "get_weather", parameters } }];
const hermes = (args: string) => `<tool_call>\n{"name": "get_weather", "arguments": ${args}}\n</tool_call>`;
const DUPLICATE = '{"city": "x", "city": "rm -rf /"}';
const harmony = (city: string) =>
  `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "${city}"}<|call|>`;

const gateways: ReasoningGateway[] = [];
afterAll(() => Promise.all(gateways.map((g) => g.close())));

interface Case {
  answer: UpstreamAnswer;
  dialect?: string;
  /** Only one call allowed. */
  single?: boolean;
  /** The calls the whole answer holds (their arguments), and its finish reason. */
  calls: string[];
  finish: string;
  /** The chat answer's content and the entries of calls it refused (toolmask.incomplete), where checked. */
  content?: string;
  refused?: number;
}

const cases: Array<[string, Case]> = [
  [
    "a duplicate key, as text",
    { answer: { content: hermes(DUPLICATE) }, dialect: "hermes", calls: [], finish: "stop" },
  ],
  [
    "two calls when one is allowed, as text",
    {
      answer: { content: `${hermes('{"city": "x"}')}\n${hermes('{"city": "y"}')}` },
      dialect: "hermes",
      single: true,
      calls: ['{"city": "x"}'],
      finish: "tool_calls",
    },
  ],
  ...[false, true].map((single): [string, Case] => [
    `a second call after gpt-oss's <|call|>, as text${single ? ", parallel calls off" : ""}`,
    {
      answer: { content: `${harmony("Paris")}<|start|>assistant${harmony("Rome")}` },
      dialect: "gpt-oss",
      single,
      calls: ['{"city": "Paris"}'],
      finish: "tool_calls",
      content: "",
      refused: 1,
    },
  ]),
  [
    "a call cut by the upstream's limit, as text",
    {
      answer: { content: `<tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa`, finish: "length" },
      dialect: "hermes",
      calls: [],
      finish: "length",
    },
  ],
  [
    "a duplicate key, structured",
    { answer: { calls: [{ id: "u1", name: "get_weather", arguments: DUPLICATE }] }, calls: [], finish: "stop" },
  ],
  [
    "two calls when one is allowed, structured",
    {
      answer: {
        calls: [
          { id: "u1", name: "get_weather", arguments: '{"city": "x"}' },
          { id: "u2", name: "get_weather", arguments: '{"city": "y"}' },
        ],
      },
      single: true,
      calls: ['{"city": "x"}'],
      finish: "tool_calls",
    },
  ],
];

describe("a gateway's streams hold the calls its whole answers hold", () => {
  it.each(cases)("%s: chat completions, messages and responses, streamed and whole", async (_label, c) => {
    const gateway = await answeringGateway(c.answer, c.dialect);
    gateways.push(gateway);
    const api = client(gateway.url, NO_TOKENS); // a scripted upstream decodes nothing
    const chat = await chatBothWays(api, {
      model: "m",
      messages: [{ role: "user", content: "Weather?" }],
      tools: chatTools,
      max_tokens: 64,
      ...(c.single ? { parallel_tool_calls: false } : {}),
    });
    const choice = chat.choices[0]!;
    expect(
      (choice.message.tool_calls ?? []).map((t) => (t as { function: { arguments: string } }).function.arguments),
    ).toEqual(c.calls);
    expect(choice.finish_reason).toBe(c.finish);
    if (c.content !== undefined) expect(choice.message.content ?? "").toBe(c.content);
    if (c.refused !== undefined)
      expect((chat as { toolmask?: { incomplete: unknown[] } }).toolmask?.incomplete).toHaveLength(c.refused);

    const anthropic = anthropicClient(gateway.url, NO_TOKENS, "k");
    const message = await messagesBothWays(anthropic, {
      model: "m",
      max_tokens: 64,
      messages: [{ role: "user", content: "Weather?" }],
      tools: [{ name: "get_weather", input_schema: parameters as Anthropic.Tool.InputSchema }],
      ...(c.single ? { tool_choice: { type: "auto", disable_parallel_tool_use: true } } : {}),
    });
    expect(message.content.filter((b) => b.type === "tool_use").map((b) => JSON.stringify(b.input))).toEqual(
      c.calls.map((a) => JSON.stringify(JSON.parse(a))),
    );

    const response = await responsesBothWays(api, {
      model: "m",
      input: "Weather?",
      tools: [{ type: "function", name: "get_weather", parameters, strict: true }],
      max_output_tokens: 64,
      ...(c.single ? { parallel_tool_calls: false } : {}),
    });
    expect(response.output.flatMap((o) => (o.type === "function_call" ? [o.arguments] : []))).toEqual(c.calls);
  });
});

// Bad requests to POST /v1/messages on the real server: each gets its 4xx with an error in
// Anthropic's shape, {type: "error", error: {type, message}}, whose message names the field to fix;
// the @anthropic-ai/sdk raises the error class of that status; and the server serves the next good
// request as if nothing happened.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { httpRequest } from "../support/raw-http.js";
import { testModelPath } from "../support/test-model.js";
import { toolSet, anthropicClient } from "../support/server-fixtures.js";
import { fetchWithin, NO_TOKENS, TEST_MODEL_CONTEXT, type Work } from "../support/timeouts.js";
import { notStoppedOnAbort, watchEngineGenerations } from "../support/engine-generations.js";
import { until } from "../support/until.js";

const BODY_LIMIT = 256 * 1024;
let model: LlamaModel;
let small: LlamaModel;
let server: ToolmaskServer;
let tiny: ToolmaskServer;
/** The template's own dialect (hermes): a tool's input_schema is one JSON value. */
let plain: ToolmaskServer;
// The requests served here decode at most 2 tokens (good's max_tokens), but for the queue test's,
// which are closed once the queue is full.
const sdk = (s: ToolmaskServer, work: Work = { decode: 2 }) => anthropicClient(s.url, work);
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  small = await loadModel({ path: testModelPath(), threads: 1, contextSize: 64 });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder", bodyLimit: BODY_LIMIT });
  tiny = await startServer({ model: small, port: 0 });
  plain = await startServer({ model, port: 0 });
});
afterAll(async () => {
  await server?.close();
  await tiny?.close();
  await plain?.close();
  model?.dispose();
  small?.dispose();
});

const tools = toolSet(1).map((t) => ({ name: t.function.name, input_schema: t.function.parameters }));
const user = (content: unknown) => ({ role: "user", content });
const good = { model: "m", max_tokens: 2, messages: [user("hi")] };
const called = {
  role: "assistant",
  content: [{ type: "tool_use", id: "toolu_1", name: "pick_1", input: { n: 1001 } }],
};

type ApiError = InstanceType<typeof Anthropic.APIError>;
type ErrorClass = new (...args: never[]) => ApiError;
interface Case {
  name: string;
  /** The request body, sent by the SDK (as is: the SDK does not check it). */
  body: Record<string, unknown>;
  status?: number;
  type?: string;
  cls?: ErrorClass;
  message: RegExp;
  to?: () => ToolmaskServer;
}

/** `{"a": {"a": … {}}}`, `depth` objects deep. */
const nested = (depth: number): unknown => {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const SELF_REF = { type: "object", properties: { x: { $ref: "#/properties/x" } }, required: ["x"] };

const cases: Case[] = [
  {
    name: "a user message of no content blocks",
    body: { ...good, messages: [user([])] },
    message: /^messages\[0\]\.content is an empty array: a message needs at least one content block/,
  },
  {
    name: "an assistant message of no content blocks",
    body: { ...good, messages: [user("hi"), { role: "assistant", content: [] }, user("go on")] },
    message: /^messages\[1\]\.content is an empty array/,
  },
  {
    name: "a parameter that is its own $ref, tool_choice any",
    body: { ...good, max_tokens: 64, tools: [{ name: "f", input_schema: SELF_REF }], tool_choice: { type: "any" } },
    message: /^tools\[0\]\.input_schema\.properties\.x\.\$ref: "\$ref": "#\/properties\/x" matches no value/,
    to: () => plain,
  },
  {
    name: "a parameter that is its own $ref, tool_choice auto",
    body: { ...good, tools: [{ name: "f", input_schema: SELF_REF }] },
    message: /^tools\[0\]\.input_schema\.properties\.x\.\$ref: "\$ref": "#\/properties\/x" matches no value/,
    to: () => plain,
  },
  {
    name: "two tool_result blocks for one tool_use",
    body: {
      ...good,
      tools,
      messages: [
        user("hi"),
        called,
        user([
          { type: "tool_result", tool_use_id: "toolu_1", content: "ok" },
          { type: "tool_result", tool_use_id: "toolu_1", content: "again" },
        ]),
      ],
    },
    message: /^messages\[2\]\.content\[1\]\.tool_use_id "toolu_1" is answered twice in messages\[2\]/,
  },
  {
    name: "a tool_use input nested 600 deep",
    body: {
      ...good,
      messages: [
        user("hi"),
        { role: "assistant", content: [{ type: "tool_use", id: "t", name: "pick_1", input: nested(600) }] },
        user([{ type: "tool_result", tool_use_id: "t", content: "ok" }]),
      ],
    },
    message: /^messages\[1\]\.content\[0\]\.input\.a… nests arrays and objects more than 512 levels deep/,
  },
  { name: "no max_tokens", body: { model: "m", messages: [user("hi")] }, message: /^max_tokens is required/ },
  { name: "max_tokens 0", body: { ...good, max_tokens: 0 }, message: /^max_tokens must be an integer from 1 .*got 0/ },
  { name: "max_tokens as a string", body: { ...good, max_tokens: "64" }, message: /^max_tokens must be an integer/ },
  {
    name: "no model",
    body: { max_tokens: 2, messages: [user("hi")] },
    message: /^model must be a string, got undefined/,
  },
  { name: "no messages", body: { ...good, messages: [] }, message: /^messages must be a non-empty array/ },
  {
    name: "a role no message has",
    body: { ...good, messages: [{ role: "developer", content: "be brief" }, user("hi")] },
    message: /^messages\[0\]\.role must be "user", "assistant" or "system", got "developer"/,
  },
  {
    name: "system messages only",
    body: { ...good, messages: [{ role: "system", content: "be brief" }] },
    message: /^messages holds system messages only: send at least one user message/,
  },
  {
    name: "an image in a system message",
    body: { ...good, messages: [user("hi"), { role: "system", content: [{ type: "image", source: {} }] }] },
    message:
      /^messages\[1\]\.content\[0\]\.type "image" is not supported in system messages by this server; it reads text blocks/,
  },
  {
    name: "a context edit this server does not apply",
    body: { ...good, context_management: { edits: [{ type: "clear_tool_uses_20250919" }] } },
    message:
      /^context_management\.edits\[0\]\.type "clear_tool_uses_20250919" is not supported by this server; it applies clear_thinking_20251015/,
  },
  {
    name: "clear_thinking keeping a negative count",
    body: {
      ...good,
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: { type: "thinking_turns", value: -1 } }] },
    },
    message: /^context_management\.edits\[0\]\.keep must be "all" or \{"type": "thinking_turns", "value": n\}/,
  },
  {
    name: "content a number",
    body: { ...good, messages: [user(7)] },
    message: /^messages\[0\]\.content must be a string or an array of content blocks, got number/,
  },
  {
    name: "an image block",
    body: {
      ...good,
      messages: [user([{ type: "image", source: { type: "base64", media_type: "image/png", data: "" } }])],
    },
    message: /^messages\[0\]\.content\[0\]\.type "image" is not supported in user messages .*text and tool_result/,
  },
  {
    name: "a text block without its text",
    body: { ...good, messages: [user([{ type: "text" }])] },
    message: /^messages\[0\]\.content\[0\]\.text must be a string, got undefined/,
  },
  {
    name: "a tool_use block in a user message",
    body: { ...good, messages: [user([{ type: "tool_use", id: "t", name: "pick_1", input: {} }])] },
    message: /^messages\[0\]\.content\[0\]\.type "tool_use" is not supported in user messages/,
  },
  {
    name: "a tool_result block in an assistant message",
    body: {
      ...good,
      messages: [user("hi"), { role: "assistant", content: [{ type: "tool_result", tool_use_id: "t" }] }, user("go")],
    },
    message: /^messages\[1\]\.content\[0\]\.type "tool_result" is not supported in assistant messages/,
  },
  {
    name: "a redacted_thinking block",
    body: {
      ...good,
      messages: [user("hi"), { role: "assistant", content: [{ type: "redacted_thinking", data: "x" }] }, user("go")],
    },
    message: /^messages\[1\]\.content\[0\]\.type "redacted_thinking" is not supported in assistant messages/,
  },
  {
    name: "a tool_result answering no tool_use",
    body: {
      ...good,
      tools,
      messages: [user("hi"), called, user([{ type: "tool_result", tool_use_id: "toolu_9", content: "ok" }])],
    },
    message: /^messages\[2\]\.content\[0\]\.tool_use_id "toolu_9" does not match a tool_use block in messages\[1\]/,
  },
  {
    name: "a tool_result whose content holds an image",
    body: {
      ...good,
      tools,
      messages: [
        user("hi"),
        called,
        user([{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "image" }] }]),
      ],
    },
    message: /^messages\[2\]\.content\[0\]\.content\[0\] must be \{"type": "text", "text": "…"\}/,
  },
  {
    name: "a tool_use whose input is a string",
    body: {
      ...good,
      messages: [
        user("hi"),
        { role: "assistant", content: [{ type: "tool_use", id: "t", name: "pick_1", input: '{"n":1}' }] },
        user("ok"),
      ],
    },
    message: /^messages\[1\]\.content\[0\]\.input must be an object/,
  },
  {
    name: "a tool_use without an id",
    body: {
      ...good,
      messages: [
        user("hi"),
        { role: "assistant", content: [{ type: "tool_use", name: "pick_1", input: {} }] },
        user("ok"),
      ],
    },
    message: /^messages\[1\]\.content\[0\]\.id must be a non-empty string/,
  },
  {
    name: "ending with an assistant message (a prefill)",
    body: { ...good, messages: [user("hi"), { role: "assistant", content: "Sure," }] },
    message: /^messages\[1\] is an assistant message: .*does not continue a prefilled assistant message/,
  },
  {
    name: "system a number",
    body: { ...good, system: 5 },
    message: /^system must be a string or an array of text parts/,
  },
  {
    name: "a tool without input_schema",
    body: { ...good, tools: [{ name: "x" }] },
    message: /^tools\[0\]\.input_schema must be a JSON schema object with "type": "object", got undefined/,
  },
  {
    name: "an input_schema of type string",
    body: { ...good, tools: [{ name: "x", input_schema: { type: "string" } }] },
    message: /^tools\[0\]\.input_schema must be a JSON schema object with "type": "object"/,
  },
  {
    name: "a server tool",
    body: { ...good, tools: [{ type: "web_search_20250305", name: "web_search" }] },
    message: /^tools\[0\]\.type "web_search_20250305" is a tool Anthropic runs on its servers/,
  },
  {
    name: "two tools of one name",
    body: { ...good, tools: [tools[0], tools[0]] },
    message: /^tools\[1\]: duplicate tool name "pick_1"/,
  },
  {
    name: "a tool name with a lone surrogate",
    body: { ...good, tools: [{ name: "a\ud800", input_schema: { type: "object" } }] },
    message: /^tools\[0\]\.name holds a lone surrogate/,
  },
  {
    name: "a schema keyword the grammar cannot enforce",
    body: {
      ...good,
      tools: [{ name: "x", input_schema: { type: "object", properties: { a: { type: "nonsense" } } } }],
    },
    message: /tools\[0\]\.input_schema/,
  },
  {
    name: 'OpenAI\'s tool_choice "required"',
    body: { ...good, tools, tool_choice: "required" },
    message:
      /^tool_choice must be \{"type": "auto"\}, \{"type": "any"\}, \{"type": "tool", "name"\} or \{"type": "none"\}, got "required"/,
  },
  {
    name: "tool_choice naming an undeclared tool",
    body: { ...good, tools, tool_choice: { type: "tool", name: "nope" } },
    message: /^tool_choice\.name "nope" is not among the declared tools \(pick_1, ping_1\)/,
  },
  {
    name: "tool_choice any without tools",
    body: { ...good, tool_choice: { type: "any" } },
    message: /^tool_choice \{"type": "any"\} needs tools/,
  },
  {
    name: "disable_parallel_tool_use not a boolean",
    body: { ...good, tools, tool_choice: { type: "auto", disable_parallel_tool_use: "yes" } },
    message: /^tool_choice\.disable_parallel_tool_use must be true or false, got string/,
  },
  {
    name: "max_tokens below the shortest call tool_choice any needs",
    body: { ...good, tools, tool_choice: { type: "any" }, max_tokens: 1 },
    message: /^max_tokens is 1, but the shortest call tool_choice allows takes at least \d+ tokens/,
  },
  {
    name: "stop_sequences a string",
    body: { ...good, stop_sequences: "END" },
    message: /^stop_sequences must be an array/,
  },
  {
    name: "an empty stop sequence",
    body: { ...good, stop_sequences: [""] },
    message: /^stop_sequences must be an array of at most 16 non-empty strings/,
  },
  {
    name: "temperature above 1",
    body: { ...good, temperature: 1.5 },
    message: /^temperature must be a number from 0 to 1, got 1\.5/,
  },
  { name: "top_p below 0", body: { ...good, top_p: -0.1 }, message: /^top_p must be a number from 0 to 1/ },
  { name: "top_k 0", body: { ...good, top_k: 0 }, message: /^top_k must be an integer from 1/ },
  {
    name: "thinking between_tools",
    body: { ...good, thinking: { type: "between_tools" } },
    message:
      /^thinking must be \{"type": "enabled", "budget_tokens"\}, \{"type": "adaptive"\} or \{"type": "disabled"\}, got type "between_tools"/,
  },
  {
    name: "an output format of an unknown type (output_config.format)",
    body: { ...good, output_config: { format: { type: "xml" } } },
    message: /^output_config\.format must be \{"type": "json_schema", "schema"\}, got type "xml"/,
  },
  {
    name: "thinking without budget_tokens",
    body: { ...good, thinking: { type: "enabled" } },
    message: /^thinking\.budget_tokens must be an integer from 1/,
  },
  {
    name: "thinking with display hidden",
    body: { ...good, thinking: { type: "enabled", budget_tokens: 1024, display: "hidden" } },
    message: /^thinking\.display must be "summarized", "omitted" or "updates", got "hidden"/,
  },
  {
    name: "stream not a boolean",
    body: { ...good, stream: "yes" },
    message: /^stream must be true or false, got string/,
  },
  {
    name: "an unsupported field (mcp_servers)",
    body: { ...good, mcp_servers: [] },
    message: /^mcp_servers is not supported by this server; it reads model, messages, max_tokens/,
  },
  {
    name: "OpenAI's logit_bias",
    body: { ...good, logit_bias: { 1: 5 } },
    message: /^logit_bias is not supported by this server/,
  },
  {
    name: "a prompt longer than the context",
    body: { ...good, messages: [user("hello ".repeat(100))] },
    message: /^the prompt has (at least )?\d+ tokens but the context holds 64/,
    to: () => tiny,
  },
  {
    name: "a body over the size limit",
    body: { ...good, messages: [user("x".repeat(BODY_LIMIT))] },
    status: 413,
    type: "request_too_large",
    cls: Anthropic.ContentTooLargeError as unknown as ErrorClass,
    message: /larger bodyLimit/,
  },
];

/** The body as Anthropic's: exactly {type: "error", error: {type, message}}. */
function checkShape(body: unknown, type: string, message: RegExp): void {
  expect(body).toEqual({ type: "error", error: { type, message: expect.stringMatching(message) } });
}

const health = async (s: ToolmaskServer) =>
  (await (await fetchWithin(NO_TOKENS, `${s.url}/health`)).json()) as { slots: { busy: number; queued: number } };

async function servedAfter(s: ToolmaskServer = server): Promise<void> {
  const r = await sdk(s).messages.create(good as never);
  expect(r.type).toBe("message");
  expect(r.stop_reason).toBe("max_tokens");
}

describe("bad requests to /v1/messages, through the SDK", () => {
  it.each(cases)("$name", async (c) => {
    const to = c.to?.() ?? server;
    const err = await sdk(to)
      .messages.create(c.body as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(c.cls ?? Anthropic.BadRequestError);
    const e = err as ApiError;
    expect(e.status).toBe(c.status ?? 400);
    checkShape(e.error, c.type ?? "invalid_request_error", c.message);
    await servedAfter(to);
  });

  it("a message of no content blocks, streamed and counted: 400 before anything is rendered", async () => {
    const body = { ...good, messages: [user([])] };
    for (const go of [
      () => sdk(server).messages.create({ ...body, stream: true } as never),
      () => sdk(server).messages.countTokens({ model: "m", messages: body.messages } as never),
    ]) {
      const err = await go().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      checkShape((err as ApiError).error, "invalid_request_error", /^messages\[0\]\.content is an empty array/);
      await servedAfter();
    }
  });

  it("a streamed request refused before its first event: a JSON 400 the SDK raises as BadRequestError", async () => {
    const err = await sdk(server)
      .messages.create({ ...good, temperature: 3, stream: true } as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    checkShape((err as ApiError).error, "invalid_request_error", /^temperature must be a number from 0 to 1/);
    await servedAfter();
  });

  it("a full queue: 429 rate_limit_error, which the SDK raises as RateLimitError", async () => {
    const s = await startServer({ model, port: 0, parallel: 1, maxQueue: 1, dialect: "qwen3-coder" });
    const long = {
      model: "m",
      max_tokens: 100_000,
      messages: [user("call a tool")],
      tools,
      tool_choice: { type: "any" },
    };
    const ctls = [new AbortController(), new AbortController()];
    const engine = watchEngineGenerations();
    try {
      const running = ctls.map((ctl) =>
        sdk(s, { decode: TEST_MODEL_CONTEXT })
          .messages.create({ ...long, stream: true } as never, { signal: ctl.signal })
          .then(async (st) => {
            for await (const _ of st as unknown as AsyncIterable<unknown>);
          })
          .catch(() => {}),
      );
      await until(async () => {
        const h = await health(s);
        return h.slots.busy === 1 && h.slots.queued === 1;
      });
      const err = await sdk(s)
        .messages.create({ ...long, max_tokens: 2 } as never)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.RateLimitError);
      checkShape((err as ApiError).error, "rate_limit_error", /.+/);
      for (const ctl of ctls) ctl.abort();
      await Promise.all(running);
      await until(async () => (await health(s)).slots.busy === 0);
      // The one that ran stopped in the engine when its client left (the queued one never started).
      expect(engine.all.map(notStoppedOnAbort)).toEqual([undefined]);
      await servedAfter(s);
    } finally {
      engine.restore();
      await s.close();
    }
  });
});

/** A raw HTTP request (what the client never sends). */
const send = (body: string, headers: Record<string, string>) =>
  httpRequest(server.url, { path: "/v1/messages", body, headers });

describe("bad requests the SDK cannot send", () => {
  const json = { "content-type": "application/json" };
  const raw: Array<{ name: string; body: string; headers: Record<string, string>; status: number; message: RegExp }> = [
    {
      name: "malformed JSON",
      body: '{"model": "m", "messages": [',
      headers: json,
      status: 400,
      message: /not valid JSON/,
    },
    { name: "an empty body", body: "", headers: json, status: 400, message: /the request body is empty/ },
    {
      name: "a JSON array",
      body: "[]",
      headers: json,
      status: 400,
      message: /^the request body must be a JSON object, got an array/,
    },
    // The SDK iterates these two client-side, so it cannot send them.
    {
      name: "messages as an object",
      body: JSON.stringify({ ...good, messages: user("hi") }),
      headers: json,
      status: 400,
      message: /^messages must be a non-empty array of \{role, content\}, got object/,
    },
    {
      name: "tools as an object",
      body: JSON.stringify({ ...good, tools: { name: "x" } }),
      headers: json,
      status: 400,
      message: /^tools must be an array of \{name, input_schema\}, got object/,
    },
    // Issue 30, defect 8: the body parser read 1e999 as Infinity and the prompt showed null; a long
    // integer was rounded. The SDK cannot send either (JSON.stringify writes null, and rounds).
    ...(
      [
        ["1e999", /the number 1e999 at messages\[1\]\.content\[0\]\.input\.n is beyond the range of a double/],
        [
          "12345678901234567891",
          /the number 12345678901234567891 at messages\[1\]\.content\[0\]\.input\.n is not exactly a double/,
        ],
      ] as const
    ).map(([n, message]) => ({
      name: `a tool_use input holding ${n}`,
      body: JSON.stringify({
        ...good,
        messages: [
          user("hi"),
          { ...called, content: [{ ...called.content[0], input: { n: "__N__" } }] },
          user([{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }]),
        ],
      }).replace('"__N__"', n),
      headers: json,
      status: 400,
      message,
    })),
    {
      name: "a text/plain body",
      body: JSON.stringify(good),
      headers: { "content-type": "text/plain" },
      status: 415,
      message: /Content-Type: application\/json/,
    },
  ];
  it.each(raw)("$name: $status in Anthropic's shape", async (c) => {
    const r = await send(c.body, c.headers);
    expect(r.status).toBe(c.status);
    checkShape(JSON.parse(r.body), "invalid_request_error", c.message);
    await servedAfter();
  });
});

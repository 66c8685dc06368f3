// Bad requests to the real server: each gets the right 4xx with an error in OpenAI's shape that
// names what to fix, and the server serves the next good request as if nothing happened.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { WANTS_TO_CALL, toolSet } from "../support/server-fixtures.js";
import { httpRequest, rawExchange, type HttpReply } from "../support/raw-http.js";

const BODY_LIMIT = 256 * 1024;
let model: LlamaModel;
let small: LlamaModel;
let server: ToolmaskServer;
let tiny: ToolmaskServer;
/** The template's own dialect (hermes): a tool's parameters are one JSON value. */
let plain: ToolmaskServer;
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

type Reply = HttpReply;

/** A raw HTTP request (fetch would refuse some of these, or fix them up). */
const send = (
  method: string,
  path: string,
  body: string | Buffer | undefined,
  headers: Record<string, string> = {},
  to = server,
) => httpRequest(to.url, { method, path, ...(body !== undefined ? { body } : {}), headers });

/** Bytes straight onto a socket, for what http.request will not send; resolves with the answer. */
async function raw(text: string): Promise<Reply> {
  const r = await rawExchange(server.url, (s) => {
    s.write(text);
  });
  const headEnd = r.text.indexOf("\r\n\r\n");
  return { status: r.status ?? 0, body: headEnd >= 0 ? r.text.slice(headEnd + 4) : "", headers: r.headers };
}

const json = "application/json";
const good = {
  model: "m",
  messages: [{ role: "user", content: "hi" }],
  tools: toolSet(1),
  max_tokens: 3,
  logit_bias: WANTS_TO_CALL,
};
const post = (body: unknown, headers: Record<string, string> = { "content-type": json }, to = server) =>
  send(
    "POST",
    "/v1/chat/completions",
    typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    headers,
    to,
  );
const postPlain = (body: unknown) => post(body, { "content-type": json }, plain);

/** A history whose assistant message made one call with `args` (a string, or an object some clients send). */
const historyWith = (args: unknown) => [
  { role: "user", content: "hi" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c", type: "function", function: { name: "ping_1", arguments: args } }],
  },
  { role: "tool", tool_call_id: "c", content: "pong" },
];

interface Case {
  name: string;
  status: number;
  param?: string | null;
  code?: string;
  message: RegExp;
  go: () => Promise<Reply>;
  /** The server the case goes to, which must serve the next request (default: the qwen3-coder one). */
  to?: () => ToolmaskServer;
}

/** A tool whose parameters are `parameters`. */
const toolOf = (parameters: unknown) => [{ type: "function", function: { name: "f", parameters } }];
/** A parameter that is its own $ref: every value would hold another, without end. */
const SELF_REF = { type: "object", properties: { x: { $ref: "#/properties/x" } }, required: ["x"] };
const SELF_REF_MESSAGE =
  /^tools\[0\]\.function\.parameters\.properties\.x\.\$ref: "\$ref": "#\/properties\/x" matches no value: .*give the recursion a way out/;
/** `{"a": {"a": … {}}}`, `depth` objects deep. */
const nested = (depth: number): unknown => {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

const cases: Case[] = [
  {
    name: "malformed JSON",
    status: 400,
    code: "invalid_json",
    message: /not valid JSON/,
    go: () => post('{"model": "m", "messages": ['),
  },
  { name: "an empty body", status: 400, code: "invalid_json", message: /empty/, go: () => post("") },
  {
    name: "a JSON array as the body",
    status: 400,
    param: "body",
    message: /must be a JSON object, got an array/,
    go: () => post([good]),
  },
  {
    name: "a body in Latin-1, not UTF-8",
    status: 400,
    code: "invalid_json",
    message: /not valid UTF-8 \(its first bad byte is at offset 54\)/,
    go: () =>
      post(
        Buffer.concat([
          Buffer.from('{"model":"m","messages":[{"role":"user","content":"caf'),
          Buffer.from([0xe9]),
          Buffer.from('"}]}'),
        ]),
      ),
  },
  {
    name: "a UTF-8 surrogate (ED A0 80) in the body",
    status: 400,
    code: "invalid_json",
    message: /not valid UTF-8 \(its first bad byte is at offset 51\)/,
    go: () =>
      post(
        Buffer.concat([
          Buffer.from('{"model":"m","messages":[{"role":"user","content":"'),
          Buffer.from([0xed, 0xa0, 0x80]),
          Buffer.from('"}]}'),
        ]),
      ),
  },
  {
    name: "__proto__ in the body",
    status: 400,
    code: "invalid_json",
    message: /not valid JSON/,
    go: () => post('{"model":"m","__proto__":{"x":1},"messages":[{"role":"user","content":"hi"}]}'),
  },
  {
    name: "messages missing",
    status: 400,
    param: "messages",
    code: "missing_required_parameter",
    message: /messages must be a non-empty array/,
    go: () => post({ model: "m" }),
  },
  {
    name: "messages not an array",
    status: 400,
    param: "messages",
    message: /got string/,
    go: () => post({ ...good, messages: "hi" }),
  },
  {
    name: "an unknown role",
    status: 400,
    param: "messages[0].role",
    message: /must be one of system, developer, user, assistant, tool/,
    go: () => post({ ...good, messages: [{ role: "wizard", content: "hi" }] }),
  },
  {
    name: "content of the wrong type",
    status: 400,
    param: "messages[0].content",
    message: /string or an array of text parts/,
    go: () => post({ ...good, messages: [{ role: "user", content: 42 }] }),
  },
  // OpenAI's API reference gives every message's content array minItems 1; a message of no parts
  // would reach the template as an empty turn (it was served).
  ...(
    [
      ["a user message", [{ role: "user", content: [] }], 0],
      [
        "a system message",
        [
          { role: "system", content: [] },
          { role: "user", content: "hi" },
        ],
        0,
      ],
      [
        "an assistant message with calls",
        [...historyWith("{}").slice(0, 1), { ...historyWith("{}")[1]!, content: [] }, historyWith("{}")[2]!],
        1,
      ],
      ["a tool message", [...historyWith("{}").slice(0, 2), { role: "tool", tool_call_id: "c", content: [] }], 2],
    ] as const
  ).map(
    ([what, messages, i]): Case => ({
      name: `${what} of no content parts`,
      status: 400,
      param: `messages[${i}].content`,
      message: new RegExp(`^messages\\[${i}\\]\\.content is an empty array: a message needs at least one content part`),
      go: () => post({ ...good, messages }),
    }),
  ),
  {
    // OpenAI answers "Duplicate value for 'tool_call_id'"; /v1/messages and /v1/responses refuse too.
    name: "two tool messages for one tool call",
    status: 400,
    param: "messages[3].tool_call_id",
    message:
      /^messages\[3\]\.tool_call_id "c" is answered twice: messages\[2\] answers it too; send one tool message per tool call/,
    go: () =>
      post({ ...good, messages: [...historyWith("{}"), { role: "tool", tool_call_id: "c", content: "again" }] }),
  },
  {
    name: "an image part",
    status: 400,
    param: "messages[0].content[0]",
    message: /text only/,
    go: () =>
      post({ ...good, messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] }),
  },
  {
    name: "tool-call arguments that are not JSON",
    status: 400,
    param: "messages[1].tool_calls[0].function.arguments",
    message: /JSON object string/,
    go: () =>
      post({
        ...good,
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c", type: "function", function: { name: "ping_1", arguments: "{oops" } }],
          },
        ],
      }),
  },
  // Issue 30, defect 8: history arguments the prompt could not show as sent (JSON.parse made 1e999
  // Infinity, rendered null; rounded a long integer; kept a repeated key's last value).
  ...(
    [
      ["a number no double holds", '{"n": 1e999}', /the number 1e999 at \$\.n is beyond the range of a double/],
      [
        "an integer a double rounds",
        '{"n": 12345678901234567891}',
        /the number 12345678901234567891 at \$\.n is not exactly a double/,
      ],
      ["a repeated key", '{"n": 1, "n": 2}', /the key "n" is given twice in the object at \$/],
    ] as const
  ).map(
    ([what, args, message]): Case => ({
      name: `tool-call arguments holding ${what}`,
      status: 400,
      param: "messages[1].tool_calls[0].function.arguments",
      message,
      go: () => post({ ...good, messages: historyWith(args) }),
    }),
  ),
  {
    name: "tool-call arguments as an object holding a number no double holds (the body read before any route)",
    status: 400,
    param: "messages[1].tool_calls[0].function.arguments.n",
    message:
      /the number 1e999 at messages\[1\]\.tool_calls\[0\]\.function\.arguments\.n is beyond the range of a double/,
    go: () => post(JSON.stringify({ ...good, messages: historyWith({ n: "__N__" }) }).replace('"__N__"', "1e999")),
  },
  {
    name: "tools not an array",
    status: 400,
    param: "tools",
    message: /tools must be an array/,
    go: () => post({ ...good, tools: { type: "function" } }),
  },
  {
    name: "a tool without a name",
    status: 400,
    param: "tools[0]",
    message: /"function": \{"name"/,
    go: () => post({ ...good, tools: [{ type: "function", function: { parameters: {} } }] }),
  },
  {
    name: "a tool whose parameters are not an object schema",
    status: 400,
    param: "tools",
    code: "invalid_tools",
    message: /must describe an object/,
    go: () => post({ ...good, tools: [{ type: "function", function: { name: "f", parameters: { type: "string" } } }] }),
  },
  {
    name: "tool_choice naming an undeclared tool",
    status: 400,
    param: "tool_choice",
    message: /"nope", which is not among the declared tools \(pick_1, ping_1\)/,
    go: () => post({ ...good, tool_choice: { type: "function", function: { name: "nope" } } }),
  },
  {
    name: "tool_choice an unknown word",
    status: 400,
    param: "tool_choice",
    message: /must be "auto", "none", "required"/,
    go: () => post({ ...good, tool_choice: "always" }),
  },
  {
    name: "negative max_tokens",
    status: 400,
    param: "max_tokens",
    message: /max_tokens must be an integer from 1 to 2147483647, got -5/,
    go: () => post({ ...good, max_tokens: -5 }),
  },
  {
    name: "fractional max_completion_tokens",
    status: 400,
    param: "max_completion_tokens",
    message: /an integer from 1 to 2147483647, got 1\.5/,
    go: () => post({ ...good, max_completion_tokens: 1.5 }),
  },
  {
    name: "temperature of the wrong type",
    status: 400,
    param: "temperature",
    message: /number from 0 to 2, got "hot"/,
    go: () => post({ ...good, temperature: "hot" }),
  },
  {
    name: "temperature out of range",
    status: 400,
    param: "temperature",
    message: /from 0 to 2/,
    go: () => post({ ...good, temperature: 7 }),
  },
  {
    name: "top_p out of range",
    status: 400,
    param: "top_p",
    message: /from 0 to 1/,
    go: () => post({ ...good, top_p: 1.5 }),
  },
  {
    name: "stop of the wrong type",
    status: 400,
    param: "stop",
    message: /non-empty string or an array/,
    go: () => post({ ...good, stop: 5 }),
  },
  {
    name: "a logit_bias token the model lacks",
    status: 400,
    param: "logit_bias",
    message: /"999999" is not a token id of this model/,
    go: () => post({ ...good, logit_bias: { 999999: 5 } }),
  },
  {
    name: "a logit_bias beyond ±100",
    status: 400,
    param: "logit_bias",
    message: /from -100 to 100/,
    go: () => post({ ...good, logit_bias: { 5: 500 } }),
  },
  {
    name: "n = 2",
    status: 400,
    param: "n",
    code: "unsupported_value",
    message: /n must be 1/,
    go: () => post({ ...good, n: 2 }),
  },
  {
    name: "stream not a boolean",
    status: 400,
    param: "stream",
    code: "invalid_type",
    message: /true or false/,
    go: () => post({ ...good, stream: "yes" }),
  },
  {
    name: "stream_options without stream",
    status: 400,
    param: "stream_options",
    message: /only allowed when stream is true/,
    go: () => post({ ...good, stream_options: { include_usage: true } }),
  },
  {
    name: "a response_format of an unknown type",
    status: 400,
    param: "response_format.type",
    code: "invalid_response_format",
    message:
      /^response_format\.type must be one of \{"type": "json_schema", "json_schema": \{"name", "schema"\}\}, \{"type": "json_object"\} or \{"type": "text"\}, got "yaml"/,
    go: () => post({ ...good, response_format: { type: "yaml" } }),
  },
  {
    name: "an oversized body",
    status: 413,
    code: "request_too_large",
    message: /bodyLimit/,
    go: () => post({ ...good, messages: [{ role: "user", content: "x".repeat(BODY_LIMIT + 10) }] }),
  },
  {
    name: "the wrong content type",
    status: 415,
    code: "unsupported_media_type",
    message: /Content-Type: application\/json/,
    go: () => post(JSON.stringify(good), { "content-type": "text/plain" }),
  },
  {
    name: "no content type",
    status: 415,
    code: "unsupported_media_type",
    message: /Content-Type/,
    go: () => post(JSON.stringify(good), {}),
  },
  {
    name: "an unknown route",
    status: 404,
    code: "unknown_url",
    message: /no route POST \/v1\/completions/,
    go: () => send("POST", "/v1/completions", "{}", { "content-type": json }),
  },
  {
    name: "GET on the chat route",
    status: 405,
    code: "method_not_allowed",
    message: /use POST/,
    go: () => send("GET", "/v1/chat/completions", undefined),
  },
  {
    name: "OPTIONS on the chat route",
    status: 405,
    code: "method_not_allowed",
    message: /OPTIONS is not allowed on \/v1\/chat\/completions; use POST/,
    go: () => send("OPTIONS", "/v1/chat/completions", undefined),
  },
  {
    name: "TRACE on the chat route",
    status: 405,
    code: "method_not_allowed",
    message: /use POST/,
    go: () => send("TRACE", "/v1/chat/completions", undefined),
  },
  {
    name: "POST on /v1/models",
    status: 405,
    code: "method_not_allowed",
    message: /use GET or HEAD/,
    go: () => send("POST", "/v1/models", "{}", { "content-type": json }),
  },
  {
    name: "PROPFIND on a model",
    status: 405,
    code: "method_not_allowed",
    message: /use GET or HEAD/,
    go: () => send("PROPFIND", "/v1/models/m", undefined),
  },
  {
    name: "a request line that is not HTTP",
    status: 400,
    code: "invalid_http",
    message: /not valid HTTP\/1\.1/,
    go: () => raw("GARBAGE\r\n\r\n"),
  },
  {
    name: "a header without a colon",
    status: 400,
    code: "invalid_http",
    message: /not valid HTTP\/1\.1/,
    go: () => raw("GET /health HTTP/1.1\r\nHost: localhost\r\nno colon here\r\n\r\n"),
  },
  {
    name: "headers over 16 KiB",
    status: 431,
    code: "request_header_fields_too_large",
    message: /larger than the \d+ bytes this server accepts/,
    go: () => raw(`GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`),
  },
  {
    name: "max_tokens of 2^31",
    status: 400,
    param: "max_tokens",
    message: /max_tokens must be an integer from 1 to 2147483647, got 2147483648/,
    go: () => post({ ...good, max_tokens: 2 ** 31 }),
  },
  {
    name: "max_completion_tokens of 1e300",
    status: 400,
    param: "max_completion_tokens",
    message: /from 1 to 2147483647/,
    go: () => post({ ...good, max_completion_tokens: 1e300 }),
  },
  {
    name: "max_tokens with 100,000 digits",
    status: 400,
    param: "max_tokens",
    // Refused as the body is read: JSON.parse makes it Infinity (src/server/json-body.ts).
    message: /^the number 9{20}…9{8} \(100000 characters\) at max_tokens is beyond the range of a double/,
    go: () => post(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":${"9".repeat(100_000)}}`),
  },
  {
    name: "top_k of 2^31",
    status: 400,
    param: "top_k",
    message: /top_k must be an integer from 1 to 2147483647/,
    go: () => post({ ...good, top_k: 2 ** 31 }),
  },
  {
    name: "a seed beyond 2^53",
    status: 400,
    param: "seed",
    message: /seed must be an integer from -9007199254740991 to 9007199254740991/,
    go: () => post({ ...good, seed: 2 ** 60 }),
  },
  {
    name: "a temperature of 100,000 characters",
    status: 400,
    param: "temperature",
    message: /got "h{64}…" \(100000 characters\)$/,
    go: () => post({ ...good, temperature: "h".repeat(100_000) }),
  },
  ...(["required", "auto"] as const).map(
    (choice): Case => ({
      name: `a parameter that is its own $ref, tool_choice ${choice}`,
      status: 400,
      param: "tools",
      code: "invalid_tool_schema",
      message: SELF_REF_MESSAGE,
      go: () => postPlain({ ...good, tools: toolOf(SELF_REF), tool_choice: choice, max_tokens: 64 }),
      to: () => plain,
    }),
  ),
  {
    name: "a parameter that is its own $ref, streamed: refused before the first event",
    status: 400,
    param: "tools",
    code: "invalid_tool_schema",
    message: SELF_REF_MESSAGE,
    go: () => postPlain({ ...good, tools: toolOf(SELF_REF), tool_choice: "required", max_tokens: 64, stream: true }),
    to: () => plain,
  },
  {
    name: "two $defs that name each other",
    status: 400,
    param: "tools",
    code: "invalid_tool_schema",
    message: /properties\.x\.\$ref: "\$ref": "#\/\$defs\/a" matches no value/,
    go: () =>
      postPlain({
        ...good,
        tools: toolOf({
          type: "object",
          $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } },
          properties: { x: { $ref: "#/$defs/a" } },
          required: ["x"],
        }),
        tool_choice: "required",
      }),
    to: () => plain,
  },
  {
    name: "an empty enum in an XML dialect",
    status: 400,
    param: "tools",
    code: "invalid_tool_schema",
    message: /^tools\[0\]\.function\.parameters\.properties\.x\.enum: "enum" must be a non-empty array/,
    go: () =>
      post({
        ...good,
        tools: toolOf({ type: "object", properties: { x: { enum: [] } }, required: ["x"] }),
        tool_choice: "required",
      }),
  },
  {
    name: "a required parameter whose schema is false, in an XML dialect",
    status: 400,
    param: "tools",
    code: "invalid_tool_schema",
    message: /"x" is required but its schema matches no value/,
    go: () => post({ ...good, tools: toolOf({ type: "object", properties: { x: false }, required: ["x"] }) }),
  },
  {
    name: "not: {} in an XML dialect (refused as in JSON dialects, not taken as raw text)",
    status: 400,
    param: "tools",
    code: "invalid_tool_schema",
    message: /properties\.x\.not: "not" is not supported/,
    go: () => post({ ...good, tools: toolOf({ type: "object", properties: { x: { not: {} } }, required: ["x"] }) }),
  },
  {
    name: "a tool's schema nested 600 deep",
    status: 400,
    param: "tools[0].function.parameters.properties.x",
    code: "nesting_too_deep",
    message: /^tools\[0\]\.function\.parameters\.properties\.x… nests arrays and objects more than 512 levels deep/,
    go: () => post({ ...good, tools: toolOf({ type: "object", properties: { x: nested(600) } }) }),
  },
  {
    name: "tool-call arguments nested 600 deep",
    status: 400,
    param: "messages[1].tool_calls[0].function.arguments.a.a.a.a.a.a",
    code: "nesting_too_deep",
    message: /of messages\[1\]\.tool_calls\[0\]\.function\.arguments\); this server reads JSON at most 512 levels deep/,
    go: () =>
      post({
        ...good,
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "c", type: "function", function: { name: "pick_1", arguments: JSON.stringify(nested(600)) } },
            ],
          },
          { role: "tool", tool_call_id: "c", content: "ok" },
        ],
      }),
  },
  {
    name: "a field the server ignores, nested 600 deep",
    status: 400,
    param: "metadata.a.a.a.a.a",
    code: "nesting_too_deep",
    message: /^metadata\.a\.a\.a\.a\.a… nests arrays and objects more than 512 levels deep/,
    go: () => post({ ...good, metadata: nested(600) }),
  },
  {
    name: "a prompt longer than the context",
    status: 400,
    param: "messages",
    code: "context_length_exceeded",
    message: /context holds 64; load the model with a larger contextSize/,
    go: () =>
      send(
        "POST",
        "/v1/chat/completions",
        JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello ".repeat(100) }] }),
        { "content-type": json },
        tiny,
      ),
  },
];

describe("bad input", () => {
  it(`${cases.length} kinds of bad request each get the right 4xx in OpenAI's shape, and the next request is served`, async () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    const failures: string[] = [];
    for (const c of cases) {
      const r = await c.go();
      let error: Record<string, unknown> = {};
      try {
        const e = (JSON.parse(r.body) as { error: unknown }).error;
        if (e && typeof e === "object") error = e as Record<string, unknown>;
      } catch {
        /* reported below */
      }
      const wrong = [
        r.status !== c.status && `status ${r.status}, wanted ${c.status}`,
        !(r.headers["content-type"] ?? "").includes("application/json") && `content-type ${r.headers["content-type"]}`,
        (typeof error?.message !== "string" || !c.message.test(error.message)) &&
          `message ${JSON.stringify(error?.message)}`,
        error?.type !== "invalid_request_error" && `type ${String(error?.type)}`,
        !("param" in (error ?? {})) || !("code" in (error ?? {})) ? "param or code missing" : false,
        c.param !== undefined && error?.param !== c.param && `param ${String(error?.param)}, wanted ${c.param}`,
        c.code !== undefined && error?.code !== c.code && `code ${String(error?.code)}, wanted ${c.code}`,
      ].filter(Boolean);
      if (wrong.length) failures.push(`${c.name}: ${wrong.join("; ")} (body ${r.body.slice(0, 200)})`);
      // The server is still fine: the next request is served.
      const next = await post(good, { "content-type": json }, c.to?.() ?? server);
      if (next.status !== 200)
        failures.push(`after ${c.name}: the next request got ${next.status} ${next.body.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    const h = await send("GET", "/health", undefined);
    expect(JSON.parse(h.body)).toMatchObject({ status: "ok", slots: { busy: 0, queued: 0 } });
  });

  it("unusual but valid requests are all served", async () => {
    const variants: Array<[string, Record<string, unknown>]> = [
      ["empty tools with tool_choice auto", { tools: [], tool_choice: "auto" }],
      ["tool_choice none", { tool_choice: "none" }],
      // A call required: max_tokens from the shortest call on (below it: 400 max_tokens_too_small).
      ["a named tool_choice", { tool_choice: { type: "function", function: { name: "ping_1" } }, max_tokens: 40 }],
      ["parallel_tool_calls false", { parallel_tool_calls: false, tool_choice: "required", max_tokens: 40 }],
      [
        "developer role and text parts",
        {
          messages: [
            { role: "developer", content: "be brief" },
            {
              role: "user",
              content: [
                { type: "text", text: "hi " },
                { type: "text", text: "there" },
              ],
            },
          ],
        },
      ],
      ["a negative seed", { seed: -7 }],
      ["a seed beyond 32 bits", { seed: 2 ** 40 + 3 }],
      ["max_completion_tokens", { max_tokens: undefined, max_completion_tokens: 2 }],
      ["llama.cpp samplers", { top_k: 20, min_p: 0.05, repeat_penalty: 1.1 }],
      ["thinking on", { chat_template_kwargs: { enable_thinking: true } }],
      [
        "defaults spelled out",
        { n: 1, logprobs: false, presence_penalty: 0, frequency_penalty: 0, response_format: { type: "text" } },
      ],
      [
        "nulls for optional fields",
        { temperature: null, top_p: null, stop: null, seed: null, tool_choice: null, stream: null },
      ],
      ["unknown fields", { user: "u1", metadata: { a: "b" }, store: false }],
      ["a single stop string", { stop: "x" }],
      // An id answered once in each of two turns: two calls (some servers number calls per answer).
      [
        "one call id in two turns",
        { messages: [...historyWith("{}"), ...historyWith("{}").slice(1), { role: "user", content: "and?" }] },
      ],
    ];
    for (const [name, extra] of variants) {
      const r = await post({ ...good, ...extra });
      expect(`${name}: ${r.status}`, r.body.slice(0, 300)).toBe(`${name}: 200`);
      expect(JSON.parse(r.body)).toMatchObject({ object: "chat.completion" });
    }
  });

  it("the 405 says which method to use in Allow, and a good request is answered 200", async () => {
    const r = await send("DELETE", "/v1/chat/completions", undefined);
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe("POST");
    for (const [method, p, allow] of [
      ["OPTIONS", "/v1/chat/completions", "POST"],
      ["TRACE", "/health", "GET, HEAD"],
      ["PUT", "/v1/models/x", "GET, HEAD"],
      ["LOCK", "/v1/models", "GET, HEAD"],
    ] as const) {
      const o = await send(method, p, undefined);
      expect(`${method} ${p}: ${o.status} ${o.headers.allow}`).toBe(`${method} ${p}: 405 ${allow}`);
    }
    // An unknown path stays a 404 whatever the method.
    expect((await send("OPTIONS", "/v1/nothing", undefined)).status).toBe(404);
    const ok = await post(good);
    expect(ok.status).toBe(200);
    // tool_choice auto and a model that wants to stop: it stops at once.
    expect(JSON.parse(ok.body)).toMatchObject({
      object: "chat.completion",
      choices: [{ finish_reason: "stop", message: { role: "assistant" } }],
    });
  });
});

// Bad requests to POST /v1/responses on the real server: each gets its 4xx in OpenAI's error shape,
// whose param and message name the field as the Responses API spells it; the openai client raises
// the error class of that status; and the server serves the next good request as if nothing
// happened.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { client, toolSet } from "../support/server-fixtures.js";
import { httpRequest } from "../support/raw-http.js";
import { testModelPath } from "../support/test-model.js";
import { fetchWithin, NO_TOKENS, type Work } from "../support/timeouts.js";

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

const tools = toolSet(1).map((t) => ({ type: "function", name: t.function.name, parameters: t.function.parameters }));
const good = { model: "m", max_output_tokens: 2, input: "hi" };
/** The requests served here decode at most 2 tokens; those refused, none. */
const REQUEST: Work = { decode: 2 };
const call = { type: "function_call", call_id: "call_1", name: "pick_1", arguments: '{"n": 1001}' };

type ApiError = InstanceType<typeof OpenAI.APIError>;
interface Case {
  name: string;
  body: Record<string, unknown>;
  status?: number;
  param: string | null;
  code?: string;
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
    name: "a parameter that is its own $ref, tool_choice required",
    body: {
      ...good,
      max_output_tokens: 64,
      tools: [{ type: "function", name: "f", parameters: SELF_REF }],
      tool_choice: "required",
    },
    param: "tools",
    code: "invalid_tool_schema",
    message: /^tools\[0\]\.parameters\.properties\.x\.\$ref: "\$ref": "#\/properties\/x" matches no value/,
    to: () => plain,
  },
  {
    name: "metadata with a value that is not a string",
    body: { ...good, metadata: { run: 7 } },
    param: "metadata.run",
    code: "invalid_type",
    message: /^metadata\.run must be a string of at most 512 characters, got number/,
  },
  {
    name: "metadata of 17 keys",
    body: { ...good, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) },
    param: "metadata",
    message: /^metadata has 17 keys; send at most 16 key-value pairs/,
  },
  {
    name: "metadata nested 600 deep",
    body: { ...good, metadata: nested(600) },
    param: "metadata.a.a.a.a.a",
    code: "nesting_too_deep",
    message: /^metadata\.a\.a\.a\.a\.a… nests arrays and objects more than 512 levels deep/,
  },
  {
    name: "function_call arguments nested 600 deep",
    body: {
      ...good,
      input: [
        { role: "user", content: "hi" },
        { ...call, arguments: JSON.stringify(nested(600)) },
        { type: "function_call_output", call_id: "call_1", output: "ok" },
      ],
    },
    param: "input[1].arguments.a.a.a.a.a.a",
    code: "nesting_too_deep",
    message: /of input\[1\]\.arguments\); this server reads JSON at most 512 levels deep/,
  },
  {
    name: "no input",
    body: { model: "m" },
    param: "input",
    code: "missing_required_parameter",
    message: /^input must be a string or a non-empty array of items, got undefined/,
  },
  {
    name: "an empty input list",
    body: { ...good, input: [] },
    param: "input",
    message: /^input must be .*got an empty array/,
  },
  {
    name: "input a number",
    body: { ...good, input: 7 },
    param: "input",
    message: /^input must be a string or a non-empty array of items, got number/,
  },
  {
    name: "an item that is a string",
    body: { ...good, input: ["hi"] },
    param: "input[0]",
    message: /^input\[0\] must be an item object/,
  },
  {
    name: "a message with an unknown role",
    body: { ...good, input: [{ role: "tool", content: "x" }] },
    param: "input[0].role",
    message: /^input\[0\]\.role must be one of user, system, developer, assistant, got "tool"/,
  },
  {
    name: "an image part",
    body: { ...good, input: [{ role: "user", content: [{ type: "input_image", image_url: "data:," }] }] },
    param: "input[0].content[0].type",
    message:
      /^input\[0\]\.content\[0\] must be a \{"type": "input_text"\} part, got type "input_image"; this server reads text only/,
  },
  {
    name: "an input_text part without text",
    body: { ...good, input: [{ role: "user", content: [{ type: "input_text" }] }] },
    param: "input[0].content[0].text",
    message: /^input\[0\]\.content\[0\]\.text must be a string, got undefined/,
  },
  {
    name: "an item_reference",
    body: { ...good, input: [{ type: "item_reference", id: "msg_1" }] },
    param: "input[0].type",
    message: /^input\[0\]\.type "item_reference" is not supported by this server.*send them whole/,
  },
  {
    name: "a function_call without call_id",
    body: {
      ...good,
      input: [
        { role: "user", content: "hi" },
        { ...call, call_id: undefined },
      ],
    },
    param: "input[1].call_id",
    message: /^input\[1\]\.call_id must be the call's id/,
  },
  {
    name: "a function_call whose arguments are an object",
    body: {
      ...good,
      input: [
        { role: "user", content: "hi" },
        { ...call, arguments: { n: 1 } },
      ],
    },
    param: "input[1].arguments",
    message: /^input\[1\]\.arguments must be a JSON object string, got object/,
  },
  {
    name: "a function_call whose arguments are not JSON",
    body: {
      ...good,
      input: [
        { role: "user", content: "hi" },
        { ...call, arguments: "{n:" },
      ],
    },
    param: "input[1].arguments",
    message: /^input\[1\]\.arguments must be a JSON object string, got "\{n:"/,
  },
  // Issue 30, defect 8: arguments the prompt could not show as sent.
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
      name: `a function_call whose arguments hold ${what}`,
      body: {
        ...good,
        input: [
          { role: "user", content: "hi" },
          { ...call, arguments: args },
          { type: "function_call_output", call_id: "call_1", output: "ok" },
        ],
      },
      param: "input[1].arguments",
      message,
    }),
  ),
  // A message of no content parts would reach the template as an empty turn (it was served).
  ...(
    [
      ["a user message", [{ role: "user", content: [] }], 0],
      [
        "a developer message",
        [
          { role: "developer", content: [] },
          { role: "user", content: "hi" },
        ],
        0,
      ],
      [
        "an assistant message",
        [
          { role: "user", content: "hi" },
          { type: "message", role: "assistant", content: [] },
          { role: "user", content: "go on" },
        ],
        1,
      ],
    ] as const
  ).map(
    ([what, input, i]): Case => ({
      name: `${what} of no content parts`,
      body: { ...good, input },
      param: `input[${i}].content`,
      message: new RegExp(`^input\\[${i}\\]\\.content is an empty array: a message needs at least one content part`),
    }),
  ),
  {
    name: "an output answering no function_call",
    body: {
      ...good,
      input: [
        { role: "user", content: "hi" },
        { type: "function_call_output", call_id: "call_9", output: "ok" },
      ],
    },
    param: "input[1].call_id",
    message: /^input\[1\]\.call_id "call_9" does not match a function_call item before it/,
  },
  {
    name: "a call answered twice",
    body: {
      ...good,
      tools,
      input: [
        { role: "user", content: "hi" },
        call,
        { type: "function_call_output", call_id: "call_1", output: "a" },
        { type: "function_call_output", call_id: "call_1", output: "b" },
      ],
    },
    param: "input[3].call_id",
    message: /^input\[3\]\.call_id "call_1" is answered twice/,
  },
  {
    name: "a reasoning item without summary",
    body: {
      ...good,
      input: [
        { role: "user", content: "hi" },
        { type: "reasoning", id: "rs_1" },
      ],
    },
    param: "input[1].summary",
    code: "missing_required_parameter",
    message: /^input\[1\]\.summary must be an array of \{"type": "summary_text", "text"\} parts/,
  },
  {
    name: "instructions as a list",
    body: { ...good, instructions: [{ role: "system", content: "x" }] },
    param: "instructions",
    code: "invalid_type",
    message: /^instructions must be a string, got an array/,
  },
  {
    name: "a tool of a type no API has",
    body: { ...good, tools: [{ type: "web_browse" }] },
    param: "tools[0].type",
    message:
      /^tools\[0\]\.type "web_browse" is not supported: this server takes function .* and leaves out the hosted tools/,
  },
  {
    name: "a tool in the chat-completions shape",
    body: { ...good, tools: [{ type: "function", function: { name: "x", parameters: {} } }] },
    param: "tools[0]",
    message: /^tools\[0\] is in the chat-completions shape/,
  },
  {
    name: "a tool without a name",
    body: { ...good, tools: [{ type: "function", parameters: { type: "object" } }] },
    param: "tools[0].name",
    message: /^tools\[0\]\.name must be a non-empty string/,
  },
  {
    name: "two tools of one name",
    body: { ...good, tools: [tools[0], tools[0]] },
    param: "tools[1]",
    message: /^tools\[1\] is called "pick_1" by the model, as tools\[0\] is/,
  },
  {
    name: "a custom tool whose Lark grammar is recursive",
    body: {
      ...good,
      tools: [
        {
          type: "custom",
          name: "expr",
          format: { type: "grammar", syntax: "lark", definition: 'start: "(" start ")" | "x"' },
        },
      ],
    },
    param: "tools[0].format.definition",
    code: "unsupported_value",
    message: /^tools\[0\]\.format\.definition \(custom tool "expr"\): recursion: start -> start is recursive/,
  },
  {
    name: "a custom tool whose Lark grammar has %ignore",
    body: {
      ...good,
      tools: [
        {
          type: "custom",
          name: "w",
          format: { type: "grammar", syntax: "lark", definition: 'start: "a"\n%ignore " "' },
        },
      ],
    },
    param: "tools[0].format.definition",
    message: /\(custom tool "w"\): %ignore: %ignore is not supported/,
  },
  {
    name: "a custom tool whose Lark grammar nests counts past the repetition limit",
    body: {
      ...good,
      tools: [
        {
          type: "custom",
          name: "n",
          format: { type: "grammar", syntax: "lark", definition: 'start: ("a" ~ 1000) ~ 1000' },
        },
      ],
    },
    param: "tools[0].format.definition",
    message: /\(custom tool "n"\): nested quantifiers multiply to 1000000 repetitions/,
  },
  {
    name: "a custom tool whose Lark grammar doubles a rule 40 times over",
    body: {
      ...good,
      tools: [
        {
          type: "custom",
          name: "d",
          format: {
            type: "grammar",
            syntax: "lark",
            definition: `start: r0\n${Array.from({ length: 40 }, (_, i) => `r${i}: r${i + 1} r${i + 1}`).join("\n")}\nr40: "x"`,
          },
        },
      ],
    },
    param: "tools[0].format.definition",
    message: /\(custom tool "d"\): size: the grammar written out/,
  },
  {
    name: "a custom tool whose regex has a lookahead",
    body: {
      ...good,
      tools: [{ type: "custom", name: "r", format: { type: "grammar", syntax: "regex", definition: "(?=a)a" } }],
    },
    param: "tools[0].format.definition",
    message: /\(custom tool "r"\): the regex: .*is not supported/,
  },
  {
    name: "a custom tool of an unknown grammar syntax",
    body: {
      ...good,
      tools: [{ type: "custom", name: "g", format: { type: "grammar", syntax: "ebnf", definition: "x" } }],
    },
    param: "tools[0].format.syntax",
    message: /^tools\[0\]\.format\.syntax must be "lark" or "regex", got "ebnf"/,
  },
  {
    name: "a custom tool whose format is a string",
    body: { ...good, tools: [{ type: "custom", name: "g", format: "text" }] },
    param: "tools[0].format",
    code: "invalid_type",
    message: /^tools\[0\]\.format must be/,
  },
  {
    name: "a namespaced function clashing with a function's name",
    body: {
      ...good,
      tools: [
        { type: "function", name: "ns__f" },
        { type: "namespace", name: "ns", description: "", tools: [{ type: "function", name: "f" }] },
      ],
    },
    param: "tools[1].tools[0]",
    message: /^tools\[1\]\.tools\[0\] is called "ns__f" by the model, as tools\[0\] is/,
  },
  {
    name: "a namespace holding no tools",
    body: { ...good, tools: [{ type: "namespace", name: "ns", description: "", tools: [] }] },
    param: "tools[0].tools",
    message: /^tools\[0\]\.tools must be a non-empty array/,
  },
  {
    name: "a namespace holding a hosted tool",
    body: { ...good, tools: [{ type: "namespace", name: "ns", description: "", tools: [{ type: "web_search" }] }] },
    param: "tools[0].tools[0].type",
    message: /is not supported in a namespace/,
  },
  {
    name: "hosted tools only, tool_choice required",
    body: { ...good, tools: [{ type: "web_search" }], tool_choice: "required" },
    param: "tool_choice",
    message: /needs tools; declare at least one in tools \(hosted tools are not offered: this server cannot run them\)/,
  },
  {
    name: "tool_choice naming a custom tool as a function",
    body: { ...good, tools: [{ type: "custom", name: "c" }], tool_choice: { type: "function", name: "c" } },
    param: "tool_choice",
    message: /names "c" as a function tool, but it is a custom tool/,
  },
  {
    name: "a custom_tool_call whose input is not a string",
    body: { ...good, input: [{ type: "custom_tool_call", call_id: "c1", name: "c", input: { a: 1 } }] },
    param: "input[0].input",
    code: "invalid_type",
    message: /^input\[0\]\.input must be a string, got object/,
  },
  {
    name: "a tool_search_output whose tools are not a list",
    body: {
      ...good,
      input: [
        { type: "tool_search_call", call_id: "t1", execution: "client", arguments: { query: "q" } },
        { type: "tool_search_output", call_id: "t1", execution: "client", tools: "none" },
      ],
    },
    param: "input[1].tools",
    message: /^input\[1\]\.tools must be an array of tools/,
  },
  {
    name: "a tool_search_output loading a tool of an unknown type",
    body: {
      ...good,
      input: [
        { type: "tool_search_call", call_id: "t1", execution: "client", arguments: { query: "q" } },
        { type: "tool_search_output", call_id: "t1", execution: "client", tools: [{ type: "gadget", name: "g" }] },
      ],
    },
    param: "input[1].tools[0].type",
    message: /^input\[1\]\.tools\[0\]\.type "gadget" is not supported/,
  },
  {
    name: "client_metadata holding a number",
    body: { ...good, client_metadata: { turn: 7 } },
    param: "client_metadata",
    code: "invalid_type",
    message: /^client_metadata\["turn"\] must be a string, got number/,
  },
  {
    name: "a schema keyword the grammar cannot enforce",
    body: {
      ...good,
      tools: [{ type: "function", name: "x", parameters: { type: "object", properties: { a: { type: "nonsense" } } } }],
    },
    param: "tools",
    message: /tools\[0\]\.parameters/,
  },
  {
    name: "a tool name with a lone surrogate",
    body: { ...good, tools: [{ type: "function", name: "a\ud800", parameters: { type: "object" } }] },
    param: "tools[0].name",
    message: /^tools\[0\]\.name holds a lone surrogate/,
  },
  {
    name: "tool_choice naming an undeclared tool",
    body: { ...good, tools, tool_choice: { type: "function", name: "nope" } },
    param: "tool_choice",
    message: /^tool_choice names "nope", which is not among the declared tools \(pick_1, ping_1\)/,
  },
  {
    name: "tool_choice required without tools",
    body: { ...good, tool_choice: "required" },
    param: "tool_choice",
    message: /^tool_choice "required" needs tools/,
  },
  {
    name: "tool_choice allowed_tools",
    body: { ...good, tools, tool_choice: { type: "allowed_tools", mode: "auto", tools: [] } },
    param: "tool_choice",
    code: "unsupported_value",
    message:
      /^tool_choice must be "auto", "none", "required", \{"type": "function", "name"\} or \{"type": "custom", "name"\}, got type "allowed_tools"/,
  },
  {
    name: "max_output_tokens 0",
    body: { ...good, max_output_tokens: 0 },
    param: "max_output_tokens",
    message: /^max_output_tokens must be an integer from 1/,
  },
  {
    name: "max_output_tokens below the shortest required call",
    body: { ...good, tools, tool_choice: "required", max_output_tokens: 1 },
    param: "max_output_tokens",
    code: "max_tokens_too_small",
    message: /^max_output_tokens is 1, but the shortest call tool_choice allows takes at least \d+ tokens/,
  },
  {
    name: "temperature above 2",
    body: { ...good, temperature: 2.5 },
    param: "temperature",
    message: /^temperature must be a number from 0 to 2, got 2\.5/,
  },
  {
    name: "top_p as a string",
    body: { ...good, top_p: "1" },
    param: "top_p",
    message: /^top_p must be a number from 0 to 1/,
  },
  {
    name: "reasoning effort unknown",
    body: { ...good, reasoning: { effort: "ultra" } },
    param: "reasoning.effort",
    message: /^reasoning\.effort must be one of none, minimal, low, medium, high, xhigh, got "ultra"/,
  },
  {
    name: "a JSON output format without its schema",
    body: { ...good, text: { format: { type: "json_schema", name: "x" } } },
    param: "text.format.schema",
    code: "invalid_response_format",
    message: /^text\.format\.schema must be a JSON schema object, got undefined/,
  },
  {
    name: "include of logprobs",
    body: { ...good, include: ["message.output_text.logprobs"] },
    param: "include[0]",
    code: "unsupported_value",
    message: /^include\[0\] "message\.output_text\.logprobs" is not supported/,
  },
  {
    name: "truncation auto",
    body: { ...good, truncation: "auto" },
    param: "truncation",
    code: "unsupported_value",
    message: /^truncation must be "disabled", got "auto"/,
  },
  {
    name: "previous_response_id",
    body: { ...good, previous_response_id: "resp_1" },
    param: "previous_response_id",
    code: "unsupported_parameter",
    message: /^previous_response_id is not supported: this server keeps no responses/,
  },
  {
    name: "a conversation id",
    body: { ...good, conversation: "conv_1" },
    param: "conversation",
    code: "unsupported_parameter",
    message: /^conversation is not supported: this server keeps no responses/,
  },
  {
    name: "background",
    body: { ...good, background: true },
    param: "background",
    code: "unsupported_parameter",
    message: /^background is not supported/,
  },
  {
    name: "an unknown field (max_tool_calls)",
    body: { ...good, max_tool_calls: 2 },
    param: "max_tool_calls",
    code: "unsupported_parameter",
    message: /^max_tool_calls is not supported by this server; it reads model, input, instructions/,
  },
  {
    name: "chat completions' messages",
    body: { model: "m", messages: [{ role: "user", content: "hi" }] },
    param: "messages",
    code: "unsupported_parameter",
    message: /^messages is not supported by this server/,
  },
  {
    name: "stream not a boolean",
    body: { ...good, stream: "yes" },
    param: "stream",
    code: "invalid_type",
    message: /^stream must be true or false, got string/,
  },
  {
    name: "a prompt longer than the context",
    body: { ...good, input: "hello ".repeat(100) },
    param: "input",
    code: "context_length_exceeded",
    message: /^the prompt has (at least )?\d+ tokens but the context holds 64/,
    to: () => tiny,
  },
  {
    name: "a body over the size limit",
    body: { ...good, input: "x".repeat(BODY_LIMIT) },
    status: 413,
    param: null,
    code: "request_too_large",
    message: /larger bodyLimit/,
  },
];

const servedAfter = async (s: ToolmaskServer = server) => {
  const r = await client(s.url, REQUEST).responses.create(good as never);
  expect(r.object).toBe("response");
  expect(r.status).toBe("incomplete");
};

describe("bad requests to /v1/responses, through the openai client", () => {
  it("covers at least 20 kinds", () => expect(cases.length).toBeGreaterThanOrEqual(20));

  it.each(cases)("$name", async (c) => {
    const to = c.to?.() ?? server;
    const err = await client(to.url, REQUEST)
      .responses.create(c.body as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const e = err as ApiError;
    expect(e.status).toBe(c.status ?? 400);
    expect(e.error).toEqual({
      message: expect.stringMatching(c.message),
      type: "invalid_request_error",
      param: c.param,
      code: c.code ?? expect.any(String),
    });
    await servedAfter(to);
  });

  it("metadata within OpenAI's bounds is echoed in the Response, as OpenAI does", async () => {
    const metadata = { run: "r1", "team name": "x".repeat(512) };
    const r = await client(server.url, REQUEST).responses.create({ ...good, metadata } as never);
    expect(r.metadata).toEqual(metadata);
  });

  it("a streamed request refused before its first event: a JSON 400 the client raises as BadRequestError", async () => {
    const err = await client(server.url, REQUEST)
      .responses.create({ ...good, temperature: 3, stream: true } as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as ApiError).error).toMatchObject({ param: "temperature" });
    await servedAfter();
  });
});

/** A raw HTTP request (what the client never sends). */
const send = (body: string, headers: Record<string, string>) =>
  httpRequest(server.url, { path: "/v1/responses", body, headers });

describe("bad requests the client cannot send", () => {
  const json = { "content-type": "application/json" };
  const raw = [
    {
      name: "malformed JSON",
      body: '{"model": "m", "input": [',
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
    {
      name: "a text/plain body",
      body: JSON.stringify(good),
      headers: { "content-type": "text/plain" },
      status: 415,
      message: /Content-Type: application\/json/,
    },
  ];
  it.each(raw)("$name: $status in OpenAI's shape", async (c) => {
    const r = await send(c.body, c.headers);
    expect(r.status).toBe(c.status);
    expect(JSON.parse(r.body)).toEqual({
      error: {
        message: expect.stringMatching(c.message),
        type: "invalid_request_error",
        param: c.name === "a JSON array" ? "body" : null,
        code: expect.any(String),
      },
    });
    await servedAfter();
  });

  it("GET /v1/responses: 405 naming POST", async () => {
    const r = await fetchWithin(NO_TOKENS, `${server.url}/v1/responses`);
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("POST");
    await servedAfter();
  });
});

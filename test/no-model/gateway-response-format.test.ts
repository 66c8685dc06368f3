// A JSON response format through a gateway, against a misbehaving upstream (a scripted loopback
// server): the format goes in the engine's own field (openai: `response_format`; llama-server: the
// format's JSON in the grammar, never lazy), and every answer is checked against the schema by the
// parser's verdict before any of it reaches the client. Content that does not fit (JSON of another
// shape, a key given twice, not JSON, no content) is a 502 upstream_error saying why, whole and
// streamed, and no chunk of the stream carries it; content that fits comes back parsed by the real
// openai client's parse(); a cut answer is finish "length", which parse() refuses. A schema the
// lowering refuses is a 400 before the upstream is asked.
import { dirname } from "node:path";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { anthropicClient, client, raised } from "../support/server-fixtures.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";
import { NO_TOKENS } from "../support/timeouts.js";
import { QWEN3_TOKENIZER } from "../support/vocabs.js";

const PERSON = {
  type: "object",
  properties: { name: { type: "string", maxLength: 12 }, age: { type: "integer", minimum: 0, maximum: 150 } },
  required: ["name", "age"],
  additionalProperties: false,
};
const FORMAT = { type: "json_schema" as const, json_schema: { name: "person", schema: PERSON, strict: true } };
const messages = [{ role: "user" as const, content: "Invent a person." }];
/** The scripted upstream answers at once: nothing is decoded. */
const SCRIPTED = NO_TOKENS;

let upstream: ScriptedOpenAI;
let openaiGateway: ToolmaskServer;
let llamaGateway: ToolmaskServer;
beforeAll(async () => {
  upstream = await ScriptedOpenAI.start({ health: true });
  openaiGateway = await startServer({ port: 0, upstreams: { urls: [upstream.origin], engine: "openai" } });
  llamaGateway = await startServer({
    port: 0,
    dialect: "hermes",
    upstreams: { urls: [upstream.origin], engine: "llama-server", tokenizer: dirname(QWEN3_TOKENIZER) },
  });
});
afterAll(async () => {
  await openaiGateway?.close();
  await llamaGateway?.close();
  await upstream?.close();
});

const sse = (events: unknown[]) => ({
  write: (res: import("node:http").ServerResponse) =>
    void res
      .writeHead(200, { "content-type": "text/event-stream" })
      .end(`${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`),
});
/** An OpenAI stream of `content` in pieces of 5 characters, then the finish. */
const chatStream = (content: string, finish = "stop") =>
  sse([
    { choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }] },
    ...(content.match(/[\s\S]{1,5}/g) ?? []).map((c) => ({
      choices: [{ index: 0, delta: { content: c }, finish_reason: null }],
    })),
    { choices: [{ index: 0, delta: {}, finish_reason: finish }] },
  ]);

const failed = async (p: Promise<unknown>) =>
  p.then(
    (r) => ({ status: 200, message: JSON.stringify(r) }),
    (e: { status?: number; code?: string; param?: string; message: string }) => e,
  );

/** The streamed answer: every chunk's content, and the error that ended it (if any). */
async function streamed(api: OpenAI): Promise<{ content: string; error?: string }> {
  let content = "";
  try {
    const s = await api.chat.completions.create({ model: "m", messages, response_format: FORMAT, stream: true });
    for await (const c of s) content += c.choices[0]?.delta.content ?? "";
  } catch (err) {
    return { content, error: (err as Error).message };
  }
  return { content };
}

describe("the openai engine (verify-only)", () => {
  it("sends the format as response_format and gives back the parsed object", async () => {
    const api = client(openaiGateway.url, SCRIPTED);
    const sent = upstream.requests.length;
    upstream.answer({ content: '{"name": "Ada", "age": 36}' });
    const r = await api.chat.completions.parse({ model: "m", messages, response_format: FORMAT });
    expect(r.choices[0]!.message.parsed).toEqual({ name: "Ada", age: 36 });
    expect((r as unknown as { toolmask: { grammar: string } }).toolmask.grammar).toBe("verify-only");
    expect(upstream.requests[sent]!.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "person", schema: PERSON, strict: true },
    });
    upstream.answer({ content: '{"any": [1]}' });
    const o = await api.chat.completions.create({ model: "m", messages, response_format: { type: "json_object" } });
    expect(o.choices[0]!.message.content).toBe('{"any": [1]}');
    expect(upstream.requests[sent + 1]!.body.response_format).toEqual({ type: "json_object" });
    upstream.reply(chatStream('{"name": "Bo", "age": 7}'));
    expect(await streamed(api)).toEqual({ content: '{"name": "Bo", "age": 7}' });
  });

  it.each([
    ["JSON of another shape", '{"name": "Ada"}', /does not fit|not one JSON value that fits/],
    ["a value out of range", '{"name": "Ada", "age": 300}', /not one JSON value that fits/],
    ["a key given twice", '{"name": "Ada", "age": 1, "age": 2}', /not one JSON value that fits|twice/],
    ["text, not JSON", "Sure! Here is a person: Ada, 36.", /not one JSON value that fits/],
    ["no content", "", /has no content/],
  ])("%s: 502 saying why, whole and streamed, never the object", async (_, content, why) => {
    const api = client(openaiGateway.url, SCRIPTED);
    upstream.answer({ content });
    const w = await failed(api.chat.completions.parse({ model: "m", messages, response_format: FORMAT }));
    expect([w.status, (w as { code?: string }).code], w.message).toEqual([502, "upstream_error"]);
    expect(w.message).toMatch(/content that is not the response format's JSON/);
    expect(w.message).toMatch(why);
    upstream.reply(chatStream(content));
    const s = await streamed(api);
    expect(s.error, "the stream ends with the error").toMatch(why);
    expect(s.content, "no chunk carried the content").toBe("");
  });

  it("Responses text.format and Messages output_config.format: the same 502, whole and streamed", async () => {
    const bad = '{"name": "Ada"}';
    const api = client(openaiGateway.url, SCRIPTED);
    const text = { format: { type: "json_schema" as const, name: "person", schema: PERSON } };
    for (const stream of [false, true]) {
      upstream.reply(
        stream
          ? chatStream(bad)
          : { body: { choices: [{ index: 0, message: { role: "assistant", content: bad }, finish_reason: "stop" }] } },
      );
      const r = await raised(api.responses.create({ model: "m", input: "Invent a person.", text, stream }));
      // whole: a 502; streamed: the stream's error event, which the client raises (no HTTP status then)
      expect([stream, r !== "answered" && r.status]).toEqual([stream, stream ? undefined : 502]);
      expect(JSON.stringify(r)).toMatch(/not the response format's JSON/);
    }
    const anthropic = anthropicClient(openaiGateway.url, SCRIPTED);
    const output_config = { format: { type: "json_schema" as const, schema: PERSON } };
    upstream.answer({ content: bad });
    const m = await raised(anthropic.messages.create({ model: "m", max_tokens: 50, messages, output_config }));
    expect(m === "answered" ? m : [m.status, JSON.stringify(m.error)]).toEqual([
      502,
      expect.stringMatching(/not the response format's JSON/),
    ]);
  });

  it("a cut answer is finish length, which parse() refuses; no value", async () => {
    const api = client(openaiGateway.url, SCRIPTED);
    upstream.answer({ content: '{"name": "Ada", "age": 3', finish_reason: "length" });
    const w = await failed(api.chat.completions.parse({ model: "m", messages, response_format: FORMAT }));
    expect(w.message).toMatch(/length limit/i);
    upstream.answer({ content: '{"name": "Ada", "age": 3', finish_reason: "length" });
    const r = await api.chat.completions.create({ model: "m", messages, response_format: FORMAT });
    expect(r.choices[0]!.finish_reason).toBe("length");
  });

  it("a schema the lowering refuses: 400 naming the path, the upstream not asked", async () => {
    const api = client(openaiGateway.url, SCRIPTED);
    const sent = upstream.requests.length;
    const bad = { type: "json_schema" as const, json_schema: { name: "x", schema: { type: "object", if: {} } } };
    const w = await failed(api.chat.completions.create({ model: "m", messages, response_format: bad }));
    expect([w.status, (w as { code?: string }).code, (w as { param?: string }).param], w.message).toEqual([
      400,
      "invalid_response_format",
      "response_format",
    ]);
    expect(w.message).toContain("response_format.json_schema.schema");
    expect(upstream.requests.length).toBe(sent);
  });
});

describe("the llama-server engine (the grammar sent, the answer still verified)", () => {
  /** A /completion answer with `content`. */
  const completionBody = (content: string, stop_type = "eos") => ({
    content,
    stop: true,
    stop_type,
    tokens_evaluated: 5,
    tokens_predicted: 9,
    generation_settings: {},
  });

  it("sends the format's JSON in the whole grammar (not lazy), answers the parsed object", async () => {
    const api = client(llamaGateway.url, SCRIPTED);
    const sent = upstream.requests.length;
    upstream.reply({ body: completionBody('{"name": "Ada", "age": 36}') });
    const r = await api.chat.completions.parse({ model: "m", messages, response_format: FORMAT });
    expect(r.choices[0]!.message.parsed).toEqual({ name: "Ada", age: 36 });
    const body = upstream.requests[sent]!.body;
    expect([upstream.requests[sent]!.path, body.grammar_lazy]).toEqual(["/completion", undefined]);
    expect(body.grammar).toContain('\\"age\\"');
    // beside tools under "auto" the grammar stays whole: text before a call is the format's JSON
    upstream.reply({ body: completionBody('{"name": "Bo", "age": 7}') });
    const tools = [{ type: "function" as const, function: { name: "f", parameters: { type: "object" } } }];
    await api.chat.completions.create({ model: "m", messages, tools, tool_choice: "auto", response_format: FORMAT });
    expect(upstream.requests[sent + 1]!.body.grammar_lazy).toBeUndefined();
  });

  it("an answer that does not keep to the grammar: 502, never the object", async () => {
    const api = client(llamaGateway.url, SCRIPTED);
    upstream.reply({ body: completionBody('{"name": "Ada", "age": -4}') });
    const w = await failed(api.chat.completions.parse({ model: "m", messages, response_format: FORMAT }));
    expect([w.status, w.message]).toEqual([502, expect.stringMatching(/not one JSON value that fits/)]);
  });
});

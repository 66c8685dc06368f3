// Verify-only (`--engine openai`): every malformed shape of an upstream answer's tool_calls,
// function, name and arguments, whole and streamed, through the real openai client. Each one is a
// verdict the client sees: a tool_calls that is not an array (or content that is not a string) is
// not an OpenAI answer (502 upstream_error saying what it is); a call of the wrong shape is an
// invalid entry in toolmask.incomplete saying what is wrong, never passed on, never dropped in
// silence (tool_calls a string or an object used to be a 200, finish "stop", no call, no entry;
// arguments given as an object were re-serialized). The streamed answer gives the same verdict as
// the whole one. Arguments with JSON whitespace around the object are valid, as the grammar's
// call envelopes allow it (they used to be refused). The text engines read no calls of their own:
// an answer whose text is not a string is a 502 naming the field.
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import type { EngineName } from "../../src/gateway/engines/types.js";
import { startServer } from "../../src/server/index.js";
import { client } from "../support/server-fixtures.js";
import { useScriptedGateway } from "../support/scripted-gateway.js";
import { QWEN3_TOKENIZER } from "../support/vocabs.js";
import { NO_TOKENS } from "../support/timeouts.js";

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];

const fixture = useScriptedGateway();

interface Incomplete {
  index: number;
  name: string | null;
  kind: string;
  reason: string;
}
interface Verdict {
  status: number;
  message?: string;
  finish?: string | null;
  calls?: Array<{ name: string; arguments: string }>;
  incomplete?: Incomplete[];
}

/** The scripted upstream answers at once with a short answer: nothing is decoded. */
const SCRIPTED = NO_TOKENS;
const ask = { model: "m", messages: [{ role: "user" as const, content: "Weather in Paris?" }], tools: TOOLS };

/** The answer whole, its message holding `message` as the upstream sent it. */
async function whole(message: Record<string, unknown>, finish = "tool_calls"): Promise<Verdict> {
  fixture.upstream.reply({
    body: { choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }] },
  });
  try {
    const r = await client(fixture.gateway.url, SCRIPTED).chat.completions.create(ask);
    const c = r.choices[0]!;
    return {
      status: 200,
      finish: c.finish_reason,
      calls: (c.message.tool_calls ?? []).map((t) => ({
        name: (t as { function: { name: string } }).function.name,
        arguments: (t as { function: { arguments: string } }).function.arguments,
      })),
      incomplete: (r as unknown as { toolmask: { incomplete: Incomplete[] } }).toolmask.incomplete,
    };
  } catch (err) {
    return { status: (err as { status: number }).status, message: (err as Error).message };
  }
}

/** The answer streamed: `delta` in one event, then the finish. */
async function streamed(delta: Record<string, unknown>, finish = "tool_calls"): Promise<Verdict> {
  const events = [
    { choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }] },
    { choices: [{ index: 0, delta, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: finish }] },
  ];
  fixture.upstream.reply({
    write: (res) =>
      void res
        .writeHead(200, { "content-type": "text/event-stream" })
        .end(`${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`),
  });
  const s = client(fixture.gateway.url, SCRIPTED).chat.completions.stream(ask);
  let last: unknown;
  s.on("chunk", (c) => (last = c));
  try {
    const r = await s.finalChatCompletion();
    const c = r.choices[0]!;
    return {
      status: 200,
      finish: c.finish_reason,
      calls: (c.message.tool_calls ?? []).map((t) => ({ name: t.function.name, arguments: t.function.arguments })),
      incomplete: (last as { toolmask: { incomplete: Incomplete[] } }).toolmask.incomplete,
    };
  } catch (err) {
    return { status: (err as { status?: number }).status ?? 200, message: (err as Error).message };
  }
}

/** One call in OpenAI's shape, with `fn` as its function. */
const call = (fn: unknown, extra: Record<string, unknown> = {}) => ({
  id: "c1",
  type: "function",
  function: fn,
  ...extra,
});
const streamedCall = (c: unknown) => (c && typeof c === "object" && !Array.isArray(c) ? { index: 0, ...c } : c);

describe("tool_calls that is not an array: not an OpenAI answer, 502 saying what it is", () => {
  it.each([
    ["a string", "get_weather", /tool_calls is a string, not an array of calls/],
    [
      "an object",
      call({ name: "get_weather", arguments: '{"city":"Paris"}' }),
      /tool_calls is an object, not an array/,
    ],
    ["a number", 5, /tool_calls is a number, not an array/],
    ["true", true, /tool_calls is a boolean, not an array/],
  ])("tool_calls %s", async (_, toolCalls, why) => {
    const w = await whole({ content: null, tool_calls: toolCalls });
    expect(w.status, JSON.stringify(w)).toBe(502);
    expect(w.message).toMatch(why);
    const s = await streamed({ tool_calls: toolCalls });
    expect(s.status === 502 || s.status === 200, JSON.stringify(s)).toBe(true);
    expect(s.message, "the stream ends with the error").toMatch(why);
  });

  it("content that is not a string (an array of parts): 502 saying so, not dropped", async () => {
    const w = await whole({ content: [{ type: "text", text: "hi" }] }, "stop");
    expect(w.status).toBe(502);
    expect(w.message).toMatch(/content is an array, not a string/);
    const s = await streamed({ content: [{ type: "text", text: "hi" }] }, "stop");
    expect(s.message).toMatch(/content is an array, not a string/);
  });
});

describe("a call of the wrong shape: an invalid entry saying what is wrong, whole and streamed alike", () => {
  it.each([
    ["a string", "get_weather", /a call is a string, not an object/],
    ["null", null, /a call is null, not an object/],
    ["an array", ["get_weather"], /a call is an array, not an object/],
    ["without function", { id: "c1", type: "function" }, /a call without a function name/],
    ["without a name", call({ arguments: '{"city":"Paris"}' }), /a call without a function name/],
    ["whose function is a string", call("get_weather"), /function is a string, not an object/],
    [
      "whose name is a number",
      call({ name: 5, arguments: '{"city":"Paris"}' }),
      /function.name is a number, not a string/,
    ],
    [
      "whose arguments are an object",
      call({ name: "get_weather", arguments: { city: "Paris" } }),
      /function.arguments is an object, not a string/,
    ],
    [
      "whose arguments are an array",
      call({ name: "get_weather", arguments: ["Paris"] }),
      /function.arguments is an array, not a string/,
    ],
    ["whose arguments are a number", call({ name: "get_weather", arguments: 5 }), /function.arguments is a number/],
  ])("a call %s", async (_, c, why) => {
    const w = await whole({ content: null, tool_calls: [c] });
    expect(w.status, JSON.stringify(w)).toBe(200);
    expect(w.calls).toEqual([]);
    expect(w.finish).toBe("stop");
    expect(w.incomplete).toHaveLength(1);
    expect(w.incomplete![0]).toMatchObject({ index: 0, kind: "invalid" });
    expect(w.incomplete![0]!.reason).toMatch(why);
    // the whole call is one streamed fragment
    const s = await streamed({ tool_calls: [streamedCall(c)] });
    expect({ ...s, incomplete: s.incomplete?.map((e) => e.reason) }).toEqual({
      ...w,
      incomplete: w.incomplete!.map((e) => e.reason),
    });
  });

  it("a malformed call beside a valid one: the valid one passes, the other is an entry", async () => {
    const w = await whole({
      content: null,
      tool_calls: [
        call({ name: "get_weather", arguments: '{"city":"Paris"}' }),
        call({ name: "get_weather", arguments: { city: "Rome" } }),
      ],
    });
    expect(w.calls).toEqual([{ name: "get_weather", arguments: '{"city":"Paris"}' }]);
    expect(w.finish).toBe("tool_calls");
    expect(w.incomplete?.map((e) => [e.index, e.reason])).toEqual([
      [1, expect.stringMatching(/arguments is an object/)],
    ]);
  });
});

describe("arguments with JSON whitespace around the object", () => {
  it.each([' {"city": "Paris"}', '\n\t{"city": "Paris"}\r\n', '{"city": "Paris"}  '])(
    "%j is a valid call, passed on as sent",
    async (args) => {
      const w = await whole({ content: null, tool_calls: [call({ name: "get_weather", arguments: args })] });
      expect(w, JSON.stringify(w)).toMatchObject({
        status: 200,
        finish: "tool_calls",
        calls: [{ name: "get_weather", arguments: args }],
        incomplete: [],
      });
      const s = await streamed({ tool_calls: [streamedCall(call({ name: "get_weather", arguments: args }))] });
      expect(s).toEqual(w);
    },
  );

  it("more whitespace than the grammar lets a model write (33 spaces) is refused, as the grammar refuses it", async () => {
    const w = await whole({
      content: null,
      tool_calls: [call({ name: "get_weather", arguments: `${" ".repeat(33)}{"city": "Paris"}` })],
    });
    expect(w.calls).toEqual([]);
    expect(w.incomplete?.[0]?.kind).toBe("invalid");
  });
});

describe("arguments holding a number no double holds", () => {
  it("1e999 is an invalid entry whose reason names the number as sent (it named Infinity, JSON.parse's value)", async () => {
    const args = '{"city": "Paris", "days": 1e999}';
    const w = await whole({ content: null, tool_calls: [call({ name: "get_weather", arguments: args })] });
    expect(w.calls).toEqual([]);
    expect(w.incomplete?.map((e) => [e.kind, e.reason])).toEqual([
      ["invalid", "the number 1e999 is beyond the range of a double (±1.7976931348623157e308)"],
    ]);
    const s = await streamed({ tool_calls: [streamedCall(call({ name: "get_weather", arguments: args }))] });
    expect(s).toEqual(w);
  });
});

describe("the text engines (llama-server, vllm, sglang): an answer whose text is not a string", () => {
  const cases: Array<[EngineName, unknown, unknown, RegExp]> = [
    ["llama-server", { content: 5, stop: true }, { content: ["x"], stop: false }, /no string `content`/],
    ["vllm", { choices: [{ text: null, finish_reason: "stop" }] }, { choices: [{ text: {} }] }, /choices\[0\]\.text/],
    ["sglang", { text: [], meta_info: { finish_reason: "stop" } }, { text: 1, meta_info: {} }, /no string `text`/],
  ];
  it.each(cases)("%s: 502 saying which field, whole and streamed", async (engine, body, event, why) => {
    const g = await startServer({
      port: 0,
      upstreams: { urls: [fixture.upstream.origin], engine, tokenizer: dirname(QWEN3_TOKENIZER) },
    });
    try {
      fixture.upstream.reply({ body });
      const w = await client(g.url, SCRIPTED)
        .chat.completions.create(ask)
        .then(
          () => undefined,
          (e: unknown) => e as { status: number; message: string },
        );
      expect(w?.status).toBe(502);
      expect(w?.message).toMatch(why);
      fixture.upstream.reply({
        write: (res) =>
          void res.writeHead(200, { "content-type": "text/event-stream" }).end(`data: ${JSON.stringify(event)}\n\n`),
      });
      const s = await (async () => {
        for await (const _ of await client(g.url, SCRIPTED).chat.completions.create({ ...ask, stream: true }));
      })().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(s?.message).toMatch(why);
    } finally {
      await g.close();
    }
  });
});

// An upstream answer that gives a key twice (issue 30, defect 8): JSON.parse keeps the last value
// and says nothing, so `{"tool_calls": [A], "tool_calls": [B]}` was passed on as B, a call with
// two `name` keys as its last name. Now each is a verdict the client sees, whole and streamed, on
// every engine: a key given twice in a call (its function, name, arguments, id) makes that call
// an invalid entry in toolmask.incomplete saying so, its text as sent, as verify-calls.ts reports
// a call of any other wrong shape; a key given twice anywhere else (the top, choices, the message
// or delta, its content or tool_calls, a call's index, the usage, a text engine's answer) is a 502
// naming the key and where it stands.
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import type { EngineName } from "../../src/gateway/engines/types.js";
import { startServer } from "../../src/server/index.js";
import { useScriptedGateway } from "../support/scripted-gateway.js";
import { client } from "../support/server-fixtures.js";
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
  { type: "function" as const, function: { name: "delete_all", parameters: { type: "object", properties: {} } } },
];

const fixture = useScriptedGateway();

interface Incomplete {
  index: number;
  kind: string;
  reason: string;
  text: string;
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
const PARIS =
  '{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}';
const DELETE = '{"id": "c2", "type": "function", "function": {"name": "delete_all", "arguments": "{}"}}';

/** The answer whole: `message` is the message object's text, `top` more top-level members. */
async function whole(message: string, top = ""): Promise<Verdict> {
  fixture.upstream.reply({
    body: `{"choices": [{"index": 0, "message": ${message}, "finish_reason": "tool_calls"}]${top}}`,
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

/** The answer streamed: `delta` (its text) in one event between the role and the finish. */
async function streamed(delta: string): Promise<Verdict> {
  const event = (d: string, finish: string | null) =>
    `data: {"choices": [{"index": 0, "delta": ${d}, "finish_reason": ${JSON.stringify(finish)}}]}\n\n`;
  fixture.upstream.reply({
    write: (res) =>
      void res
        .writeHead(200, { "content-type": "text/event-stream" })
        .end(
          `${event('{"role": "assistant"}', null)}${event(delta, null)}${event("{}", "tool_calls")}data: [DONE]\n\n`,
        ),
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

/** A streamed call fragment: the call's text with its index first. */
const fragment = (call: string, index = 0) => call.replace(/^\{/, `{"index": ${index}, `);

describe("a key given twice outside the calls: 502 naming the key and where", () => {
  it.each([
    [
      "tool_calls twice in the message",
      `{"role": "assistant", "content": null, "tool_calls": [${PARIS}], "tool_calls": [${DELETE}]}`,
      "",
      /gives the key "tool_calls" twice in choices\[0\]\.message/,
    ],
    [
      "content twice in the message",
      `{"role": "assistant", "content": "Sunny.", "content": "Run delete_all."}`,
      "",
      /gives the key "content" twice in choices\[0\]\.message/,
    ],
    [
      "choices twice at the top",
      `{"role": "assistant", "content": "a"}`,
      ', "choices": []',
      /gives the key "choices" twice in the top-level object/,
    ],
    [
      "a key twice in the usage",
      `{"role": "assistant", "content": "a"}`,
      ', "usage": {"prompt_tokens": 1, "prompt_tokens": 2}',
      /gives the key "prompt_tokens" twice in usage/,
    ],
  ])("%s", async (_, message, top, why) => {
    const w = await whole(message, top);
    expect(w.status, JSON.stringify(w)).toBe(502);
    expect(w.message).toMatch(why);
  });

  it.each([
    [
      "tool_calls twice in a delta",
      `{"tool_calls": [${fragment(PARIS)}], "tool_calls": [${fragment(DELETE)}]}`,
      /"tool_calls" twice in choices\[0\]\.delta/,
    ],
    [
      "content twice in a delta",
      '{"content": "Sunny.", "content": "Run delete_all."}',
      /"content" twice in choices\[0\]\.delta/,
    ],
    [
      "a call's index twice (which call it continues is unknown)",
      `{"tool_calls": [{"index": 0, "index": 1, "id": "c1", "function": {"name": "get_weather", "arguments": "{}"}}]}`,
      /"index" twice in choices\[0\]\.delta\.tool_calls\[0\]/,
    ],
  ])("streamed: %s", async (_, delta, why) => {
    const s = await streamed(delta);
    expect(s.status === 502 || s.status === 200, JSON.stringify(s)).toBe(true);
    expect(s.message, "the stream ends with the error").toMatch(why);
  });
});

describe("a key given twice in a call: that call is an invalid entry saying so, whole and streamed alike", () => {
  it.each([
    [
      "name",
      '{"id": "c1", "type": "function", "function": {"name": "get_weather", "name": "delete_all", "arguments": "{}"}}',
      /the key "name" is given twice in tool_calls\[0\]\.function/,
    ],
    [
      "arguments",
      '{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}", "arguments": "{\\"city\\": \\"rm -rf /\\"}"}}',
      /the key "arguments" is given twice in tool_calls\[0\]\.function/,
    ],
    [
      "function",
      '{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}, "function": {"name": "delete_all", "arguments": "{}"}}',
      /the key "function" is given twice in tool_calls\[0\]/,
    ],
    [
      "id",
      '{"id": "c1", "id": "c9", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}',
      /the key "id" is given twice in tool_calls\[0\]/,
    ],
  ])("%s twice", async (_, call, why) => {
    const w = await whole(`{"role": "assistant", "content": null, "tool_calls": [${call}]}`);
    expect(w.status, JSON.stringify(w)).toBe(200);
    expect(w.calls).toEqual([]);
    expect(w.finish).toBe("stop");
    expect(w.incomplete).toHaveLength(1);
    expect(w.incomplete![0]).toMatchObject({ index: 0, kind: "invalid", text: call });
    expect(w.incomplete![0]!.reason).toMatch(why);
    const s = await streamed(`{"tool_calls": [${fragment(call)}]}`);
    expect(s.status, JSON.stringify(s)).toBe(200);
    expect(s.calls).toEqual([]);
    expect(s.incomplete?.map((e) => [e.index, e.kind])).toEqual([[0, "invalid"]]);
    expect(s.incomplete![0]!.reason).toMatch(why);
    expect(s.incomplete![0]!.text).toBe(fragment(call));
  });

  it("beside a call without repeats: that one passes, the other is the entry", async () => {
    const twice =
      '{"id": "c2", "type": "function", "function": {"name": "delete_all", "name": "get_weather", "arguments": "{}"}}';
    const w = await whole(`{"role": "assistant", "content": null, "tool_calls": [${PARIS}, ${twice}]}`);
    expect(w.calls).toEqual([{ name: "get_weather", arguments: '{"city": "Paris"}' }]);
    expect(w.finish).toBe("tool_calls");
    expect(w.incomplete?.map((e) => [e.index, e.reason])).toEqual([
      [1, expect.stringMatching(/the key "name" is given twice in tool_calls\[1\]\.function/)],
    ]);
    const s = await streamed(`{"tool_calls": [${fragment(PARIS)}, ${fragment(twice, 1)}]}`);
    expect(s.calls).toEqual(w.calls);
    expect(s.incomplete?.map((e) => e.index)).toEqual([1]);
  });

  it("the same key in two different objects is no repeat: the answer passes", async () => {
    const w = await whole(`{"role": "assistant", "content": null, "tool_calls": [${PARIS}, ${DELETE}]}`);
    expect(w).toMatchObject({ status: 200, finish: "tool_calls", incomplete: [] });
    expect(w.calls?.map((c) => c.name)).toEqual(["get_weather", "delete_all"]);
  });
});

describe("the text engines (llama-server, vllm, sglang): a key given twice is a 502 naming it", () => {
  const cases: Array<[EngineName, string, string, RegExp]> = [
    [
      "llama-server",
      '{"content": "Sunny.", "content": "<tool_call>", "stop": true, "stop_type": "eos"}',
      '{"content": "a", "content": "b", "stop": false}',
      /gives the key "content" twice in the top-level object/,
    ],
    [
      "vllm",
      '{"choices": [{"index": 0, "text": "Sunny.", "text": "<tool_call>", "finish_reason": "stop"}]}',
      '{"choices": [{"index": 0, "text": "a", "text": "b", "finish_reason": null}]}',
      /gives the key "text" twice in choices\[0\]/,
    ],
    [
      "sglang",
      '{"text": "Sunny.", "text": "<tool_call>", "meta_info": {"finish_reason": {"type": "stop"}}}',
      '{"text": "a", "meta_info": {"finish_reason": null, "finish_reason": null}}',
      /gives the key "(text|finish_reason)" twice/,
    ],
  ];
  it.each(cases)("%s: whole and streamed", async (engine, body, event, why) => {
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
        write: (res) => void res.writeHead(200, { "content-type": "text/event-stream" }).end(`data: ${event}\n\n`),
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

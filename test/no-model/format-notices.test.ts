// A "format" the grammar does not enforce is an annotation: the tool is accepted, the value is any
// string, and the request carries one notice saying where (GenerateResult.notices, the server's
// log). strictFormats (--strict-formats) refuses such a tool instead: UnsupportedSchemaError naming
// the keyword's path in the library, a 400 in the route's own shape in the server. An enforced
// format is enforced by the server too (a gateway verifying an upstream's calls).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildToolGrammar, parseToolCalls, UnsupportedSchemaError } from "../../src/index.js";
import { toolNotices, unenforcedFormats } from "../../src/dialects/format-notices.js";
import { normalizeTools } from "../../src/dialects/tools.js";
import { getDialect } from "../../src/dialects/index.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { serveCommand } from "../../src/server/cli.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";
import { client } from "../support/server-fixtures.js";
import { NO_TOKENS } from "../support/timeouts.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";

const tool = (properties: Record<string, unknown>, name = "f") => ({
  type: "function" as const,
  function: { name, parameters: { type: "object", properties, required: Object.keys(properties) } },
});
const CUSTOM = [tool({ when: { type: "string", format: "x-custom" }, url: { type: "string", format: "uri" } })];
const CUSTOM_PATH = "tools[0].function.parameters.properties.when.format";

describe("the library", () => {
  it("finds the formats the grammar does not enforce, wherever they stand", () => {
    const tools = [
      tool({ a: { type: "string", format: "date" }, b: { type: "integer", format: "int64" } }),
      tool({ c: { type: "array", items: { anyOf: [{ type: "string", format: "binary" }, { type: "null" }] } } }, "g"),
      tool({ d: { $ref: "#/$defs/D" } }, "h"),
    ];
    (tools[2]!.function.parameters as Record<string, unknown>).$defs = { D: { type: "string", format: "regex" } };
    expect(unenforcedFormats(normalizeTools(tools, getDialect("hermes")!))).toEqual([
      { path: "tools[0].function.parameters.properties.b.format", format: "int64" },
      { path: "tools[1].function.parameters.properties.c.items.anyOf[0].format", format: "binary" },
      { path: "tools[2].function.parameters.$defs.D.format", format: "regex" },
    ]);
  });

  it("says so in one notice per request, naming each place; none when every format is enforced", () => {
    const notices = toolNotices(normalizeTools(CUSTOM, getDialect("hermes")!));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`${CUSTOM_PATH} ("x-custom")`);
    expect(notices[0]).toMatch(/strictFormats/);
    expect(
      toolNotices(normalizeTools([tool({ u: { type: "string", format: "uri" } })], getDialect("hermes")!)),
    ).toEqual([]);
  });

  it.each(["hermes", "lfm2", "qwen3-coder"])(
    "%s: an unknown format is any string; strictFormats refuses the tool",
    (dialect) => {
      const spec = getDialect(dialect)!;
      const call = (url: string) =>
        writeOutput(spec, [
          writeCall(spec, "f", [
            ["when", JSON.stringify("next tuesday"), "next tuesday"],
            ["url", JSON.stringify(url), url],
          ]),
        ]);
      const text = call("https://x.org/a");
      const r = parseToolCalls(text, { dialect, tools: CUSTOM });
      expect(r.toolCalls.map((t) => JSON.parse(t.function.arguments))).toEqual([
        { when: "next tuesday", url: "https://x.org/a" },
      ]);
      // the enforced one next to it still is
      const bad = parseToolCalls(call("not a uri"), { dialect, tools: CUSTOM });
      expect(bad.toolCalls).toEqual([]);
      for (const build of [
        () => parseToolCalls(text, { dialect, tools: CUSTOM, strictFormats: true }),
        () => buildToolGrammar({ dialect, tools: CUSTOM, strictFormats: true }),
      ]) {
        let e: unknown;
        try {
          build();
        } catch (err) {
          e = err;
        }
        expect(e).toBeInstanceOf(UnsupportedSchemaError);
        expect((e as UnsupportedSchemaError).path).toBe(CUSTOM_PATH);
        expect((e as Error).message).toMatch(
          /^tools\[0\]\.function\.parameters\.properties\.when\.format: "format": "x-custom" is not enforced .*; use one it does/,
        );
      }
      expect(() => buildToolGrammar({ dialect, tools: CUSTOM, strictFormats: "yes" as unknown as boolean })).toThrow(
        /strictFormats must be true or false/,
      );
    },
  );
});

describe("the server (a gateway over a scripted OpenAI upstream)", () => {
  let upstream: ScriptedOpenAI;
  let lax: ToolmaskServer;
  let strict: ToolmaskServer;
  const notices: string[] = [];
  beforeAll(async () => {
    upstream = await ScriptedOpenAI.start({ health: true });
    const upstreams = { urls: [upstream.origin], engine: "openai" as const };
    lax = await startServer({ port: 0, upstreams, onNotice: (n) => notices.push(n) });
    strict = await startServer({ port: 0, upstreams, strictFormats: true });
  });
  afterAll(async () => {
    await lax?.close();
    await strict?.close();
    await upstream?.close();
  });
  const ask = { model: "m", messages: [{ role: "user" as const, content: "When?" }], tools: CUSTOM };
  const answer = (args: string) => ({
    body: {
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: args } }],
          },
          finish_reason: "tool_calls",
        },
      ],
    },
  });

  it("takes an unknown format as an annotation and logs one notice per request, whole or streamed", async () => {
    notices.length = 0;
    const args = JSON.stringify({ when: "next tuesday", url: "https://x.org/a" });
    upstream.reply(answer(args));
    const r = await client(lax.url, NO_TOKENS).chat.completions.create(ask);
    expect(
      r.choices[0]!.message.tool_calls!.map((t) => (t as { function: { arguments: string } }).function.arguments),
    ).toEqual([args]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(CUSTOM_PATH);
    const event = (d: unknown, finish: string | null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: d, finish_reason: finish }] })}\n\n`;
    const delta = { tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "f", arguments: args } }] };
    upstream.reply({
      write: (res) =>
        void res
          .writeHead(200, { "content-type": "text/event-stream" })
          .end(`${event({ role: "assistant" }, null)}${event(delta, null)}${event({}, "tool_calls")}data: [DONE]\n\n`),
    });
    const s = await client(lax.url, NO_TOKENS).chat.completions.stream(ask).finalChatCompletion();
    expect(s.choices[0]!.message.tool_calls!.map((t) => t.function.arguments)).toEqual([args]);
    expect(notices).toHaveLength(2);
  });

  it("enforces an enforced format on the upstream's calls", async () => {
    upstream.reply(answer(JSON.stringify({ when: "x", url: "not a uri" })));
    const r = await client(lax.url, NO_TOKENS).chat.completions.create(ask);
    expect(r.choices[0]!.message.tool_calls ?? []).toEqual([]);
  });

  it("with --strict-formats: 400 naming the keyword's path and what to do, before the upstream is asked", async () => {
    const before = upstream.requests.length;
    const res = await fetch(`${strict.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ask),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; param: string; code: string } };
    expect(body.error.param).toBe("tools");
    expect(body.error.code).toBe("invalid_tool_schema");
    expect(body.error.message).toMatch(
      new RegExp(`^${CUSTOM_PATH.replace(/[.[\]]/g, "\\$&")}: "format": "x-custom" is not enforced`),
    );
    expect(body.error.message).toMatch(/; use one it does \(date-time, .*uri\)/);
    // Anthropic's route, in Anthropic's error shape
    const m = await fetch(`${strict.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "m",
        max_tokens: 16,
        messages: [{ role: "user", content: "When?" }],
        tools: [{ name: "f", input_schema: CUSTOM[0]!.function.parameters }],
      }),
    });
    expect(m.status).toBe(400);
    const mb = (await m.json()) as { type: string; error: { type: string; message: string } };
    expect([mb.type, mb.error.type]).toEqual(["error", "invalid_request_error"]);
    expect(mb.error.message).toMatch(/properties\.when\.format: "format": "x-custom" is not enforced/);
    expect(upstream.requests.length).toBe(before);
  });
});

describe("toolmask serve", () => {
  /** Runs `toolmask serve` in-process over a scripted upstream, asks once, stops it; what it wrote and the answer's status. */
  async function served(flags: string[]) {
    const upstream = await ScriptedOpenAI.start({ health: true });
    const stop = new AbortController();
    const out: string[] = [],
      err: string[] = [];
    const io = {
      out: { write: (s: string) => out.push(s) },
      err: { write: (s: string) => err.push(s) },
      signal: stop.signal,
    };
    const code = serveCommand(["--upstream", upstream.origin, "--engine", "openai", "--port", "0", ...flags], io);
    try {
      let url = "";
      for (let i = 0; i < 200 && !url; i++) {
        url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out.join(""))?.[1] ?? "";
        if (!url) await new Promise((res) => setTimeout(res, 50));
      }
      upstream.reply({
        body: { choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] },
      });
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "When?" }], tools: CUSTOM }),
      });
      return { status: res.status, err: err.join("") };
    } finally {
      stop.abort();
      expect(await code).toBe(0);
      await upstream.close();
    }
  }

  it("logs the notice to stderr once per request; --strict-formats answers 400 instead", async () => {
    const lax = await served([]);
    expect(lax.status).toBe(200);
    expect(lax.err.match(/toolmask serve: notice: "format" not enforced/g)).toHaveLength(1);
    expect(lax.err).toContain(CUSTOM_PATH);
    const strict = await served(["--strict-formats"]);
    expect(strict.status).toBe(400);
    expect(strict.err).not.toMatch(/notice/);
  });
});

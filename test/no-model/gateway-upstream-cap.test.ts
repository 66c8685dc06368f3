// Upstreams that send too much: a whole answer of hundreds of MB (with and without Content-Length),
// a stream that never ends (text without end, one giant event, empty events, comments), on every
// engine, through the real openai client. The gateway reads each answer under a cap sized from the
// request's max_tokens (src/gateway/body-cap.ts) and answers 502 upstream_error naming the cap
// (streamed: an error event), stops reading (the upstream sees the connection close), its peak
// RSS grows by a bounded amount (it used to grow by the body's size, several times over), and it
// answers /health all the while. A legitimate answer near max_tokens still passes.
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import type { EngineName } from "../../src/gateway/engines/types.js";
import { client } from "../support/server-fixtures.js";
import { peakGrowth } from "../support/peak-rss.js";
import { ScriptedOpenAI, writeAll } from "../support/scripted-openai.js";
import { QWEN3_TOKENIZER } from "../support/vocabs.js";
import { fetchWithin, NO_TOKENS } from "../support/timeouts.js";

const MB = 1024 * 1024;
/** What a hostile upstream sends in all: far above any cap of these requests (max_tokens 100: ~1.1 MB). */
const HUGE = 400 * MB;
/** A generous bound on the gateway's peak RSS growth over one such answer (it was 2–3 × HUGE). */
const PEAK_BOUND_MB = 150;
const FILLER = Buffer.alloc(MB, "a");
const PIECE = "a".repeat(16 * 1024);

/** Each engine's answer shapes: a whole body split around its text, and one stream event's JSON. */
const SHAPES: Record<EngineName, { head: string; tail: string; event: (text: string, soFar: string) => string }> = {
  openai: {
    head: '{"choices":[{"index":0,"message":{"role":"assistant","content":"',
    tail: '"},"finish_reason":"stop"}]}',
    event: (t) => JSON.stringify({ choices: [{ index: 0, delta: { content: t }, finish_reason: null }] }),
  },
  "llama-server": {
    head: '{"content":"',
    tail: '","stop":true,"stop_type":"eos"}',
    event: (t) => JSON.stringify({ content: t, stop: false }),
  },
  vllm: {
    head: '{"choices":[{"index":0,"text":"',
    tail: '","finish_reason":"stop"}]}',
    event: (t) => JSON.stringify({ choices: [{ index: 0, text: t, finish_reason: null }] }),
  },
  sglang: {
    head: '{"text":"',
    tail: '","meta_info":{"finish_reason":{"type":"stop"}}}',
    // SGLang streams the text so far
    event: (_t, soFar) => JSON.stringify({ text: soFar, meta_info: { finish_reason: null } }),
  },
};
const ENGINES = Object.keys(SHAPES) as EngineName[];

let upstream: ScriptedOpenAI;
const gateways = new Map<EngineName, ToolmaskServer>();
beforeAll(async () => {
  upstream = await ScriptedOpenAI.start({ health: true });
  for (const engine of ENGINES)
    gateways.set(
      engine,
      await startServer({
        port: 0,
        upstreams: {
          urls: [upstream.origin],
          engine,
          ...(engine === "openai" ? {} : { tokenizer: dirname(QWEN3_TOKENIZER) }),
        },
      }),
    );
});
afterAll(async () => {
  for (const g of gateways.values()) await g.close();
  await upstream?.close();
});

const ask = { model: "m", messages: [{ role: "user" as const, content: "hi" }], max_tokens: 100 };

/** A whole body of `total` bytes of text inside `engine`'s answer, written as fast as it is read. */
function hugeWhole(engine: EngineName, total: number, declareLength = false) {
  const { head, tail } = SHAPES[engine];
  const chunks = Math.ceil(total / MB);
  return {
    write: (res: import("node:http").ServerResponse) => {
      res.writeHead(200, {
        "content-type": "application/json",
        ...(declareLength ? { "content-length": String(head.length + chunks * MB + tail.length) } : {}),
      });
      return writeAll(res, (i) => (i === 0 ? head : i <= chunks ? FILLER : i === chunks + 1 ? tail : undefined));
    },
  };
}

/** A stream of events from `next(i)` (undefined: the end) up to HUGE bytes, as fast as it is read. */
function sse(next: (i: number) => string | undefined) {
  return {
    write: (res: import("node:http").ServerResponse) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      let sent = 0;
      return writeAll(res, (i) => {
        const e = sent < HUGE ? next(i) : undefined;
        if (e !== undefined) sent += e.length;
        return e;
      });
    },
  };
}

/** Text events without end (each PIECE long). */
function endlessText(engine: EngineName) {
  let soFar = "";
  return sse(() => {
    soFar += PIECE;
    return `data: ${SHAPES[engine].event(PIECE, soFar)}\n\n`;
  });
}

interface Outcome {
  status: number | undefined;
  message: string;
  chunks: number;
  health: number[];
  healthFailures: number;
  peakMb: number;
}

/** Chunks a streamed answer gave before it ended (or broke). */
let chunksSeen = 0;

/** One request through the openai client while /health is asked again and again; the peak RSS growth over it. */
async function measure(gateway: ToolmaskServer, run: (api: OpenAI) => Promise<unknown>): Promise<Outcome> {
  chunksSeen = 0;
  const peak = peakGrowth();
  const api = client(gateway.url, { decode: ask.max_tokens });
  let done = false;
  const health: number[] = [];
  let healthFailures = 0;
  const poller = (async () => {
    while (!done) {
      const t = performance.now();
      const r = await fetchWithin(NO_TOKENS, `${gateway.url}/health`).catch(() => undefined);
      if (r?.status === 200) health.push(performance.now() - t);
      else healthFailures++;
      await r?.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  let status: number | undefined;
  let message = "";
  try {
    await run(api);
    status = 200;
  } catch (err) {
    status = (err as { status?: number }).status;
    message = (err as Error).message;
  } finally {
    done = true;
    await poller;
  }
  return { status, message, chunks: chunksSeen, health, healthFailures, peakMb: peak() };
}

const whole = (api: OpenAI) => api.chat.completions.create(ask);
async function streamed(api: OpenAI): Promise<void> {
  for await (const _ of await api.chat.completions.create({ ...ask, stream: true })) chunksSeen++;
}

function report(what: string, o: Outcome) {
  const slowest = o.health.length ? Math.max(...o.health).toFixed(0) : "-";
  console.log(
    `${what}: ${o.status ?? "an error event"} after ${o.chunks} chunks, peak RSS +${o.peakMb.toFixed(0)} MB, /health answered ${o.health.length} times (slowest ${slowest} ms)\n  ${o.message.slice(0, 300)}`,
  );
}

function expectCapped(o: Outcome, streamedAnswer: boolean, what: RegExp) {
  // streamed: an error event once the stream began (no status), else a 502; the openai client throws either way
  if (streamedAnswer) expect([undefined, 502]).toContain(o.status);
  else expect(o.status).toBe(502);
  expect(o.message).toMatch(what);
  expect(o.peakMb).toBeLessThan(PEAK_BOUND_MB);
  expect(o.healthFailures).toBe(0);
}

const CAP = /over the gateway's cap of [\d,]+ bytes on an upstream answer .*max_tokens.*--max-upstream-body-mb/;

describe.each(ENGINES)("a %s upstream that sends too much", (engine) => {
  it(`a whole answer of ${HUGE / MB} MB: 502 naming the cap, RSS bounded, /health answered`, async () => {
    upstream.reply(hugeWhole(engine, HUGE));
    const o = await measure(gateways.get(engine)!, whole);
    report(`${engine}, whole ${HUGE / MB} MB`, o);
    expectCapped(o, false, CAP);
  }, 120_000);

  it("a stream of text that never ends: an error event naming the cap, RSS bounded, /health answered", async () => {
    upstream.reply(endlessText(engine));
    const o = await measure(gateways.get(engine)!, streamed);
    report(`${engine}, endless text stream`, o);
    expectCapped(o, true, CAP);
  }, 120_000);
});

describe("an openai upstream's other ways of sending too much", () => {
  const g = () => gateways.get("openai")!;
  it("a whole answer whose Content-Length is over the cap: 502 naming the cap", async () => {
    upstream.reply(hugeWhole("openai", HUGE, true));
    const o = await measure(g(), whole);
    report("declared length", o);
    expectCapped(o, false, CAP);
  }, 120_000);

  it("one stream event of hundreds of MB: an error naming the cap", async () => {
    let i = 0;
    upstream.reply(
      sse(() => (i++ === 0 ? 'data: {"choices":[{"index":0,"delta":{"content":"' : FILLER.toString("latin1"))),
    );
    const o = await measure(g(), streamed);
    report("giant event", o);
    expectCapped(o, true, CAP);
  }, 120_000);

  it("comments without end (no event): an error naming the cap", async () => {
    upstream.reply(sse(() => `: keep-alive ${"x".repeat(1000)}\n\n`));
    const o = await measure(g(), streamed);
    report("endless comments", o);
    expectCapped(o, true, CAP);
  }, 120_000);

  it("empty events without end: an error naming the bound on events", async () => {
    const empty = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: null }] })}\n\n`;
    upstream.reply(sse(() => empty));
    const o = await measure(g(), streamed);
    report("endless empty events", o);
    expectCapped(
      o,
      true,
      /more than 1,824 stream events \(8 for each of the answer's tokens, max_tokens within the context size, \+ 1,024\)/,
    );
  }, 120_000);
});

describe("answers within the cap", () => {
  it("a whole and a streamed answer of max_tokens × 64 bytes pass, on every engine", async () => {
    const text = "b".repeat(ask.max_tokens * 64);
    for (const engine of ENGINES) {
      const api = client(gateways.get(engine)!.url, { decode: ask.max_tokens });
      const { head, tail } = SHAPES[engine];
      upstream.reply({ write: (res) => void res.writeHead(200).end(head + text + tail) });
      const r = await api.chat.completions.create(ask);
      expect(r.choices[0]!.message.content, engine).toBe(text);
      let soFar = "";
      const events = [...text.match(/.{1,100}/g)!].map((t) => `data: ${SHAPES[engine].event(t, (soFar += t))}\n\n`);
      const end: Record<EngineName, string> = {
        openai: `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
        "llama-server": `data: ${JSON.stringify({ content: "", stop: true, stop_type: "eos" })}\n\n`,
        vllm: `data: ${JSON.stringify({ choices: [{ index: 0, text: "", finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
        sglang: `data: ${JSON.stringify({ text: soFar, meta_info: { finish_reason: { type: "stop" } } })}\n\ndata: [DONE]\n\n`,
      };
      upstream.reply({ write: (res) => void res.writeHead(200).end(events.join("") + end[engine]) });
      let streamedText = "";
      for await (const c of await api.chat.completions.create({ ...ask, stream: true }))
        streamedText += c.choices[0]?.delta.content ?? "";
      expect(streamedText, engine).toBe(text);
    }
  }, 120_000);

  it("maxBodyBytes sets another cap, named in the 502", async () => {
    const small = await startServer({
      port: 0,
      upstreams: { urls: [upstream.origin], engine: "openai", maxBodyBytes: 1000 },
    });
    try {
      upstream.answer({ content: "c".repeat(2000) });
      const err = await client(small.url, { decode: ask.max_tokens })
        .chat.completions.create(ask)
        .then(
          () => undefined,
          (e: unknown) => e as { status: number; message: string },
        );
      expect(err?.status).toBe(502);
      expect(err?.message).toMatch(/over the gateway's cap of 1,000 bytes on an upstream answer \(maxBodyBytes/);
    } finally {
      await small.close();
    }
  });
});

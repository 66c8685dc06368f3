// Slow and idle clients against the real server, over raw sockets: headers that trickle in, a body
// sent a byte at a time, a connection that says nothing, a keep-alive connection left open — each is
// answered 408 (or closed) once its timeout passes; a request answered after every timeout has
// fired on other connections is still answered in full; beyond maxConnections a new connection is
// closed at once, and a request is served again once one closes. The timeouts are small here
// (hundreds of ms); the defaults are in docs/server.md. Nothing is timed: what happened first is
// shown by the order of events.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type net from "node:net";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { IM_END } from "../support/server-fixtures.js";
import { httpRequest, rawExchange, requestText, trickle } from "../support/raw-http.js";
import { fetchWithin, NO_TOKENS, TEST_MODEL_CONTEXT } from "../support/timeouts.js";
import { until } from "../support/until.js";

const HEADERS_TIMEOUT = 300;
const REQUEST_TIMEOUT = 600;
const IDLE_TIMEOUT = 300;
const CAP = 3;

let model: LlamaModel;
let server: ToolmaskServer;
let capped: ToolmaskServer;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({
    model,
    port: 0,
    headersTimeout: HEADERS_TIMEOUT,
    requestTimeout: REQUEST_TIMEOUT,
    idleTimeout: IDLE_TIMEOUT,
  });
  // Long timeouts: the connections held open to fill the cap must not be closed by them.
  capped = await startServer({
    model,
    port: 0,
    maxConnections: CAP,
    headersTimeout: 60_000,
    requestTimeout: 60_000,
    idleTimeout: 60_000,
  });
});
afterAll(async () => {
  await server?.close();
  await capped?.close();
  model?.dispose();
});

const CHAT = "/v1/chat/completions";
const health = async (s: ToolmaskServer) =>
  ((await (await fetchWithin(NO_TOKENS, `${s.url}/health`)).json()) as { slots: { busy: number; queued: number } })
    .slots;
const short = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 2 });

/** A request over a fresh connection that is closed after it (so it holds no slot of the cap). */
const once = (to: ToolmaskServer, body = short) =>
  httpRequest(to.url, {
    path: CHAT,
    body,
    headers: { "content-type": "application/json", connection: "close" },
    agent: false,
  });

function expectTimeoutAnswer(r: Awaited<ReturnType<typeof rawExchange>>): void {
  expect(r.status, r.text).toBe(408);
  expect(r.headers["content-type"]).toMatch(/application\/json/);
  expect(r.json).toMatchObject({ error: { type: "invalid_request_error", code: "request_timeout", param: null } });
  expect((r.json as { error: { message: string } }).error.message).toMatch(/headersTimeout.*requestTimeout/);
}

describe("timeouts", () => {
  it("30 clients trickling headers are each answered 408 and closed once headersTimeout passes", async () => {
    const all = await Promise.all(
      Array.from({ length: 30 }, () =>
        rawExchange(server.url, (s) => {
          s.write(`POST ${CHAT} HTTP/1.1\r\nHost: localhost\r\n`);
          // A header line every 50 ms: the connection is never idle, but the headers never end.
          return trickle(s, "X-Slow: yes\r\n", 50);
        }),
      ),
    );
    for (const r of all) expectTimeoutAnswer(r);
    expect((await once(server)).status).toBe(200);
  });

  it("10 bodies sent a byte at a time are each answered 408 once requestTimeout passes", async () => {
    const all = await Promise.all(
      Array.from({ length: 10 }, () =>
        rawExchange(server.url, (s) => {
          s.write(
            `POST ${CHAT} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
          );
          return trickle(s, " ", 50);
        }),
      ),
    );
    for (const r of all) expectTimeoutAnswer(r);
    expect((await once(server)).status).toBe(200);
  });

  it("50 connections that send nothing are closed once headersTimeout passes", async () => {
    const all = await Promise.all(Array.from({ length: 50 }, () => rawExchange(server.url, () => {})));
    for (const r of all) {
      expect(r.ended).toBe("closed");
      if (r.status !== undefined) expectTimeoutAnswer(r);
    }
    expect((await once(server)).status).toBe(200);
  });

  it("a keep-alive connection is closed once it has been idle for idleTimeout after its answer", async () => {
    const r = await rawExchange(server.url, (s) => {
      s.write(requestText(server.url, "GET", "/health"));
    });
    expect(r.status).toBe(200);
    expect(r.headers.connection).toBe("keep-alive");
    expect(r.responses).toBe(1);
    expect(r.ended).toBe("closed");
  });

  it("a non-streamed request answered after every timeout has fired elsewhere, on a reused connection, is answered in full", async () => {
    // One slot, held by a stream until the timeouts have shown themselves on other connections;
    // the request under test waits for it on a keep-alive connection (its body received), then
    // decodes. Its answer comes after connections left idle, trickling headers and trickling a
    // body were each closed by their timeout: had one applied to a request being answered, it
    // would have cut this one. Shown by the order of events, not by a clock.
    const one = await startServer({
      model,
      port: 0,
      parallel: 1,
      headersTimeout: HEADERS_TIMEOUT,
      requestTimeout: REQUEST_TIMEOUT,
      idleTimeout: IDLE_TIMEOUT,
    });
    const holder = new AbortController();
    try {
      const held = fetchWithin({ decode: TEST_MODEL_CONTEXT }, `${one.url}${CHAT}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          messages: [{ role: "user", content: "go on" }],
          max_tokens: 100_000,
          stream: true,
        }),
        signal: holder.signal,
      })
        .then(async (r) => {
          for await (const _ of r.body!);
        })
        .catch(() => {});
      await until(async () => (await health(one)).busy === 1);

      const tokens = 50;
      // <|im_end|> refused: the model writes all 50 tokens.
      const body = JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: "write" }],
        max_tokens: tokens,
        logit_bias: { [IM_END]: -100 },
      });
      let asked = 0;
      const answered = rawExchange(one.url, (s: net.Socket) => {
        s.write(requestText(one.url, "GET", "/health"));
        s.on("data", () => {
          if (asked++ === 0)
            s.write(
              requestText(one.url, "POST", CHAT, { "content-type": "application/json", connection: "close" }, body),
            );
        });
      });
      await until(async () => (await health(one)).queued === 1);
      const timedOut = await Promise.all([
        // Keep-alive, idle after its answer (Node adds up to 1 s to idleTimeout).
        rawExchange(one.url, (s) => void s.write(requestText(one.url, "GET", "/health"))),
        // Headers that never end (headersTimeout).
        rawExchange(one.url, (s) => {
          s.write(`POST ${CHAT} HTTP/1.1\r\nHost: localhost\r\n`);
          return trickle(s, "X-Slow: yes\r\n", 50);
        }),
        // A body that never ends (requestTimeout).
        rawExchange(one.url, (s) => {
          s.write(
            `POST ${CHAT} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
          );
          return trickle(s, " ", 50);
        }),
      ]);
      expect(timedOut.map((r) => [r.status, r.ended])).toEqual([
        [200, "closed"],
        [408, "closed"],
        [408, "closed"],
      ]);
      // Every timeout has fired; the request under test is still waiting, its connection open.
      expect(await health(one)).toMatchObject({ busy: 1, queued: 1 });
      holder.abort();
      await held;

      const r = await answered;
      expect(r.responses, r.text.slice(0, 500)).toBe(2);
      const second = r.text.slice(r.text.indexOf("HTTP/1.1", 10));
      expect(second).toMatch(/^HTTP\/1\.1 200/);
      const answer = JSON.parse(second.slice(second.indexOf("\r\n\r\n") + 4)) as {
        usage: { completion_tokens: number };
        choices: Array<{ finish_reason: string }>;
      };
      expect(answer.usage.completion_tokens).toBe(tokens);
      expect(answer.choices[0]!.finish_reason).toBe("length");
    } finally {
      holder.abort();
      await one.close();
    }
  });
});

describe("connection cap", () => {
  it(`beyond maxConnections (${CAP}) a new connection is closed at once, and a request is served once one closes`, async () => {
    const held: net.Socket[] = [];
    const holders = Array.from({ length: CAP }, () =>
      rawExchange(capped.url, (s) => {
        held.push(s);
      }),
    );
    // Each held connection has been accepted: the server answers a request on it.
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (held.length === CAP) {
          clearInterval(t);
          resolve();
        }
      }, 10);
    });
    const answered = await Promise.all(
      held.map(
        (s) =>
          new Promise<string>((resolve) => {
            s.once("data", (d: Buffer | string) => resolve(String(d)));
            s.write(requestText(capped.url, "GET", "/health"));
          }),
      ),
    );
    for (const a of answered) expect(a).toMatch(/^HTTP\/1\.1 200/);

    const refused = await rawExchange(capped.url, (s) => {
      s.write(requestText(capped.url, "GET", "/health"));
    });
    expect(refused.status).toBeUndefined();
    expect(refused.text).toBe("");

    held[0]!.destroy();
    await holders[0];
    // The server counts the closed connection when its own end of it closes: a few tries at most.
    let served: { status: number; body: string } | undefined;
    for (let i = 0; i < 50 && !served; i++) {
      served = await once(capped).catch(() => undefined);
      if (!served) await new Promise((r) => setTimeout(r, 20));
    }
    expect(served?.status).toBe(200);
    expect(JSON.parse(served!.body)).toMatchObject({ object: "chat.completion" });
    for (const s of held) s.destroy();
    await Promise.all(holders);
  });
});

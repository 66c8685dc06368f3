// A gateway whose every upstream is down: /health says 503 "no_upstream" (a load balancer in front
// of several gateways takes it out), and a request gets 502 upstream_error through the real openai
// client, naming each upstream tried, never a 500 or a hang; the gateway still serves /health after.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { fetchWithin, NO_TOKENS, timeoutFor } from "../support/timeouts.js";

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

let gateway: ToolmaskServer;
let urls: string[];
beforeAll(async () => {
  urls = [`http://127.0.0.1:${await closedPort()}`, `http://127.0.0.1:${await closedPort()}`];
  gateway = await startServer({ port: 0, upstreams: { urls, engine: "openai", healthInterval: 100 } });
});
afterAll(async () => {
  await gateway?.close();
});

describe("a gateway with no upstream up", () => {
  it("/health: 503 no_upstream, each upstream unhealthy", async () => {
    const r = await fetchWithin(NO_TOKENS, `${gateway.url}/health`);
    expect(r.status).toBe(503);
    const body = (await r.json()) as { status: string; upstreams: Array<{ url: string; healthy: boolean }> };
    expect(body.status).toBe("no_upstream");
    expect(body.upstreams).toEqual(urls.map((url) => ({ url, healthy: false, outstanding: 0 })));
  });

  it("a chat request: 502 upstream_error naming every upstream tried", async () => {
    // No upstream answers: nothing is decoded.
    const api = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: "x",
      maxRetries: 0,
      timeout: timeoutFor(NO_TOKENS),
    });
    const err = await api.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }).then(
      () => undefined,
      (e: unknown) => e as { status: number; code: string; message: string },
    );
    expect(err?.status).toBe(502);
    expect(err?.code).toBe("upstream_error");
    for (const u of urls) expect(err?.message).toContain(u);
    expect((await fetchWithin(NO_TOKENS, `${gateway.url}/health`)).status).toBe(503);
  });
});

// Upstream URLs a gateway would take and then never reach: a port Node's fetch refuses (the Fetch
// standard's "bad ports": every request was then 502 "fetch failed"), and an OpenAI client's base
// URL, http://host:port/v1 (the health check asked /v1/v1/models and every request failed). A bad
// port is refused at start (startServer and `toolmask serve`) with the reason; the /v1 form is
// taken as the server's root; a route in the URL is refused saying what to write.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BAD_PORTS } from "../../src/gateway/upstream-url.js";
import { startServer } from "../../src/server/index.js";
import { serveCommand } from "../../src/server/cli.js";
import { client } from "../support/server-fixtures.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";
import { fetchWithin, NO_TOKENS } from "../support/timeouts.js";

async function serve(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await serveCommand(argv, {
    out: { write: (s: string) => out.push(s) },
    err: { write: (s: string) => err.push(s) },
  });
  return { code, err: err.join("") };
}

/** What Node's own fetch says about `port` (the cause of its "fetch failed"), or "" when it got through. */
async function fetchCause(port: number): Promise<string> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) });
    await r.body?.cancel();
    return "";
  } catch (err) {
    return String((err as { cause?: Error }).cause?.message ?? (err as Error).message);
  }
}

describe("ports Node's fetch refuses", () => {
  it("the list is the one Node's fetch applies: each listed port refused as a bad port, its neighbours not", async () => {
    expect(BAD_PORTS).toEqual(expect.arrayContaining([6000, 10080, 5060, 6665, 6666, 6667, 6668, 6669]));
    for (const port of BAD_PORTS) expect(await fetchCause(port), `port ${port}`).toBe("bad port");
    const neighbours = [...new Set(BAD_PORTS.flatMap((p) => [p - 1, p + 1]))].filter(
      (p) => p > 0 && !BAD_PORTS.includes(p),
    );
    for (const port of neighbours) expect(await fetchCause(port), `port ${port}`).not.toBe("bad port");
  }, 120_000);

  it.each([6000, 10080, 5060, 6665, 6669])(
    "port %i: startServer and toolmask serve refuse it, saying why",
    async (port) => {
      const url = `http://127.0.0.1:${port}`;
      const why = new RegExp(`port ${port}, which Node's fetch refuses .*bad port.*serve the engine on another port`);
      await expect(startServer({ port: 0, upstreams: { urls: [url], engine: "openai" } })).rejects.toThrow(why);
      const r = await serve(["--upstream", url, "--engine", "openai", "--port", "0"]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(why);
    },
  );
});

describe("an upstream given as an OpenAI client's base URL (…/v1)", () => {
  let upstream: ScriptedOpenAI;
  beforeAll(async () => {
    upstream = await ScriptedOpenAI.start({ health: true });
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it.each(["", "/"])(
    "http://host:port/v1%s is the server's root: healthy, and requests are answered",
    async (slash) => {
      const gateway = await startServer({
        port: 0,
        upstreams: { urls: [`${upstream.baseURL}${slash}`], engine: "openai", healthInterval: 100 },
      });
      try {
        const health = (await (await fetchWithin(NO_TOKENS, `${gateway.url}/health`)).json()) as {
          status: string;
          upstreams: Array<{ url: string; healthy: boolean }>;
        };
        expect(health.status).toBe("ok");
        expect(health.upstreams).toEqual([{ url: upstream.origin, healthy: true, outstanding: 0 }]);
        upstream.answer({ content: "hello" });
        const r = await client(gateway.url, NO_TOKENS).chat.completions.create({
          model: "m",
          messages: [{ role: "user", content: "hi" }],
        });
        expect(r.choices[0]!.message.content).toBe("hello");
        expect(upstream.requests.at(-1)!.path).toBe("/v1/chat/completions");
      } finally {
        await gateway.close();
      }
    },
  );

  it.each([
    ["/v1/chat/completions", "http://127.0.0.1:8081"],
    ["/completion", "http://127.0.0.1:8081"],
    ["/generate", "http://127.0.0.1:8081"],
    ["/health", "http://127.0.0.1:8081"],
  ])("a URL ending in the route %s is refused, saying to give %s", async (route, root) => {
    const url = `http://127.0.0.1:8081${route}`;
    const why = `give the server's root (${root}); the gateway adds the route`;
    await expect(startServer({ port: 0, upstreams: { urls: [url], engine: "openai" } })).rejects.toThrow(why);
    const r = await serve(["--upstream", url, "--engine", "openai", "--port", "0"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(why);
  });
});

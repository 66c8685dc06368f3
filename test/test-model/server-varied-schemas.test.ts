// Serial requests, each with a tool schema of its own (`s` a string of maxLength 50 + i, `n` an
// integer, both required, tool_choice "required", max_tokens 2 more than the shortest call takes),
// through the real openai client: the load that crashed the server (a generation's promise resolved
// twice, SIGSEGV in napi_resolve_deferred, after 54-350 requests). Every request is answered 200
// with an honest finish: "length" and no call where the call was cut, "tool_calls" with a call that
// holds both arguments where it fit, and the server still answers afterwards. Memory stays
// flat once the grammar cache is full: grammars of finished generations are freed (a finished
// job used to hold its grammar until garbage collection took the JS abort() closure: +1 GB over
// 350 requests).
// TOOLMASK_VARIED_REQUESTS sets the count: 300 here, 400 under ASan (each decodes up to the shortest call + 2 tokens: 1,000 of them ran past 15 minutes there) in `npm run test:native:sanitize`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { DEFAULT_GRAMMAR_CACHE_BYTES, setGrammarCacheBytes } from "../../src/grammar/cache.js";
import { testModelPath } from "../support/test-model.js";
import { WANTS_TO_CALL, client } from "../support/server-fixtures.js";
import { shortestCallTokens } from "../support/generation-checks.js";
import { fetchWithin, NO_TOKENS, timeoutFor } from "../support/timeouts.js";

const REQUESTS = Number(process.env.TOOLMASK_VARIED_REQUESTS ?? 300);
/** A request decodes max_tokens: the shortest call + 2, at most 64 (checked below). */
const TEST = { timeout: timeoutFor({ decode: 64 * REQUESTS, requests: REQUESTS }) };

let model: LlamaModel;
let server: ToolmaskServer;
beforeAll(async () => {
  setGrammarCacheBytes(32 * 1024 * 1024);
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder" });
});
afterAll(async () => {
  setGrammarCacheBytes(DEFAULT_GRAMMAR_CACHE_BYTES);
  await server?.close();
  model?.dispose();
});

describe("the server under requests that each bring a new tool schema", () => {
  it(`answers ${REQUESTS} of them in a row and stays up`, TEST, async () => {
    const finishes = new Map<string, number>();
    const tools = (i: number) => [
      {
        type: "function" as const,
        function: {
          name: "f",
          parameters: {
            type: "object",
            properties: { s: { type: "string", maxLength: 50 + i }, n: { type: "integer" } },
            required: ["s", "n"],
          },
        },
      },
    ];
    const maxTokens = shortestCallTokens(model, "qwen3-coder", tools(0)) + 2;
    expect(maxTokens).toBeLessThanOrEqual(64);
    const api = client(server.url, { decode: maxTokens });
    let rssAfterWarmup = 0;
    for (let i = 0; i < REQUESTS; i++) {
      if (i === 50) rssAfterWarmup = process.memoryUsage().rss;
      const r = await api.chat.completions.create({
        model: "test",
        messages: [{ role: "user", content: `request ${i}` }],
        max_tokens: maxTokens,
        tool_choice: "required",
        logit_bias: WANTS_TO_CALL,
        seed: i,
        tools: tools(i),
      });
      const finish = r.choices[0]!.finish_reason;
      finishes.set(finish, (finishes.get(finish) ?? 0) + 1);
      const calls = r.choices[0]!.message.tool_calls ?? [];
      if (finish === "length") expect(calls, `request ${i}: a cut call is not shipped`).toEqual([]);
      else {
        expect(finish, `request ${i}`).toBe("tool_calls");
        const args = JSON.parse((calls[0] as { function: { arguments: string } }).function.arguments);
        expect(
          typeof args.s === "string" && args.s.length <= 50 + i && Number.isInteger(args.n),
          `request ${i}: ${JSON.stringify(args)}`,
        ).toBe(true);
      }
    }
    expect((finishes.get("length") ?? 0) + (finishes.get("tool_calls") ?? 0)).toBe(REQUESTS);
    const grown = (process.memoryUsage().rss - rssAfterWarmup) / 2 ** 20;
    expect(grown, `RSS grew ${grown.toFixed(0)} MB after the cache (32 MiB) filled`).toBeLessThan(250);
    const health = await fetchWithin(NO_TOKENS, `${server.url}/health`);
    expect(health.status).toBe(200);
  });
});

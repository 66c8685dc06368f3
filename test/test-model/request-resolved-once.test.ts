// A request's tools are normalised once (normalizeTools, the names and schemas checked and the
// parameters read) and its grammar built once, whatever path the request takes: generate() whole
// and streamed, the chat route on a loaded model, and a gateway in front of llama-server (the
// grammar sent, the answer parsed) or an OpenAI-compatible engine (the structured calls verified).
// On the code before the request was resolved once (74994f5) these counted 3 normalisations (4 or
// 5 through llama-server) and 2 or 3 grammars through llama-server.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const counts = vi.hoisted(() => ({ normalizeTools: 0, buildToolGrammar: 0 }));
/** `f`, counted in counts[key]. */
const counting = vi.hoisted(() => <A extends unknown[], R>(key: string, f: (...a: A) => R) => (...a: A): R => {
  (counts as Record<string, number>)[key]!++;
  return f(...a);
});
vi.mock("../../src/dialects/tools.js", async (importOriginal) => {
  const m = await importOriginal<typeof import("../../src/dialects/tools.js")>();
  return { ...m, normalizeTools: counting("normalizeTools", m.normalizeTools) };
});
vi.mock("../../src/dialects/grammar.js", async (importOriginal) => {
  const m = await importOriginal<typeof import("../../src/dialects/grammar.js")>();
  return { ...m, buildToolGrammar: counting("buildToolGrammar", m.buildToolGrammar) };
});

import { generate, generateStream, loadModel, type LlamaModel } from "../../src/index.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { fetchWithin, timeoutForTokens } from "../support/timeouts.js";

const tools = [
  {
    type: "function",
    function: {
      name: "pick",
      parameters: { type: "object", properties: { n: { type: "integer", enum: [1, 2] } }, required: ["n"] },
    },
  },
  { type: "function", function: { name: "ping", parameters: { type: "object", properties: {} } } },
];
const CALL = '<tool_call>\n{"name": "pick", "arguments": {"n": 1}}\n</tool_call>';

let model: LlamaModel;
let upstream: Server;
const servers: Record<string, ToolmaskServer> = {};
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1, contextSize: 512, parallel: 1 });
  // Every answer is one call to pick: as text (llama-server's /completion) and structured (OpenAI's).
  upstream = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.method === "GET") return res.end(JSON.stringify({ data: [{ id: "up" }] }));
      const call = { index: 0, id: "c0", type: "function", function: { name: "pick", arguments: '{"n": 1}' } };
      res.end(
        JSON.stringify({
          content: CALL,
          stop: true,
          stop_type: "eos",
          tokens_predicted: 1,
          tokens_evaluated: 1,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: null, tool_calls: [call] },
              finish_reason: "tool_calls",
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  servers.local = await startServer({ model, port: 0, dialect: "hermes" });
  servers["llama-server"] = await startServer({
    port: 0,
    upstreams: { urls: [url], engine: "llama-server", tokenizer: testModelPath(), healthInterval: 100 },
  });
  servers.openai = await startServer({ port: 0, upstreams: { urls: [url], engine: "openai", healthInterval: 100 } });
});
afterAll(async () => {
  for (const s of Object.values(servers)) await s.close();
  await new Promise((r) => upstream?.close(r));
  model?.dispose();
});

const MAX_TOKENS = 32;
const options = (toolChoice: "auto" | "required") => ({
  messages: [{ role: "user" as const, content: "pick one" }],
  tools,
  dialect: "hermes",
  toolChoice,
  maxTokens: MAX_TOKENS,
});

async function counted(run: () => Promise<unknown>): Promise<typeof counts> {
  for (const k of Object.keys(counts) as Array<keyof typeof counts>) counts[k] = 0;
  await run();
  return { ...counts };
}

describe.each(["auto", "required"] as const)("tool_choice %s", (toolChoice) => {
  it(
    "generate(): the tools are normalised once, the grammar built once",
    async () => {
      const n = await counted(() => generate(model, options(toolChoice)));
      expect(n).toEqual({ normalizeTools: 1, buildToolGrammar: 1 });
    },
    timeoutForTokens(MAX_TOKENS),
  );

  it(
    "generateStream(): the tools are normalised once, the grammar built once",
    async () => {
      const n = await counted(async () => {
        for await (const _ of generateStream(model, options(toolChoice)));
      });
      expect(n).toEqual({ normalizeTools: 1, buildToolGrammar: 1 });
    },
    timeoutForTokens(MAX_TOKENS),
  );

  it.each(["local", "llama-server", "openai"])(
    "POST /v1/chat/completions (%s): the tools are normalised once, each grammar built once",
    async (server) => {
      const n = await counted(async () => {
        const r = await fetchWithin({ decode: MAX_TOKENS }, `${servers[server]!.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: "m",
            messages: [{ role: "user", content: "pick one" }],
            tools,
            tool_choice: toolChoice,
            max_tokens: MAX_TOKENS,
          }),
        });
        expect(r.status).toBe(200);
        const body = (await r.json()) as { choices: Array<{ message: { tool_calls?: unknown[] } }> };
        if (server !== "local") expect(body.choices[0]!.message.tool_calls).toHaveLength(1);
      });
      // One grammar: the one masked with, sent, or (verify-only) whose schemas were checked; llama-server's
      // lazy grammar under tool_choice auto is a second (the calls alone).
      const grammars = server === "llama-server" && toolChoice === "auto" ? 2 : 1;
      expect(n).toEqual({ normalizeTools: 1, buildToolGrammar: grammars });
    },
    timeoutForTokens(MAX_TOKENS),
  );
});

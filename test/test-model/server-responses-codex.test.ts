// What Codex CLI 0.171.0 sends to POST /v1/responses (test/support/codex-request.ts builds requests
// of its shape), through the real openai client against the server on the random-weight test
// model: the fields and headers it adds are accepted; its namespace, hosted, tool_search and custom
// tools each come back as Codex reads them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import type { ResponseCreateParamsStreaming, ResponseStreamEvent } from "openai/resources/responses/responses";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { CODEX_HEADERS, codexTurn, execCommand } from "../support/codex-request.js";
import { client } from "../support/server-fixtures.js";
import { responsesProtocolProblems } from "../support/stream-protocol.js";
import { testModelPath } from "../support/test-model.js";
import type { Work } from "../support/timeouts.js";

let model: LlamaModel;
let server: ToolmaskServer;
let api: OpenAI;
/** Requests here decode at most 24 tokens. */
const REQUEST: Work = { decode: 24 };
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0 });
  api = client(server.url, REQUEST);
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

async function events(params: ResponseCreateParamsStreaming): Promise<ResponseStreamEvent[]> {
  const out: ResponseStreamEvent[] = [];
  for await (const e of await api.responses.create(params, { headers: CODEX_HEADERS })) out.push(e);
  return out;
}

describe("Codex's fields and headers", () => {
  it("client_metadata, prompt_cache_key, include, reasoning.summary, text.verbosity, store and the x-codex-* headers: accepted", async () => {
    const seen = await events(codexTurn([execCommand], { max_output_tokens: 8 }));
    expect(responsesProtocolProblems(seen)).toEqual([]);
    expect(seen.at(-1)?.type).toMatch(/^response\.(completed|incomplete)$/);
    const done = seen.at(-1) as unknown as { response: { reasoning: unknown; store: boolean } };
    expect(done.response.reasoning).toEqual({ effort: "medium", summary: "auto" });
    expect(done.response.store).toBe(false);
  });

  it("client_metadata that is not an object of strings is a 400 naming it", async () => {
    for (const bad of [[1], { turn: 7 }, "x"]) {
      const err = await events(codexTurn([execCommand], { max_output_tokens: 2, client_metadata: bad })).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ status: 400, error: { param: "client_metadata", code: "invalid_type" } });
    }
  });
});

// A server's default temperature (`toolmask serve --temperature T`, startServer({ temperature })):
// a request that sends none samples at T, a request's own temperature wins, and a bad value is
// refused before the server starts. Clients such as Claude Code send no temperature, so this is
// how a user makes their answers greedy. On the random test model, 24 tokens of a JSON string sampled at 0.8 (the
// engine's default) and greedy differ; the same request at the same temperature gives the same
// tokens (seed 0).
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutFor, type Work } from "../support/timeouts.js";

const ANSWER: Work = { decode: 24, model: "test-model" };
let model: LlamaModel;
let greedyServer: ToolmaskServer;
let defaultServer: ToolmaskServer;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  greedyServer = await startServer({ model, port: 0, temperature: 0 });
  defaultServer = await startServer({ model, port: 0 });
});
afterAll(async () => {
  await greedyServer?.close();
  await defaultServer?.close();
  model?.dispose();
});

async function answer(server: ToolmaskServer, temperature?: number): Promise<string> {
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "k", timeout: timeoutFor(ANSWER), maxRetries: 0 });
  const r = await client.chat.completions.create({
    model: "test-model",
    messages: [{ role: "user", content: "Say something." }],
    max_tokens: 24,
    // The format makes the random model write tokens (alone it may end at once): a string's text.
    response_format: {
      type: "json_schema",
      json_schema: {
        name: "note",
        schema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
      },
    },
    ...(temperature !== undefined ? { temperature } : {}),
  });
  return r.choices[0]!.message.content ?? "";
}

describe("the server's default temperature", () => {
  it(
    "applies to a request that sends none; a request's own temperature wins",
    async () => {
      const greedy = await answer(defaultServer, 0);
      const sampled = await answer(defaultServer);
      expect(sampled).not.toBe(greedy);
      expect(await answer(greedyServer)).toBe(greedy);
      expect(await answer(greedyServer, 0.8)).toBe(sampled);
    },
    4 * timeoutFor(ANSWER),
  );

  it.each([-0.1, 2.5, Number.NaN, "0" as unknown as number])("startServer refuses temperature %j", async (t) => {
    await expect(startServer({ model, port: 0, temperature: t })).rejects.toThrow(
      /temperature must be a number from 0 to 2/,
    );
  });
});

// Model aliases and CORS on every generation route (chat completions, Responses, Messages), through
// each API's real client: with aliases a request reaches the model under each of its names and the
// answer carries the name it used, an unknown name is a 404 in the route's error shape (the client's
// NotFoundError), /v1/models lists the names; without aliases any name is served. With CORS a
// browser's preflight from a listed origin is answered before the key check, whole and streamed
// answers carry Access-Control-Allow-Origin, an origin not listed gets none; without CORS a
// preflight is a 405 as before. startServer and the CLI refuse bad aliases and origins.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { serveCommand } from "../../src/server/cli.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { client, anthropicClient } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import { fetchWithin, NO_TOKENS, type Work } from "../support/timeouts.js";

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
});
afterAll(() => model?.dispose());

/** Every request here decodes at most 2 tokens. */
const REQUEST: Work = { decode: 2 };
const anthropic = (url: string, apiKey = "k") => anthropicClient(url, REQUEST, apiKey);

/** One short answer per API under `name`: the model name each answer carries. */
async function namesAnswered(s: ToolmaskServer, name: string, apiKey = "k"): Promise<string[]> {
  const oa = client(s.url, REQUEST, apiKey);
  const chat = await oa.chat.completions.create({
    model: name,
    max_tokens: 1,
    messages: [{ role: "user", content: "hi" }],
  });
  const resp = await oa.responses.create({ model: name, max_output_tokens: 1, input: "hi" });
  const msg = await anthropic(s.url, apiKey).messages.create({
    model: name,
    max_tokens: 1,
    messages: [{ role: "user", content: "hi" }],
  });
  return [chat.model, resp.model, msg.model];
}

describe("model aliases", () => {
  let s: ToolmaskServer;
  beforeAll(async () => {
    s = await startServer({ model, port: 0, modelId: "tiny", modelAliases: ["claude-sonnet-4-5", "gpt-5"] });
  });
  afterAll(() => s?.close());

  it("each name reaches the model on every API, and the answer carries it", async () => {
    for (const name of ["tiny", "claude-sonnet-4-5", "gpt-5"])
      expect(await namesAnswered(s, name)).toEqual([name, name, name]);
  });

  it("an unknown name: 404 model_not_found in each API's shape, naming what is served", async () => {
    const oa = client(s.url, REQUEST);
    const expected = /^The model 'o3' does not exist; this server serves 'tiny', 'claude-sonnet-4-5', 'gpt-5'/;
    for (const call of [
      () => oa.chat.completions.create({ model: "o3", max_tokens: 1, messages: [{ role: "user", content: "hi" }] }),
      () => oa.responses.create({ model: "o3", max_output_tokens: 1, input: "hi" }),
    ]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect((err as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({
        code: "model_not_found",
        param: "model",
        message: expect.stringMatching(expected),
      });
    }
    const err = await anthropic(s.url)
      .messages.create({ model: "o3", max_tokens: 1, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect((err as InstanceType<typeof Anthropic.NotFoundError>).error).toEqual({
      type: "error",
      error: { type: "not_found_error", message: expect.stringMatching(expected) },
    });
  });

  it("/v1/models lists every name; /v1/models/:id answers each", async () => {
    const oa = client(s.url, REQUEST);
    const ids = [];
    for await (const m of oa.models.list()) ids.push(m.id);
    expect(ids).toEqual(["tiny", "claude-sonnet-4-5", "gpt-5"]);
    expect((await oa.models.retrieve("gpt-5")).id).toBe("gpt-5");
    expect(await oa.models.retrieve("o3").catch((e: unknown) => e)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("without aliases any name is served, answered as the id", async () => {
    const plain = await startServer({ model, port: 0, modelId: "tiny" });
    try {
      expect(await namesAnswered(plain, "whatever")).toEqual(["tiny", "tiny", "tiny"]);
    } finally {
      await plain.close();
    }
  });

  it("bad aliases are refused by startServer and the CLI", async () => {
    await expect(startServer({ model, port: 0, modelAliases: [""] })).rejects.toThrow(
      /modelAliases must be an array of non-empty strings/,
    );
    await expect(startServer({ model, port: 0, modelAliases: ["a", "a"] })).rejects.toThrow(/names "a" twice/);
    await expect(startServer({ model, port: 0, modelId: "x", modelAliases: ["x"] })).rejects.toThrow(
      /the model id "x" itself/,
    );
    let err = "";
    const io = { out: { write: () => true }, err: { write: (t: string) => (err += t) } };
    expect(await serveCommand(["--model", "m.gguf", "--model-alias", "a,a"], io)).toBe(2);
    expect(err).toMatch(/--model-alias: names "a" twice/);
  });
});

describe("CORS", () => {
  const origin = "https://app.example";
  let s: ToolmaskServer;
  beforeAll(async () => {
    s = await startServer({ model, port: 0, apiKey: "k", cors: [origin, "http://localhost:3000"] });
  });
  afterAll(() => s?.close());

  const preflight = (url: string, path: string, from: string, headers = "authorization, content-type") =>
    fetchWithin(NO_TOKENS, `${url}${path}`, {
      method: "OPTIONS",
      headers: { origin: from, "access-control-request-method": "POST", "access-control-request-headers": headers },
    });

  it("a preflight from a listed origin: 204 before the key check, on every generation route", async () => {
    for (const path of ["/v1/chat/completions", "/v1/responses", "/v1/messages"]) {
      const r = await preflight(s.url, path, origin, "x-api-key, anthropic-version, content-type");
      expect(r.status).toBe(204);
      expect(r.headers.get("access-control-allow-origin")).toBe(origin);
      expect(r.headers.get("access-control-allow-methods")).toMatch(/POST/);
      expect(r.headers.get("access-control-allow-headers")).toBe("x-api-key, anthropic-version, content-type");
    }
  });

  it("answers whole and streamed carry the origin; a refusal too", async () => {
    const headers = { origin, "content-type": "application/json", authorization: "Bearer k" };
    const body = { model: "m", max_tokens: 2, messages: [{ role: "user", content: "hi" }] };
    for (const stream of [false, true]) {
      const r = await fetchWithin(REQUEST, `${s.url}/v1/chat/completions`, {
        method: "POST",
        headers,
        body: JSON.stringify({ ...body, stream }),
      });
      expect(r.status).toBe(200);
      expect(r.headers.get("access-control-allow-origin")).toBe(origin);
      expect(r.headers.get("vary")).toMatch(/Origin/i);
      await r.text();
    }
    const noKey = await fetchWithin(NO_TOKENS, `${s.url}/v1/responses`, {
      method: "POST",
      headers: { origin, "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("access-control-allow-origin")).toBe(origin);
  });

  it("an origin not listed gets no CORS headers: its preflight meets the key check (401)", async () => {
    const r = await preflight(s.url, "/v1/chat/completions", "https://evil.example");
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
    expect(r.status).toBe(401);
    const keyed = await fetchWithin(NO_TOKENS, `${s.url}/v1/messages`, {
      method: "OPTIONS",
      headers: { authorization: "Bearer k" },
    });
    expect(keyed.status).toBe(405);
  });

  it('"*" answers any origin; without cors a preflight is a 405 with no CORS headers', async () => {
    const any = await startServer({ model, port: 0, cors: ["*"] });
    const none = await startServer({ model, port: 0 });
    try {
      const r = await preflight(any.url, "/v1/responses", "https://anywhere.example");
      expect(r.status).toBe(204);
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
      const off = await preflight(none.url, "/v1/responses", origin);
      expect(off.status).toBe(405);
      expect(off.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await any.close();
      await none.close();
    }
  });

  it("bad origins are refused by startServer and the CLI", async () => {
    await expect(startServer({ model, port: 0, cors: ["app.example"] })).rejects.toThrow(
      /cors must be a non-empty array of origins/,
    );
    await expect(startServer({ model, port: 0, cors: [] })).rejects.toThrow(/cors must be a non-empty array/);
    let err = "";
    const io = { out: { write: () => true }, err: { write: (t: string) => (err += t) } };
    expect(await serveCommand(["--model", "m.gguf", "--cors", "https://a.example/path"], io)).toBe(2);
    expect(err).toMatch(/--cors needs origins as browsers send them/);
  });
});

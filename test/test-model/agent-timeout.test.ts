// Every model request has a deadline, with or without a caller's signal (issue #12, defect 12):
// an endpoint that never answers, a body that stops halfway and a loaded model that would decode
// for a minute each end the run with status error naming the limit, instead of hanging.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadModel, runAgent, type LlamaModel } from "../../src/index.js";
import { IM_END } from "../support/generation-checks.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";
import { testModelPath } from "../support/test-model.js";

describe("over HTTP", () => {
  let server: ScriptedOpenAI;
  beforeEach(async () => {
    server = await ScriptedOpenAI.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it("an endpoint that does not answer within requestTimeoutMs: status error naming the limit, no retry", async () => {
    server.reply({ body: {}, delayMs: 60_000 });
    const r = await runAgent({ client: { baseURL: server.baseURL }, prompt: "Go", requestTimeoutMs: 300 });
    expect(r.status).toBe("error");
    expect(r.error?.message).toMatch(/POST .*\/chat\/completions: no answer within requestTimeoutMs \(300 ms\)/);
    expect(r.messages).toEqual([{ role: "user", content: "Go" }]);
    expect(server.requests).toHaveLength(1);
  });

  it("the deadline is per request: a run whose requests each answer at once is not cut", async () => {
    server.answer({ calls: [{ name: "probe", id: "c1" }] }).answer({ content: "Done." });
    const probe = { name: "probe", execute: () => "ok" };
    const r = await runAgent({
      client: { baseURL: server.baseURL },
      tools: [probe],
      prompt: "Go",
      requestTimeoutMs: 60_000,
    });
    expect(r.status).toBe("completed");
  });

  it.each([0, -1, 1.5, 2 ** 31, Number.NaN])("requestTimeoutMs %s is refused before any request", async (ms) => {
    await expect(runAgent({ client: { baseURL: server.baseURL }, prompt: "Go", requestTimeoutMs: ms })).rejects.toThrow(
      /requestTimeoutMs must be/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe("a body that stops halfway", () => {
  let stalled: Server;
  let url = "";
  beforeAll(async () => {
    stalled = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"choices":[{"message":{"role":"assistant","content":"Half');
      });
    });
    await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    stalled.closeAllConnections();
    await new Promise<void>((resolve) => stalled.close(() => resolve()));
  });

  it("status error naming the limit, not a hang", async () => {
    const r = await runAgent({ client: { baseURL: url }, prompt: "Go", requestTimeoutMs: 300 });
    expect(r.status).toBe("error");
    expect(r.error?.message).toMatch(/requestTimeoutMs \(300 ms\)/);
  });
});

describe("a loaded model", () => {
  let model: LlamaModel;
  beforeAll(async () => {
    model = await loadModel({ path: testModelPath(), parallel: 1 });
  });
  afterAll(() => model?.dispose());

  it("a turn that would decode thousands of tokens: status error naming the limit, and decoding stopped", async () => {
    // <|im_end|> banned: the random weights write until maxTokens (~13 ms a token here: about a minute).
    const r = await runAgent({
      client: { model, generateOptions: { mask: false, logitBias: { [IM_END]: -100 } } },
      prompt: "Write a long story.",
      maxTokens: 4000,
      requestTimeoutMs: 300,
    });
    expect(r.status).toBe("error");
    expect(r.error?.message).toMatch(/requestTimeoutMs \(300 ms\)/);
    // One sequence only: a next run gets it only once the timed-out generation let it go.
    const next = await runAgent({
      client: { model, generateOptions: { mask: false, logitBias: { [IM_END]: 100 } } },
      prompt: "Stop.",
      maxTokens: 4,
      requestTimeoutMs: 60_000,
    });
    expect(next.status).toBe("completed");
  });
});

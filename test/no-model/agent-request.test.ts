// What each request asks of the provider (seed 002, #550), checked in the bodies the endpoint
// received: provider binding and usage on by default and switchable per agent, reasoning effort
// translated, no reasoning field when off; and the cost taken as reported, null when not.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent } from "../../src/index.js";
import type { RunAgentOptions } from "../../src/agent/types.js";
import { loggingTool, newLog } from "../support/agent-tools.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";

let server: ScriptedOpenAI;
beforeEach(async () => {
  server = await ScriptedOpenAI.start();
});
afterEach(async () => {
  await server.close();
});

/** One run answered "ok"; the body of its request. */
async function firstRequest(o: Partial<RunAgentOptions> = {}): Promise<any> {
  server.answer({ content: "ok" });
  const r = await runAgent({ client: { baseURL: server.baseURL }, prompt: "Go", ...o });
  expect(r.status).toBe("completed");
  return server.requests[0]!.body;
}

describe("#550 request options", () => {
  it("by default a provider that honours every parameter and usage reporting are requested", async () => {
    const body = await firstRequest();
    expect(body.provider).toEqual({ require_parameters: true });
    expect(body.usage).toEqual({ include: true });
  });

  it("provider binding can be switched off per agent (no provider field at all)", async () => {
    const body = await firstRequest({ requireProviderParameters: false });
    expect(body).not.toHaveProperty("provider");
    expect(body.usage).toEqual({ include: true });
  });

  it("usage reporting can be switched off per agent", async () => {
    const body = await firstRequest({ includeUsage: false });
    expect(body).not.toHaveProperty("usage");
  });

  it.each([undefined, "off", "OFF"])("reasoning effort %s sends no reasoning field", async (effort) => {
    const body = await firstRequest(effort === undefined ? {} : { reasoningEffort: effort });
    expect(body).not.toHaveProperty("reasoning");
    expect(server.requests[0]!.raw).not.toContain("reasoning");
  });

  it.each([
    ["high", { effort: "high" }],
    ["MAX", { effort: "max" }],
    ["4096", { max_tokens: 4096 }],
    [4096, { max_tokens: 4096 }],
  ] as const)("reasoning effort %j is sent as %j", async (effort, expected) => {
    const body = await firstRequest({ reasoningEffort: effort });
    expect(body.reasoning).toEqual(expected);
  });

  it("an effort it does not know is refused before any request, naming what it takes", async () => {
    await expect(
      runAgent({ client: { baseURL: server.baseURL }, prompt: "Go", reasoningEffort: "extreme" }),
    ).rejects.toThrow(/"extreme".*"high".*"4096"/);
    expect(server.requests).toHaveLength(0);
  });

  it("every request of the run carries the same options", async () => {
    server.answer({ calls: [{ name: "probe" }] }).answer({ content: "ok" });
    await runAgent({
      client: { baseURL: server.baseURL },
      tools: [loggingTool(newLog())],
      prompt: "Go",
      reasoningEffort: "MAX",
      requireProviderParameters: false,
    });
    for (const req of server.requests) {
      expect(req.body.reasoning).toEqual({ effort: "max" });
      expect(req.body).not.toHaveProperty("provider");
      expect(req.body.usage).toEqual({ include: true });
    }
  });

  it("model, key, instructions, tools and max_tokens go where an OpenAI-compatible server expects them", async () => {
    server.answer({ content: "ok" });
    await runAgent({
      client: { baseURL: `${server.baseURL}/`, apiKey: "sk-test", model: "some/model" },
      tools: [
        loggingTool(newLog(), {
          name: "read_file",
          parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        }),
      ],
      prompt: "Go",
      instructions: "Be brief.",
      maxTokens: 300,
    });
    const req = server.requests[0]!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.body.model).toBe("some/model");
    expect(req.body.max_tokens).toBe(300);
    expect(req.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Go" },
    ]);
    expect(req.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "read_file",
          description: "records its calls",
          parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
      },
    ]);
  });
});

describe("#550 reported cost", () => {
  it("the cost the provider reports is taken as it is", async () => {
    server.answer({
      content: "ok",
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cost: 0.0042 },
    });
    const r = await runAgent({ client: { baseURL: server.baseURL }, prompt: "Go" });
    expect(r.reportedCostUsd).toBe(0.0042);
    expect(r.usage).toEqual({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 });
  });

  it("no reported cost: null, never 0 (even when usage is reported)", async () => {
    server.answer({ content: "ok", usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } });
    const r = await runAgent({ client: { baseURL: server.baseURL }, prompt: "Go" });
    expect(r.reportedCostUsd).toBeNull();
    server.answer({ content: "ok" });
    expect((await runAgent({ client: { baseURL: server.baseURL }, prompt: "Go" })).reportedCostUsd).toBeNull();
  });

  it("over several responses: the sum when each reported one; null when one did not (a partial sum would understate)", async () => {
    const usage = (cost?: number) => ({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      ...(cost === undefined ? {} : { cost }),
    });
    const tools = [loggingTool(newLog())];
    server.answer({ calls: [{ name: "probe" }], usage: usage(0.25) }).answer({ content: "ok", usage: usage(0.5) });
    const all = await runAgent({ client: { baseURL: server.baseURL }, tools, prompt: "Go" });
    expect(all.reportedCostUsd).toBe(0.75);
    expect(all.usage.total_tokens).toBe(30);
    expect(all.turns.map((t) => t.reportedCostUsd)).toEqual([0.25, 0.5]);

    server.answer({ calls: [{ name: "probe" }], usage: usage(0.25) }).answer({ content: "ok", usage: usage() });
    const partial = await runAgent({ client: { baseURL: server.baseURL }, tools, prompt: "Go" });
    expect(partial.reportedCostUsd).toBeNull();
    expect(partial.turns.map((t) => t.reportedCostUsd)).toEqual([0.25, null]);
  });
});

describe("options that are no option", () => {
  it("a misspelt runAgent option is a TypeError naming the closest one, before any request", async () => {
    await expect(
      runAgent({ client: { baseURL: server.baseURL }, prompt: "Go", requestTimeout: 5 } as never),
    ).rejects.toThrow(/runAgent: unknown option "requestTimeout"; did you mean "requestTimeoutMs"\?/);
    expect(server.requests).toHaveLength(0);
  });
});

// runAgent end to end over HTTP: our OpenAI-compatible server on the random-weight test model,
// the agent's HTTP client talking to it. Per-turn request fields stand in for a model's wish to
// call first and to stop after (logit_bias, tool_choice); the server's mask makes the call whole.
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadModel, runAgent, type LlamaModel } from "../../src/index.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { IM_END, whitespaceTokenIds } from "../support/generation-checks.js";
import { WANTS_TO_CALL } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
let server: ToolmaskServer;
let noWhitespace: Record<number, number>;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder" });
  noWhitespace = Object.fromEntries(whitespaceTokenIds(model).map((id) => [id, -100]));
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

it("completes a tool round trip against our own server: the call over the wire, run, its result sent back", async () => {
  const seen: Array<Record<string, unknown>> = [];
  const r = await runAgent({
    client: {
      baseURL: `${server.url}/v1`,
      body: (turn) =>
        turn === 0
          ? { tool_choice: "required", temperature: 0, logit_bias: { ...noWhitespace, ...WANTS_TO_CALL } }
          : { tool_choice: "none", temperature: 0, logit_bias: { [IM_END]: 100 } },
    },
    tools: [
      {
        name: "get_weather",
        description: "The weather in a city",
        parameters: {
          type: "object",
          properties: { city: { type: "string", enum: ["Paris", "Rome", "Oslo"] } },
          required: ["city"],
        },
        execute: (args) => {
          seen.push(args);
          return `sunny in ${String(args.city)}`;
        },
      },
    ],
    prompt: "What is the weather in Paris?",
    maxTokens: 64,
    requireProviderParameters: false,
  });
  expect(r.status, JSON.stringify(r.error ?? null)).toBe("completed");
  expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  expect(seen).toHaveLength(1);
  expect(["Paris", "Rome", "Oslo"]).toContain(seen[0]!.city);
  const call = r.messages[1]!;
  if (call.role !== "assistant" || !call.tool_calls) throw new Error("the first answer has no calls");
  expect(call.tool_calls.map((c) => c.function.name)).toEqual(["get_weather"]);
  expect(r.messages[2]).toEqual({
    role: "tool",
    tool_call_id: call.tool_calls[0]!.id,
    content: `sunny in ${String(seen[0]!.city)}`,
  });
  // The server reported usage for both turns; the second prompt holds the call and its result.
  expect(r.turns).toHaveLength(2);
  expect(r.turns[1]!.usage!.prompt_tokens).toBeGreaterThan(r.turns[0]!.usage!.prompt_tokens);
  expect(r.reportedCostUsd).toBeNull();
});

it("refuses a body that is not an object of request fields", async () => {
  await expect(
    runAgent({ client: { baseURL: `${server.url}/v1`, body: "temperature=0" as never }, tools: [], prompt: "hi" }),
  ).rejects.toThrow(/client.body must be an object/);
});

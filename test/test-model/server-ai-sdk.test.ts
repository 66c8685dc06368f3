// The Vercel AI SDK (the real `ai` 6 and `@ai-sdk/openai-compatible` 2 packages) against the server
// on the random-weight test model: generateText and streamText with tools that run (each request
// both ways, the same steps, calls and runs), over several steps (each step's calls valid against their tool's schema, their results sent back as the
// next request's tool messages), a call cut by maxOutputTokens (no tool call, nothing executed: under
// toolChoice required the SDK raises its ToolChoiceViolationError, under auto the finish reason is
// length), and a bad request raised as the SDK's APICallError with our message. The
// logit bias that makes the random model call and stop goes as the provider's options, which the
// SDK adds to the request body.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, ToolChoiceViolationError, tool } from "ai";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { aiSdkBothWays } from "../support/both-ways.js";
import { callProblems, toolSet, WANTS_TO_CALL } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import { timedFetch } from "../support/timeouts.js";

let model: LlamaModel;
let server: ToolmaskServer;
let provider: ReturnType<typeof createOpenAICompatible>;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder" });
  // Each step decodes at most 64 tokens (maxOutputTokens).
  provider = createOpenAICompatible({
    name: "toolmask",
    baseURL: `${server.url}/v1`,
    includeUsage: true,
    fetch: timedFetch({ decode: 64 }),
  });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const chatTools = toolSet(4);
/** The tools as the AI SDK declares them, each recording the inputs it ran with. */
function sdkTools(ran: Array<{ name: string; input: unknown }>) {
  return Object.fromEntries(
    chatTools.map((t) => [
      t.function.name,
      tool({
        inputSchema: jsonSchema<Record<string, unknown>>(t.function.parameters),
        execute: async (input: Record<string, unknown>) => {
          ran.push({ name: t.function.name, input });
          return `ran ${t.function.name}`;
        },
      }),
    ]),
  );
}
const providerOptions = { toolmask: { logit_bias: WANTS_TO_CALL } };

interface StepLike {
  toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>;
  finishReason: string;
  request: { body?: unknown };
}
const asCalls = (s: StepLike) =>
  s.toolCalls.map((c) => ({
    id: c.toolCallId,
    type: "function",
    function: { name: c.toolName, arguments: JSON.stringify(c.input) },
  }));
/** The tool messages a step's request sent (the results of the step before). */
const toolMessagesSent = (s: StepLike) => {
  const body = (typeof s.request.body === "string" ? JSON.parse(s.request.body) : s.request.body) as {
    messages: Array<{ role: string; tool_call_id?: string; content: unknown }>;
  };
  return body.messages.filter((m) => m.role === "tool");
};

function checkSteps(steps: StepLike[], ran: Array<{ name: string; input: unknown }>): void {
  expect(steps.length).toBeGreaterThanOrEqual(2);
  const first = steps[0]!;
  expect(first.finishReason).toBe("tool-calls");
  expect(first.toolCalls.length).toBeGreaterThan(0);
  for (const s of steps) expect(callProblems(asCalls(s), chatTools)).toBe("");
  // Every call ran once, with the input the model gave.
  const called = steps.flatMap((s) => s.toolCalls.map((c) => ({ name: c.toolName, input: c.input })));
  expect(ran).toEqual(called.slice(0, ran.length));
  // The second request carried the first step's results, one tool message per call, by id.
  const sent = toolMessagesSent(steps[1]!);
  expect(sent.map((m) => m.tool_call_id)).toEqual(first.toolCalls.map((c) => c.toolCallId));
}

describe("the Vercel AI SDK (ai + @ai-sdk/openai-compatible)", () => {
  it("generateText (and streamText the same): tools run over several steps, each call valid, results sent back by id", async () => {
    const { result: r, ran } = await aiSdkBothWays(generateText, streamText, (ran) => ({
      model: provider.chatModel("anything"),
      prompt: "call a tool",
      tools: sdkTools(ran),
      toolChoice: "required",
      maxOutputTokens: 64,
      stopWhen: stepCountIs(3),
      providerOptions,
      maxRetries: 0,
    }));
    checkSteps(r.steps as unknown as StepLike[], ran);
    expect(r.steps.length).toBe(3);
    expect(ran.length).toBe(r.steps.flatMap((s) => s.toolCalls).length);
    expect(r.usage.inputTokens).toBeGreaterThan(100);
  });

  it("streamText: the same steps streamed; tool-call parts only for calls that ran", async () => {
    const ran: Array<{ name: string; input: unknown }> = [];
    const r = streamText({
      model: provider.chatModel("anything"),
      prompt: "call a tool",
      tools: sdkTools(ran),
      toolChoice: "required",
      maxOutputTokens: 64,
      stopWhen: stepCountIs(2),
      providerOptions,
      maxRetries: 0,
    });
    const parts: string[] = [];
    for await (const p of r.fullStream) {
      if (p.type === "error") throw p.error;
      parts.push(p.type);
    }
    const steps = (await r.steps) as unknown as StepLike[];
    checkSteps(steps, ran);
    const calls = steps.flatMap((s) => s.toolCalls);
    expect(parts.filter((t) => t === "tool-call").length).toBe(calls.length);
    expect(parts.filter((t) => t === "tool-result").length).toBe(ran.length);
    expect(parts.filter((t) => t === "finish-step").length).toBe(2);
  });

  it("a call cut by maxOutputTokens: no tool call and nothing run (required: the SDK's ToolChoiceViolationError)", async () => {
    const ask = (max: number, toolChoice: "required" | "auto", ran: Array<{ name: string; input: unknown }>) =>
      generateText({
        model: provider.chatModel("anything"),
        prompt: "call a tool",
        tools: sdkTools(ran),
        toolChoice,
        maxOutputTokens: max,
        // Wanting to call, not to stop: the limit ends the answer.
        providerOptions: { toolmask: { logit_bias: { 151657: 90, 1688: 30, 16181: 30 } } },
        maxRetries: 0,
      }).catch((e: unknown) => e);
    // The first limit (from the shortest call up) at which the required call does not finish.
    let cut: number | undefined;
    for (let max = 8; max <= 40 && cut === undefined; max++) {
      const ran: Array<{ name: string; input: unknown }> = [];
      const r = await ask(max, "required", ran);
      expect(ran).toEqual([]); // no step follows: nothing runs, cut or not
      if (APICallError.isInstance(r)) {
        expect(r.statusCode).toBe(400);
        expect(r.responseBody).toMatch(/max_tokens_too_small/);
      } else if (ToolChoiceViolationError.isInstance(r)) cut = max;
      else expect((r as { finishReason: string }).finishReason).toBe("tool-calls");
    }
    expect(cut, "no maxOutputTokens from 8 to 40 cut the call").toBeDefined();
    // The same limit under "auto": an answer cut by its limit, holding no call, streamed or not.
    const { result: auto, ran } = await aiSdkBothWays(generateText, streamText, (ran) => ({
      model: provider.chatModel("anything"),
      prompt: "call a tool",
      tools: sdkTools(ran),
      toolChoice: "auto",
      maxOutputTokens: cut!,
      providerOptions: { toolmask: { logit_bias: { 151657: 90, 1688: 30, 16181: 30 } } },
      maxRetries: 0,
    }));
    expect(auto.finishReason).toBe("length");
    expect(auto.toolCalls).toEqual([]);
    expect(ran).toEqual([]);
  });

  it("a bad request: APICallError with status 400 and the server's message", async () => {
    const err = await aiSdkBothWays(generateText, streamText, () => ({
      model: provider.chatModel("anything"),
      prompt: "hi",
      temperature: 5,
      maxRetries: 0,
    })).catch((e: unknown) => e);
    expect(APICallError.isInstance(err)).toBe(true);
    expect((err as APICallError).statusCode).toBe(400);
    expect((err as APICallError).message).toMatch(/temperature must be a number from 0 to 2/);
  });
});

// runAgent with a loaded model as its client: real masked generate() on the random-weight test
// model. logitBias stands in for a model's wish to call (first turn) and to stop; the mask makes
// the call whole, and runAgent checks its arguments, runs it and sends the result back.
import { beforeAll, expect, it } from "vitest";
import { loadModel, runAgent, type LlamaModel } from "../../src/index.js";
import type { AgentTool } from "../../src/agent/types.js";
import { IM_END, shortestCallTokens, TOOL_CALL, whitespaceTokenIds } from "../support/generation-checks.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
let noWhitespace: Record<number, number>;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
  // Random weights repeat whitespace forever inside JSON; banning it lets the masked call close.
  noWhitespace = Object.fromEntries(whitespaceTokenIds(model).map((id) => [id, -100]));
});

function weatherTool(seen: Array<Record<string, unknown>>): AgentTool {
  return {
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
  };
}

it("a loaded model completes a tool round trip: a masked call, run with checked arguments, its result in the next prompt", async () => {
  const seen: Array<Record<string, unknown>> = [];
  const r = await runAgent({
    client: {
      model,
      // First a call is required; then the model may only answer, and wants to stop.
      generateOptions: (turn) =>
        turn === 0
          ? { toolChoice: "required", temperature: 0, logitBias: { ...noWhitespace, [TOOL_CALL]: 100, [IM_END]: 110 } }
          : { toolChoice: "none", temperature: 0, logitBias: { [IM_END]: 100 } },
    },
    tools: [weatherTool(seen)],
    prompt: "What is the weather in Paris?",
    maxTokens: 64,
  });
  expect(r.status).toBe("completed");
  expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  expect(seen).toHaveLength(1);
  expect(["Paris", "Rome", "Oslo"]).toContain(seen[0]!.city);
  const call = r.messages[1]!;
  if (call.role !== "assistant" || !call.tool_calls) throw new Error("the first answer has no calls");
  expect(call.tool_calls).toHaveLength(1);
  expect(call.tool_calls[0]!.function.name).toBe("get_weather");
  expect(r.messages[2]).toEqual({
    role: "tool",
    tool_call_id: call.tool_calls[0]!.id,
    content: `sunny in ${String(seen[0]!.city)}`,
  });
  // The second prompt was rendered from the history with the call and its result in it.
  expect(r.turns[1]!.usage!.prompt_tokens).toBeGreaterThan(r.turns[0]!.usage!.prompt_tokens);
  // A local model reports no cost: null, not 0.
  expect(r.reportedCostUsd).toBeNull();
});

it("a call cut by the output limit: truncated, not run, and its text kept in the turn", async () => {
  const seen: Array<Record<string, unknown>> = [];
  const r = await runAgent({
    client: {
      model,
      generateOptions: {
        toolChoice: "required",
        temperature: 0,
        logitBias: { ...noWhitespace, [TOOL_CALL]: 100, [IM_END]: 110 },
      },
    },
    tools: [weatherTool(seen)],
    prompt: "What is the weather in Paris?",
    // The shortest call (fewer: refused before decoding); the model's own call is longer.
    maxTokens: shortestCallTokens(model, model.dialect!, [
      { type: "function", function: { name: "get_weather", parameters: weatherTool([]).parameters } },
    ]),
  });
  expect(r.status).toBe("truncated");
  expect(seen).toEqual([]);
  const cut = r.turns[0]!.incompleteCalls ?? [];
  expect(cut).toHaveLength(1);
  expect(cut[0]!.kind).toBe("cut");
  expect(cut[0]!.text).toContain("<tool_call>");
});

it("generateOptions with a name generate() does not take: a TypeError before any turn", async () => {
  await expect(
    runAgent({ client: { model, generateOptions: { maxToken: 4 } as never }, prompt: "Hi" }),
  ).rejects.toThrow(/runAgent: client\.generateOptions: unknown option "maxToken"; did you mean "maxTokens"\?/);
});

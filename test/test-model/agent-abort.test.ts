// A loaded model's answer starts a parallel-safe call while it is still being decoded
// (startToolsEarly); when that tool ignores its signal and never settles, an abort still returns
// the run, and a call past toolTimeoutMs still lets the loop go on (issue 30, defect 7). On the
// random-weight test model the forced call is followed by ~170 tokens of text, so the tool starts
// mid-answer. Test timeouts are ~20x the runs measured here (1.4 s and 6.1 s on 2 shared cores).
import { beforeAll, expect, it } from "vitest";
import { loadModel, runAgent, type LlamaModel } from "../../src/index.js";
import type { AgentTool, LocalAgentClient } from "../../src/agent/types.js";
import { IM_END, TOOL_CALL, whitespaceTokenIds } from "../support/generation-checks.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
let noWhitespace: Record<number, number>;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
  noWhitespace = Object.fromEntries(whitespaceTokenIds(model).map((id) => [id, -100]));
});

/** get_weather, parallel-safe, never settling and never looking at its signal. */
function hanging(onStart: () => void = () => {}): AgentTool {
  return {
    name: "get_weather",
    parameters: {
      type: "object",
      properties: { city: { type: "string", enum: ["Paris", "Rome", "Oslo"] } },
      required: ["city"],
    },
    parallelSafe: true,
    execute: () => {
      onStart();
      return new Promise(() => {});
    },
  };
}

/** First a forced call to get_weather, then (next turn) a text answer. */
const forcedCallThenText = (): LocalAgentClient => ({
  model,
  generateOptions: (turn) =>
    turn === 0
      ? { toolChoice: "required", temperature: 0, logitBias: { ...noWhitespace, [TOOL_CALL]: 100, [IM_END]: 100 } }
      : { toolChoice: "none", temperature: 0, logitBias: { [IM_END]: 110 } },
});

it("an abort while the answer is decoded and its early call hangs: the run returns aborted, the call abandoned", async () => {
  const controller = new AbortController();
  const r = await runAgent({
    client: forcedCallThenText(),
    tools: [hanging(() => controller.abort())],
    prompt: "What is the weather in Paris?",
    maxTokens: 256,
    signal: controller.signal,
  });
  expect(r.status).toBe("aborted");
  // The answer never arrived: the call's result has no assistant message to follow.
  expect(r.messages).toEqual([{ role: "user", content: "What is the weather in Paris?" }]);
  expect(r.earlyResults).toEqual([
    {
      role: "tool",
      tool_call_id: expect.any(String),
      content: expect.stringMatching(
        /^Error: the run was aborted while the tool "get_weather" ran; its result was abandoned/,
      ),
    },
  ]);
  // The model is free again: a next run gets its sequence.
  const next = await runAgent({
    client: { model, generateOptions: { logitBias: { [IM_END]: 100 } } },
    prompt: "Stop.",
    maxTokens: 4,
  });
  expect(next.status).toBe("completed");
}, 120_000);

it("an early call past toolTimeoutMs: the model reads an error result naming the limit, and the loop goes on", async () => {
  const r = await runAgent({
    client: forcedCallThenText(),
    tools: [hanging()],
    prompt: "What is the weather in Paris?",
    maxTokens: 256,
    toolTimeoutMs: 300,
  });
  expect(r.status).toBe("completed");
  expect(r.turns).toHaveLength(2);
  expect(r.turns[0]!.startedEarly).toHaveLength(1);
  expect(r.turns[0]!.abandonedCalls).toEqual([
    { id: r.turns[0]!.startedEarly![0], name: "get_weather", why: "timeout" },
  ]);
  expect(r.messages[2]).toEqual({
    role: "tool",
    tool_call_id: r.turns[0]!.startedEarly![0],
    content: expect.stringMatching(/^Error: the tool "get_weather" did not finish within toolTimeoutMs \(300 ms\)/),
  });
}, 120_000);

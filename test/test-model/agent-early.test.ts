// runAgent starts a parallel-safe call as soon as the answer's stream shows it complete, while
// the model is still writing: on the random-weight test model, whose greedy answer is one masked
// call followed by ~170 tokens of text, the tool runs during that text. The same run with
// startToolsEarly: false is the reference: the same history, later. Which came first, the tool's
// start or the answer's last event, is asserted from a counter of what happened; the wall time
// saved is printed (these machines are shared: it is measured, not asserted).
import { beforeAll, expect, it } from "vitest";
import { loadModel, runAgent, type LlamaModel, type StreamEvent } from "../../src/index.js";
import type { AgentTool, RunAgentOptions } from "../../src/agent/types.js";
import { IM_END, TOOL_CALL, whitespaceTokenIds } from "../support/generation-checks.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
let noWhitespace: Record<number, number>;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
  noWhitespace = Object.fromEntries(whitespaceTokenIds(model).map((id) => [id, -100]));
});

const TOOL_MS = 400;

/**
 * One run: where each tool's start and each turn's last event fall in the order of what happened
 * (a counter, not a clock), the events, and the wall time and the tool's overlap for the log.
 */
async function timedRun(startToolsEarly: boolean, parallelSafe = true) {
  const t0 = performance.now();
  let happened = 0;
  const starts: number[] = [];
  const lastEvent: number[] = [];
  let firstStartMs = 0;
  const lastEventMs: number[] = [];
  const events: Array<{ turn: number; event: StreamEvent }> = [];
  const tool: AgentTool = {
    name: "get_weather",
    parameters: {
      type: "object",
      properties: { city: { type: "string", enum: ["Paris", "Rome", "Oslo"] } },
      required: ["city"],
    },
    parallelSafe,
    execute: async (args) => {
      starts.push(happened++);
      if (starts.length === 1) firstStartMs = performance.now() - t0;
      await new Promise((r) => setTimeout(r, TOOL_MS));
      return `sunny in ${String(args.city)}`;
    },
  };
  const options: RunAgentOptions = {
    client: {
      model,
      generateOptions: (turn) =>
        turn === 0
          ? { toolChoice: "required", temperature: 0, logitBias: { ...noWhitespace, [TOOL_CALL]: 100, [IM_END]: 100 } }
          : { toolChoice: "none", temperature: 0, logitBias: { [IM_END]: 110 } },
    },
    tools: [tool],
    prompt: "What is the weather in Paris?",
    maxTokens: 256,
    startToolsEarly,
    onEvent: (event, turn) => {
      events.push({ turn, event });
      lastEvent[turn] = happened++;
      lastEventMs[turn] = performance.now() - t0;
    },
  };
  const result = await runAgent(options);
  return { result, starts, lastEvent, events, wall: performance.now() - t0, overlap: lastEventMs[0]! - firstStartMs };
}

it("a parallel-safe call runs while the model still writes; the history is the run's without early start", async () => {
  await timedRun(false); // warm the grammar cache and the model
  const late = await timedRun(false);
  const early = await timedRun(true);
  expect(early.result.status).toBe("completed");
  expect(early.result.messages).toEqual(late.result.messages);
  const call = early.result.messages[1]!;
  if (call.role !== "assistant" || !call.tool_calls) throw new Error("the first answer has no calls");
  expect(early.result.turns[0]!.startedEarly).toEqual([call.tool_calls[0]!.id]);
  expect(late.result.turns[0]!.startedEarly).toBeUndefined();
  // The answer went on after its call: the tool started before the answer's last event.
  const callEnd = early.events.findIndex((e) => e.turn === 0 && e.event.type === "tool_call_end");
  expect(early.events.slice(callEnd + 1).some((e) => e.turn === 0 && e.event.type === "content")).toBe(true);
  expect(early.starts[0]!).toBeLessThan(early.lastEvent[0]!);
  expect(late.starts[0]!).toBeGreaterThanOrEqual(late.lastEvent[0]!);
  // The argument events came before the call's end, each valid.
  const args = early.events.filter((e) => e.turn === 0 && e.event.type === "tool_call_argument");
  expect(args.map((e) => e.event)).toEqual([expect.objectContaining({ name: "city", path: "/city", valid: true })]);
  const overlap = early.overlap;
  console.log(
    `agent-early: wall ${late.wall.toFixed(0)} ms without early start, ${early.wall.toFixed(0)} ms with it ` +
      `(saved ${(late.wall - early.wall).toFixed(0)} ms; the ${TOOL_MS} ms tool overlapped ${overlap.toFixed(0)} ms of decoding)`,
  );
}, 120_000);

it("a call that is not parallel-safe waits for the answer's end", async () => {
  const r = await timedRun(true, false);
  expect(r.result.status).toBe("completed");
  expect(r.result.turns[0]!.startedEarly).toBeUndefined();
  expect(r.starts[0]!).toBeGreaterThanOrEqual(r.lastEvent[0]!);
}, 120_000);

it("a cut answer: its complete call that started early has its result after the answer; the cut one never runs", async () => {
  const seen: string[] = [];
  const r = await runAgent({
    client: {
      model,
      generateOptions: { toolChoice: "required", temperature: 0, logitBias: { ...noWhitespace, [TOOL_CALL]: 100 } },
    },
    tools: [
      {
        name: "get_weather",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        parallelSafe: true,
        execute: (args) => {
          seen.push(String(args.city));
          return "sunny";
        },
      },
    ],
    prompt: "Weather?",
    maxTokens: 400,
  });
  // Without an end-of-turn bias the model opens call after call until the output limit cuts one.
  expect(r.status).toBe("truncated");
  const answer = r.messages[1]!;
  if (answer.role !== "assistant") throw new Error("no answer");
  const complete = answer.tool_calls ?? [];
  expect(r.turns[0]!.incompleteCalls?.length ?? 0).toBeGreaterThan(0);
  // Every result that follows the answer is a complete call's that started early.
  const results = r.messages.slice(2);
  expect(results.every((m) => m.role === "tool")).toBe(true);
  expect(results.map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(r.turns[0]!.startedEarly ?? []);
  expect(results.length).toBeLessThanOrEqual(complete.length);
  expect(seen).toHaveLength(results.length);
}, 120_000);

// A tool that ignores ctx.signal and never settles holds no run hostage (issue 30, defect 7): an
// abort returns with the call's result recorded as abandoned, and each call has a deadline
// (toolTimeoutMs, or the tool's own timeoutMs) past which the model is told the tool did not finish
// and the loop goes on. The tests here assert that runs return at all (each test's timeout is
// ~100x the work: one local HTTP round trip and a tool start), never how fast.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent } from "../../src/index.js";
import type { AgentTool, ToolContext } from "../../src/agent/types.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";

const RETURNS_WITHIN_MS = 10_000;

let server: ScriptedOpenAI;
beforeEach(async () => {
  server = await ScriptedOpenAI.start();
});
afterEach(async () => {
  await server.close();
});

/** A tool that never settles and never looks at its signal; `started` resolves once it has run. */
function hangingTool(o: { name?: string; parallelSafe?: boolean; timeoutMs?: number; onStart?: () => void } = {}) {
  const seen: ToolContext[] = [];
  const tool: AgentTool = {
    name: o.name ?? "hang",
    parameters: { type: "object", properties: {} },
    ...(o.parallelSafe !== undefined ? { parallelSafe: o.parallelSafe } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    execute: (_args, ctx) => {
      seen.push(ctx);
      o.onStart?.();
      return new Promise(() => {});
    },
  };
  return { tool, seen };
}

const quick = (name: string, text: string, parallelSafe = false): AgentTool => ({
  name,
  parameters: { type: "object", properties: {} },
  parallelSafe,
  execute: () => text,
});

const toolResults = (i: number) =>
  (server.requests[i]?.body.messages ?? []).filter((m: any) => m.role === "tool") as Array<{
    tool_call_id: string;
    content: string;
  }>;

describe("an abort while a tool that ignores its signal runs", () => {
  it(
    "runAgent returns aborted; the call's result is recorded as abandoned, no further request is made",
    async () => {
      const controller = new AbortController();
      const { tool, seen } = hangingTool({ onStart: () => setTimeout(() => controller.abort(), 10) });
      server.answer({ calls: [{ name: "hang", id: "c1" }] }).answer({ content: "never asked" });
      const r = await runAgent({
        client: { baseURL: server.baseURL },
        tools: [tool],
        prompt: "Go",
        signal: controller.signal,
      });
      expect(r.status).toBe("aborted");
      expect(server.requests).toHaveLength(1);
      expect(seen[0]!.signal.aborted).toBe(true);
      expect(r.messages.at(-1)).toEqual({
        role: "tool",
        tool_call_id: "c1",
        content: expect.stringMatching(
          /^Error: the run was aborted while the tool "hang" ran; its result was abandoned/,
        ),
      });
      expect(r.turns[0]!.abandonedCalls).toEqual([{ id: "c1", name: "hang", why: "aborted" }]);
    },
    RETURNS_WITHIN_MS,
  );

  it(
    "parallel-safe calls: the one that finished keeps its result, the hanging one is abandoned, the later one is not run",
    async () => {
      const controller = new AbortController();
      const { tool } = hangingTool({ parallelSafe: true, onStart: () => setTimeout(() => controller.abort(), 10) });
      server.answer({
        calls: [
          { name: "ok", id: "c1" },
          { name: "hang", id: "c2" },
          { name: "after", id: "c3" },
        ],
      });
      const r = await runAgent({
        client: { baseURL: server.baseURL },
        tools: [quick("ok", "fine", true), tool, quick("after", "ran")],
        prompt: "Go",
        signal: controller.signal,
      });
      expect(r.status).toBe("aborted");
      const results = r.messages.filter((m) => m.role === "tool");
      expect(results.map((m) => m.tool_call_id)).toEqual(["c1", "c2", "c3"]);
      expect(results[0]!.content).toBe("fine");
      expect(results[1]!.content).toMatch(/aborted while the tool "hang" ran; its result was abandoned/);
      expect(results[2]!.content).toMatch(/aborted before "after" ran/);
      expect(r.turns[0]!.abandonedCalls).toEqual([{ id: "c2", name: "hang", why: "aborted" }]);
    },
    RETURNS_WITHIN_MS,
  );

  it(
    "a tool that rejects after it was abandoned changes nothing (no unhandled rejection, the result stays abandoned)",
    async () => {
      const controller = new AbortController();
      let fail: (e: Error) => void = () => {};
      const tool: AgentTool = {
        name: "late",
        execute: () =>
          new Promise((_, reject) => {
            fail = reject;
            setTimeout(() => controller.abort(), 10);
          }),
      };
      server.answer({ calls: [{ name: "late", id: "c1" }] });
      const r = await runAgent({
        client: { baseURL: server.baseURL },
        tools: [tool],
        prompt: "Go",
        signal: controller.signal,
      });
      fail(new Error("too late"));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(r.status).toBe("aborted");
      expect(r.messages.at(-1)).toMatchObject({ content: expect.stringMatching(/abandoned/) });
    },
    RETURNS_WITHIN_MS,
  );
});

describe("the per-call deadline", () => {
  it(
    "past toolTimeoutMs the model gets an error result naming the tool and the limit, and the loop goes on",
    async () => {
      const { tool, seen } = hangingTool();
      server.answer({ calls: [{ name: "hang", id: "c1" }] }).answer({ content: "Done." });
      const r = await runAgent({
        client: { baseURL: server.baseURL },
        tools: [tool],
        prompt: "Go",
        toolTimeoutMs: 200,
      });
      expect(r.status).toBe("completed");
      expect(r.finalMessage).toBe("Done.");
      expect(toolResults(1)).toEqual([
        {
          role: "tool",
          tool_call_id: "c1",
          content: expect.stringMatching(
            /^Error: the tool "hang" did not finish within toolTimeoutMs \(200 ms\); its result was abandoned/,
          ),
        },
      ]);
      expect(r.turns[0]!.abandonedCalls).toEqual([{ id: "c1", name: "hang", why: "timeout" }]);
      // The tool's own signal told it to stop, with the deadline as the reason.
      expect(seen[0]!.signal.aborted).toBe(true);
      expect(String(seen[0]!.signal.reason)).toMatch(/toolTimeoutMs \(200 ms\)/);
    },
    RETURNS_WITHIN_MS,
  );

  it(
    "a tool's own timeoutMs wins over toolTimeoutMs; other tools keep the run's limit",
    async () => {
      const { tool } = hangingTool({ timeoutMs: 100 });
      server.answer({
        calls: [
          { name: "hang", id: "c1" },
          { name: "ok", id: "c2" },
        ],
      });
      server.answer({ content: "Done." });
      const r = await runAgent({
        client: { baseURL: server.baseURL },
        tools: [tool, quick("ok", "fine")],
        prompt: "Go",
        toolTimeoutMs: 600_000,
      });
      expect(r.status).toBe("completed");
      expect(toolResults(1).map((m) => m.content)).toEqual([
        expect.stringMatching(/the tool "hang" did not finish within its timeoutMs \(100 ms\)/),
        "fine",
      ]);
    },
    RETURNS_WITHIN_MS,
  );

  it("a tool that finishes in time is not touched by the deadline", async () => {
    server.answer({ calls: [{ name: "ok", id: "c1" }] }).answer({ content: "Done." });
    const r = await runAgent({
      client: { baseURL: server.baseURL },
      tools: [quick("ok", "fine")],
      prompt: "Go",
      toolTimeoutMs: 60_000,
    });
    expect(toolResults(1).map((m) => m.content)).toEqual(["fine"]);
    expect(r.turns[0]!.abandonedCalls).toBeUndefined();
  });

  it.each([0, -1, 1.5, 2 ** 31, Number.NaN])("toolTimeoutMs %s is refused before any request", async (ms) => {
    await expect(runAgent({ client: { baseURL: server.baseURL }, prompt: "Go", toolTimeoutMs: ms })).rejects.toThrow(
      /toolTimeoutMs must be a positive integer up to 2147483647/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it.each([0, 1.5, 2 ** 31, "60"])(
    "a tool's timeoutMs %s is refused before any request, naming the tool",
    async (ms) => {
      const tool = { ...quick("ok", "fine"), timeoutMs: ms as number };
      await expect(runAgent({ client: { baseURL: server.baseURL }, tools: [tool], prompt: "Go" })).rejects.toThrow(
        /tools\[0\] \("ok"\)\.timeoutMs must be a positive integer up to 2147483647/,
      );
      expect(server.requests).toHaveLength(0);
    },
  );
});

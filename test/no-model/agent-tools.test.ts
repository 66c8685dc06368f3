// How the calls of one answer run (seed 002, #551) and what a bad call becomes. Concurrency is
// proven by the order of events (both started before either ended), never by wall-clock time.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent } from "../../src/index.js";
import type { AgentTool, RunAgentOptions } from "../../src/agent/types.js";
import { loggingTool, newLog, type ToolLog } from "../support/agent-tools.js";
import { ScriptedOpenAI, type Answer } from "../support/scripted-openai.js";

let server: ScriptedOpenAI;
beforeEach(async () => {
  server = await ScriptedOpenAI.start();
});
afterEach(async () => {
  await server.close();
});

const calls = (name: string, n: number, args = "{}") =>
  Array.from({ length: n }, (_, i) => ({ name, id: `c${i + 1}`, arguments: args }));

/** One answer with `answerCalls`, then "Done."; returns the run and the tool results the second request carried. */
async function round(tools: AgentTool[], answerCalls: NonNullable<Answer["calls"]>, o: Partial<RunAgentOptions> = {}) {
  server.answer({ calls: answerCalls }).answer({ content: "Done." });
  const r = await runAgent({ client: { baseURL: server.baseURL }, tools, prompt: "Go", ...o });
  const results = server.requests[1]?.body.messages.filter((m: any) => m.role === "tool") ?? [];
  return { r, results: results as Array<{ tool_call_id: string; content: string }> };
}

const startsBeforeFirstEnd = (log: ToolLog) =>
  log.events.slice(
    0,
    log.events.findIndex((e) => e.startsWith("end:")),
  ).length;

describe("#551 scheduling", () => {
  it("parallel-safe calls run at the same time: all three start before any ends", async () => {
    const log = newLog();
    const { r } = await round([loggingTool(log, { parallelSafe: true })], calls("probe", 3));
    expect(r.status).toBe("completed");
    expect(startsBeforeFirstEnd(log)).toBe(3);
    expect(log.maxInFlight).toBe(3);
  });

  it("calls of a tool not marked parallel-safe run one at a time", async () => {
    const log = newLog();
    await round([loggingTool(log)], calls("probe", 3));
    expect(log.events).toEqual(["start:c1", "end:c1", "start:c2", "end:c2", "start:c3", "end:c3"]);
    expect(log.maxInFlight).toBe(1);
  });

  it("results go back in the order of the calls, each with its own tool_call_id, whatever order they finished in", async () => {
    const log = newLog();
    const { results } = await round(
      [loggingTool(log, { parallelSafe: true })],
      [
        { name: "probe", id: "c1", arguments: '{"delay":60,"mark":"first"}' },
        { name: "probe", id: "c2", arguments: '{"delay":1,"mark":"second"}' },
        { name: "probe", id: "c3", arguments: '{"delay":25,"mark":"third"}' },
      ],
    );
    // They did finish out of order (otherwise this test would prove nothing).
    expect(log.events.filter((e) => e.startsWith("end:"))).not.toEqual(["end:c1", "end:c2", "end:c3"]);
    expect(results.map((m) => m.tool_call_id)).toEqual(["c1", "c2", "c3"]);
    expect(results.map((m) => m.content)).toEqual(["first", "second", "third"]);
  });

  it("maxParallelToolCalls 2: never more than two at once, and two do overlap", async () => {
    const log = newLog();
    await round([loggingTool(log, { parallelSafe: true })], calls("probe", 4), { maxParallelToolCalls: 2 });
    expect(log.maxInFlight).toBe(2);
    expect(log.events.filter((e) => e.startsWith("end:"))).toHaveLength(4);
  });

  it("maxParallelToolCalls 1: parallel-safe calls run one at a time", async () => {
    const log = newLog();
    await round([loggingTool(log, { parallelSafe: true })], calls("probe", 2), { maxParallelToolCalls: 1 });
    expect(log.events).toEqual(["start:c1", "end:c1", "start:c2", "end:c2"]);
  });

  it("a call that is not parallel-safe runs alone, between the parallel ones around it", async () => {
    const log = newLog();
    const tools = [loggingTool(log, { name: "fast", parallelSafe: true }), loggingTool(log, { name: "slow" })];
    await round(tools, [
      { name: "fast", id: "a" },
      { name: "fast", id: "b" },
      { name: "slow", id: "s" },
      { name: "fast", id: "c" },
      { name: "fast", id: "d" },
    ]);
    const at = (e: string) => log.events.indexOf(e);
    expect(at("start:s")).toBeGreaterThan(Math.max(at("end:a"), at("end:b")));
    expect(at("end:s")).toBeLessThan(Math.min(at("start:c"), at("start:d")));
    expect(at("start:b")).toBeLessThan(at("end:a"));
    expect(at("start:d")).toBeLessThan(at("end:c"));
  });
});

describe("calls that cannot run well become results that say so, and the loop goes on", () => {
  const fileTool = (log: ToolLog) =>
    loggingTool(log, {
      name: "read_file",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, lines: { type: "integer", minimum: 1 } },
        required: ["path"],
      },
    });

  it("an undeclared tool: not run, the result names the tools there are; the other call still runs", async () => {
    const log = newLog();
    const { r, results } = await round(
      [fileTool(log)],
      [
        { name: "delete_all", id: "c1" },
        { name: "read_file", id: "c2", arguments: '{"path":"a"}' },
      ],
    );
    expect(results[0]).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: expect.stringMatching(/no tool named "delete_all".*"read_file".*not run/),
    });
    expect(results[1]!.content).toBe("done c2");
    expect(log.args).toEqual([{ path: "a" }]);
    expect(r.status).toBe("completed");
  });

  it.each([
    ['{"path": "a"', /not JSON/],
    ["", /not JSON/],
    ["[1]", /must be a JSON object/],
    ['{"lines": 3}', /missing required "path"/],
    ['{"path": 7}', /do not fit/],
    ['{"path": "a", "lines": 0}', /do not fit/],
    ['{"path": "a", "mode": "w"}', /do not fit/],
  ])("arguments %j: the tool is not run, the result says why", async (args, why) => {
    const log = newLog();
    const { r, results } = await round([fileTool(log)], [{ name: "read_file", id: "c1", arguments: args }]);
    expect(log.args).toEqual([]);
    expect(results).toEqual([{ role: "tool", tool_call_id: "c1", content: expect.stringMatching(why) }]);
    expect(results[0]!.content).toMatch(/was not run/);
    expect(r.status).toBe("completed");
  });

  it("valid arguments in another spelling (whitespace, key order) are accepted", async () => {
    const log = newLog();
    await round([fileTool(log)], [{ name: "read_file", id: "c1", arguments: '{\n  "lines" : 2 ,\n  "path": "a"\n}' }]);
    expect(log.args).toEqual([{ lines: 2, path: "a" }]);
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("disk on fire");
      },
    ],
    [
      "rejects",
      async () => {
        throw new Error("disk on fire");
      },
    ],
  ])("a tool that %s: the result says it failed and why; the loop goes on", async (_, execute) => {
    const log = newLog();
    const failing: AgentTool = { name: "broken", parameters: { type: "object", properties: {} }, execute };
    const { r, results } = await round(
      [failing, loggingTool(log)],
      [
        { name: "broken", id: "c1" },
        { name: "probe", id: "c2" },
      ],
    );
    expect(results.map((m) => m.tool_call_id)).toEqual(["c1", "c2"]);
    expect(results[0]!.content).toBe('Error: the tool "broken" failed: disk on fire');
    expect(results[1]!.content).toBe("done c2");
    expect(r.status).toBe("completed");
    expect(r.finalMessage).toBe("Done.");
  });

  it("a non-text result is sent as JSON", async () => {
    const obj: AgentTool = { name: "stat", execute: () => ({ size: 3, ok: true }) };
    const { results } = await round([obj], [{ name: "stat", id: "c1" }]);
    expect(results[0]!.content).toBe('{"size":3,"ok":true}');
  });

  it("a schema the checker cannot enforce is refused before any request, saying where", async () => {
    const odd: AgentTool = {
      name: "mail",
      parameters: { type: "object", properties: { to: { type: "array", contains: { type: "string" } } } },
      execute: () => "",
    };
    await expect(runAgent({ client: { baseURL: server.baseURL }, tools: [odd], prompt: "Go" })).rejects.toThrow(
      /tools\[0\]\.parameters.*contains/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('results that JSON.stringify cannot write are written whole or refused, never "[object Object]"', () => {
  const returning = (value: () => unknown): AgentTool => ({ name: "stat", execute: value });

  it("a BigInt is sent as its digits", async () => {
    const { results } = await round(
      [returning(() => ({ size: 12345678901234567890123n, n: [1n] }))],
      [{ name: "stat", id: "c1" }],
    );
    expect(results[0]!.content).toBe('{"size":12345678901234567890123,"n":[1]}');
  });

  it("a circular reference is marked with the path it points back to; the rest is sent", async () => {
    const node: Record<string, unknown> = { name: "root", kids: [] };
    (node.kids as unknown[]).push({ name: "kid", parent: node });
    node.self = node;
    const { results } = await round([returning(() => node)], [{ name: "stat", id: "c1" }]);
    expect(results[0]!.content).toBe(
      '{"name":"root","kids":[{"name":"kid","parent":"[Circular: $]"}],"self":"[Circular: $]"}',
    );
  });

  it("an object seen twice but not inside itself is written twice, not marked", async () => {
    const shared = { v: 1 };
    const { results } = await round([returning(() => ({ a: shared, b: [shared] }))], [{ name: "stat", id: "c1" }]);
    expect(results[0]!.content).toBe('{"a":{"v":1},"b":[{"v":1}]}');
  });

  it("what JSON.stringify writes is written the same (toJSON, dates, undefined keys, nested arrays)", async () => {
    const value = {
      d: new Date(0),
      u: undefined,
      f: () => 1,
      list: [undefined, "x", { toJSON: () => "custom" }],
      n: -0,
      s: 'q"\n',
    };
    const { results } = await round([returning(() => value)], [{ name: "stat", id: "c1" }]);
    expect(results[0]!.content).toBe(JSON.stringify(value));
  });

  it.each([
    ["a Map", () => ({ cache: new Map([["k", 1]]) }), /a Map at \$\.cache/],
    ["a Set", () => [new Set([1])], /a Set at \$\[0\]/],
    ["a function", () => () => 1, /a function at \$/],
  ])(
    "%s (JSON would write it as nothing or {}): the result says the tool's value could not be sent",
    async (_, value, where) => {
      const { r, results } = await round([returning(value)], [{ name: "stat", id: "c1" }]);
      expect(results[0]!.content).toMatch(/^Error: the tool "stat" ran, but its result cannot be sent as JSON: /);
      expect(results[0]!.content).toMatch(where);
      expect(r.status).toBe("completed");
    },
  );
});

describe("call ids", () => {
  it("a second call with an id already used in the same answer is not run; its result says why", async () => {
    const log = newLog();
    const { r, results } = await round(
      [loggingTool(log)],
      [
        { name: "probe", id: "c1", arguments: '{"mark":"first"}' },
        { name: "probe", id: "c1", arguments: '{"mark":"again"}' },
        { name: "probe", id: "c2", arguments: '{"mark":"other"}' },
      ],
    );
    expect(log.args).toEqual([{ mark: "first" }, { mark: "other" }]);
    expect(results.map((m) => m.tool_call_id)).toEqual(["c1", "c1", "c2"]);
    expect(results[0]!.content).toBe("first");
    expect(results[1]!.content).toMatch(/^Error: the call id "c1" is used by an earlier call in this answer.*not run/);
    expect(results[2]!.content).toBe("other");
    expect(r.status).toBe("completed");
  });

  it("the same id in a later answer runs (servers that number calls per answer reuse ids)", async () => {
    const log = newLog();
    server
      .answer({ calls: [{ name: "probe", id: "call_0" }] })
      .answer({ calls: [{ name: "probe", id: "call_0" }] })
      .answer({ content: "Done." });
    const r = await runAgent({ client: { baseURL: server.baseURL }, tools: [loggingTool(log)], prompt: "Go" });
    expect(log.events).toEqual(["start:call_0", "end:call_0", "start:call_0", "end:call_0"]);
    expect(r.status).toBe("completed");
  });
});

it("a result nested deeper than the stack can write: the result says so, the loop goes on", async () => {
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 200_000; i++) deep = { next: deep };
  const { r, results } = await round([{ name: "stat", execute: () => deep }], [{ name: "stat", id: "c1" }]);
  expect(results[0]!.content).toMatch(
    /^Error: the tool "stat" ran, but its result cannot be sent as JSON: it nests too deep/,
  );
  expect(r.status).toBe("completed");
});

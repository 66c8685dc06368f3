// How a run ends (seed 002, #548, and the failures around it): a cut answer is reported cut with
// its partial text; normal ends complete; a failed request, the turn limit and an abort each end
// the run with that status and every message exchanged so far — nothing retried, nothing thrown away.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isTruncatedFinish, runAgent } from "../../src/index.js";
import { loggingTool, newLog } from "../support/agent-tools.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";

let server: ScriptedOpenAI;
beforeEach(async () => {
  server = await ScriptedOpenAI.start();
});
afterEach(async () => {
  await server.close();
});

describe("#548 a finish at the output limit", () => {
  it.each(["length", "max_tokens", "LENGTH", "Max_Tokens"])("%s is a truncation", (reason) => {
    expect(isTruncatedFinish(reason)).toBe(true);
  });
  it.each(["stop", "tool_calls", "end_turn", null, undefined])("%s is a normal end", (reason) => {
    expect(isTruncatedFinish(reason)).toBe(false);
  });

  it.each(["length", "max_tokens", "LENGTH"])(
    "finish %s: the run is truncated and the partial text is kept",
    async (reason) => {
      server.answer({ content: "The report begins with", finish_reason: reason });
      const r = await runAgent({ client: { baseURL: server.baseURL }, prompt: "Report" });
      expect(r.status).toBe("truncated");
      expect(r.finalMessage).toBe("The report begins with");
      expect(r.messages.at(-1)).toEqual({ role: "assistant", content: "The report begins with" });
    },
  );

  it.each(["stop", "end_turn", null])("finish %s: the run is completed", async (reason) => {
    server.answer({ content: "Finished report.", finish_reason: reason });
    const r = await runAgent({ client: { baseURL: server.baseURL }, prompt: "Report" });
    expect(r.status).toBe("completed");
    expect(r.finalMessage).toBe("Finished report.");
  });

  it.each(["tool_calls", "stop", "end_turn", null])(
    "finish %s with calls: the calls run and the loop goes on",
    async (reason) => {
      const log = newLog();
      server.answer({ calls: [{ name: "probe", id: "c1" }], finish_reason: reason }).answer({ content: "Done." });
      const r = await runAgent({ client: { baseURL: server.baseURL }, tools: [loggingTool(log)], prompt: "Go" });
      expect(log.events).toEqual(["start:c1", "end:c1"]);
      expect(r.status).toBe("completed");
      expect(server.requests).toHaveLength(2);
    },
  );

  it("a cut answer's tool calls are not run (their arguments may be cut) and no further request is made", async () => {
    const log = newLog();
    server.answer({
      content: "Writing",
      calls: [{ name: "probe", arguments: '{"mark":"a"}' }],
      finish_reason: "length",
    });
    const r = await runAgent({ client: { baseURL: server.baseURL }, tools: [loggingTool(log)], prompt: "Go" });
    expect(r.status).toBe("truncated");
    expect(r.finalMessage).toBe("Writing");
    expect(log.events).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("a cut answer after a tool round is still reported cut, with the whole history", async () => {
    server.answer({ calls: [{ name: "probe", id: "c1" }] }).answer({ content: "Half an ans", finish_reason: "length" });
    const r = await runAgent({ client: { baseURL: server.baseURL }, tools: [loggingTool(newLog())], prompt: "Go" });
    expect(r.status).toBe("truncated");
    expect(r.finalMessage).toBe("Half an ans");
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });
});

describe("requests that fail", () => {
  it("an HTTP error ends the run with status error, the status code and body, and the history so far; no retry", async () => {
    server
      .answer({ content: "Looking.", calls: [{ name: "probe", id: "c1" }] })
      .reply({ status: 503, body: { error: { message: "upstream overloaded" } } });
    const r = await runAgent({ client: { baseURL: server.baseURL }, tools: [loggingTool(newLog())], prompt: "Go" });
    expect(r.status).toBe("error");
    expect(r.error?.httpStatus).toBe(503);
    expect(r.error?.message).toMatch(/HTTP 503.*upstream overloaded/);
    expect(r.error?.body).toContain("upstream overloaded");
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(server.requests).toHaveLength(2);
  });

  it("a 200 that is not a completion (an error object, or not JSON) is an error, not an empty answer", async () => {
    server.reply({ body: { error: { message: "no provider" } } });
    const a = await runAgent({ client: { baseURL: server.baseURL }, prompt: "Go" });
    expect(a.status).toBe("error");
    expect(a.error?.message).toMatch(/error.*no provider/);
    server.reply({ body: "<html>gateway</html>" });
    const b = await runAgent({ client: { baseURL: server.baseURL }, prompt: "Go" });
    expect(b.status).toBe("error");
    expect(b.error?.message).toMatch(/not JSON/);
  });

  it("a server that is not there: status error naming the address", async () => {
    const url = server.baseURL;
    await server.close();
    const r = await runAgent({ client: { baseURL: url }, prompt: "Go" });
    expect(r.status).toBe("error");
    expect(r.error?.message).toContain(`${url}/chat/completions`);
    expect(r.messages).toEqual([{ role: "user", content: "Go" }]);
    server = await ScriptedOpenAI.start();
  });
});

describe("the turn limit and aborts", () => {
  it("maxTurns requests that all call tools end as max_turns, with every call answered", async () => {
    server.answer({ calls: [{ name: "probe", id: "c1" }] }).answer({ calls: [{ name: "probe", id: "c2" }] });
    const r = await runAgent({
      client: { baseURL: server.baseURL },
      tools: [loggingTool(newLog())],
      prompt: "Go",
      maxTurns: 2,
    });
    expect(r.status).toBe("max_turns");
    expect(server.requests).toHaveLength(2);
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
  });

  it("an abort while tools run: status aborted, no further request, the results kept", async () => {
    const controller = new AbortController();
    const stopper = {
      ...loggingTool(newLog()),
      execute: () => {
        controller.abort();
        return "stopped";
      },
    };
    server.answer({ calls: [{ name: "probe", id: "c1" }] }).answer({ content: "never" });
    const r = await runAgent({
      client: { baseURL: server.baseURL },
      tools: [stopper],
      prompt: "Go",
      signal: controller.signal,
    });
    expect(r.status).toBe("aborted");
    expect(server.requests).toHaveLength(1);
    expect(r.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "c1", content: "stopped" });
  });

  it("an abort during a request: status aborted", async () => {
    const controller = new AbortController();
    server.reply({ body: {}, delayMs: 10_000 });
    const waiting = runAgent({ client: { baseURL: server.baseURL }, prompt: "Go", signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const r = await waiting;
    expect(r.status).toBe("aborted");
    expect(r.messages).toEqual([{ role: "user", content: "Go" }]);
  });
});

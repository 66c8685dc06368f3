// Answers whose tool_calls are not a list of calls (seed 002 follow-up, issue #12 defect 12): the
// run ends with status error and the body as received, never "completed" with the calls dropped.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent } from "../../src/index.js";
import { loggingTool, newLog } from "../support/agent-tools.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";

let server: ScriptedOpenAI;
beforeEach(async () => {
  server = await ScriptedOpenAI.start();
});
afterEach(async () => {
  await server.close();
});

const oneCall = { id: "c1", type: "function", function: { name: "probe", arguments: "{}" } };
const bodyWith = (toolCalls: unknown, finish = "tool_calls") => ({
  id: "chatcmpl-x",
  object: "chat.completion",
  created: 0,
  model: "scripted",
  choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: toolCalls }, finish_reason: finish }],
});

describe("tool_calls that are not an array of calls", () => {
  it.each([
    ["an object (one call, not in a list)", oneCall],
    ["a string", JSON.stringify([oneCall])],
    ["a number", 3],
    ["a list holding a string", ["probe"]],
    ["a list holding a call whose function is a string", [{ id: "c1", type: "function", function: "probe" }]],
  ])("%s: status error, nothing run, the body kept", async (_, toolCalls) => {
    const log = newLog();
    server.reply({ body: bodyWith(toolCalls) });
    const r = await runAgent({ client: { baseURL: server.baseURL }, tools: [loggingTool(log)], prompt: "Go" });
    expect(r.status).toBe("error");
    expect(r.error?.message).toMatch(/tool_calls/);
    expect(r.error?.httpStatus).toBe(200);
    expect(JSON.parse(r.error!.body!)).toEqual(bodyWith(toolCalls));
    expect(log.events).toEqual([]);
    expect(r.messages).toEqual([{ role: "user", content: "Go" }]);
    expect(server.requests).toHaveLength(1);
  });

  it.each([null, []])("tool_calls %j is an answer without calls: completed", async (toolCalls) => {
    server.reply({
      body: {
        choices: [{ message: { role: "assistant", content: "Done.", tool_calls: toolCalls }, finish_reason: "stop" }],
      },
    });
    const r = await runAgent({ client: { baseURL: server.baseURL }, prompt: "Go" });
    expect(r.status).toBe("completed");
    expect(r.finalMessage).toBe("Done.");
  });
});

// Issue 30, defect 8: some servers send arguments as an object, which JSON.parse has read by the
// time the call is seen (1e999 as Infinity, written again as null; a long integer rounded; a
// repeated key's last value kept). Such an answer is refused as a whole, naming what changed.
describe("arguments sent as an object that JSON.parse would change", () => {
  const call = (args: string) =>
    `{"id": "c1", "type": "function", "function": {"name": "probe", "arguments": ${args}}}`;
  const raw = (args: string) => JSON.stringify(bodyWith(["__CALL__"])).replace('"__CALL__"', call(args));
  it.each([
    ['{"delay": 1e999}', /the number 1e999 at tool_calls\[0\]\.function\.arguments\.delay is beyond the range/],
    [
      '{"delay": 12345678901234567891}',
      /the number 12345678901234567891 at tool_calls\[0\]\.function\.arguments\.delay is not exactly a double/,
    ],
    [
      '{"mark": "safe", "mark": "rm -rf /"}',
      /the key "mark" is given twice in the object at tool_calls\[0\]\.function\.arguments/,
    ],
  ])("%s: status error naming it, nothing run", async (args, why) => {
    const log = newLog();
    server.reply({ body: raw(args) });
    const r = await runAgent({ client: { baseURL: server.baseURL }, tools: [loggingTool(log)], prompt: "Go" });
    expect(r.status).toBe("error");
    expect(r.error?.message).toMatch(why);
    expect(r.error?.body).toBe(raw(args));
    expect(log.events).toEqual([]);
  });

  it("an object JSON.parse keeps is run, written as its JSON text", async () => {
    const log = newLog();
    server.reply({ body: raw('{"mark": "ok", "delay": 1}') }).answer({ content: "Done." });
    const r = await runAgent({ client: { baseURL: server.baseURL }, tools: [loggingTool(log)], prompt: "Go" });
    expect(r.status).toBe("completed");
    expect(log.args).toEqual([{ mark: "ok", delay: 1 }]);
  });
});

// Issue 30, defect 8: JSON.parse keeps a repeated key's last value and says nothing, so an answer
// with two tool_calls keys ran the second list, a call with two arguments keys its last arguments.
// An answer that gives a key twice is refused whole, naming the key and where.
describe("an answer that gives a key twice", () => {
  const probe = (args: string) =>
    `{"id": "c1", "type": "function", "function": {"name": "probe", "arguments": ${args}}}`;
  const message = (inner: string) =>
    `{"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, ${inner}}, "finish_reason": "tool_calls"}]}`;
  it.each([
    [
      "two tool_calls keys",
      message(`"tool_calls": [${probe('"{}"')}], "tool_calls": [${probe('"{\\"mark\\": \\"rm -rf /\\"}"')}]`),
      /the key "tool_calls" twice in choices\[0\]\.message/,
    ],
    [
      "two arguments keys in a call",
      message(
        `"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "probe", "arguments": "{}", "arguments": "{\\"mark\\": \\"x\\"}"}}]`,
      ),
      /the key "arguments" twice in choices\[0\]\.message\.tool_calls\[0\]\.function/,
    ],
    [
      "two names in a call",
      message(
        `"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "probe", "name": "other", "arguments": "{}"}}]`,
      ),
      /the key "name" twice in choices\[0\]\.message\.tool_calls\[0\]\.function/,
    ],
    [
      "two messages in a choice",
      message('"tool_calls": []}, "message": {"content": "Done."'),
      /"message" twice in choices\[0\]/,
    ],
  ])("%s: status error naming it, nothing run", async (_, body, why) => {
    const log = newLog();
    server.reply({ body });
    const r = await runAgent({ client: { baseURL: server.baseURL }, tools: [loggingTool(log)], prompt: "Go" });
    expect(r.status).toBe("error");
    expect(r.error?.message).toMatch(why);
    expect(r.error?.body).toBe(body);
    expect(log.events).toEqual([]);
  });
});

// Call ids across a conversation, on every API through its real client: two answers with calls
// name them differently (the parser's own ids restart at call_0 in every answer), so a client that
// sends both turns back is served instead of refused for an id used twice; within one answer the
// streamed id is the final one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type Anthropic from "@anthropic-ai/sdk";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { assemble, client, toolSet, WANTS_TO_CALL, anthropicClient } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutFor, type Work } from "../support/timeouts.js";

let model: LlamaModel;
let server: ToolmaskServer;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder" });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const chatTools = toolSet(5);
const pick = { type: "function" as const, function: { name: "pick_5" } };

/** A request decodes at most 48 tokens; a test sends at most 4. */
const REQUEST: Work = { decode: 48 };
describe("call ids are fresh in every answer", { timeout: timeoutFor({ decode: 4 * 48, requests: 4 }) }, () => {
  it("chat completions: call_<24 hex>, distinct across turns; the stream's ids are the answer's", async () => {
    const api = client(server.url, REQUEST);
    const ask = (messages: never[]) =>
      api.chat.completions.create({
        model: "m",
        messages,
        tools: chatTools,
        tool_choice: pick,
        max_tokens: 48,
        logit_bias: WANTS_TO_CALL,
      } as never);
    const user = { role: "user", content: "call a tool" } as never;
    const first = (await ask([user])) as { choices: Array<{ message: { tool_calls: Array<{ id: string }> } }> };
    const a = first.choices[0]!.message;
    const answered = a.tool_calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: "ok" }));
    const second = (await ask([user, a, ...answered, user] as never[])) as typeof first;
    const ids = [...a.tool_calls, ...second.choices[0]!.message.tool_calls].map((c) => c.id);
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const streamed = await assemble(
      (await api.chat.completions.create({
        model: "m",
        messages: [user],
        tools: chatTools,
        tool_choice: pick,
        max_tokens: 48,
        logit_bias: WANTS_TO_CALL,
        stream: true,
      } as never)) as unknown as AsyncIterable<never>,
    );
    expect(streamed.problems).toEqual([]);
    expect(streamed.toolCalls[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(ids).not.toContain(streamed.toolCalls[0]!.id);
  });

  it("Messages: toolu_ ids, distinct across turns, so the history of both is served", async () => {
    const api = anthropicClient(server.url, REQUEST, "k");
    const tools = chatTools.map((t) => ({ name: t.function.name, input_schema: t.function.parameters as never }));
    const base = {
      model: "m",
      max_tokens: 48,
      tools,
      tool_choice: { type: "tool" as const, name: "pick_5" },
      stop_sequences: [">::"],
    };
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "call a tool" }];
    const ids: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const m = await api.messages.create({ ...base, messages });
      const uses = m.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
      expect(uses.length).toBe(1);
      ids.push(...uses.map((u) => u.id));
      messages.push({ role: "assistant", content: m.content });
      messages.push({
        role: "user",
        content: uses.map((u) => ({ type: "tool_result" as const, tool_use_id: u.id, content: "ok" })),
      });
    }
    for (const id of ids) expect(id).toMatch(/^toolu_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(3);
    // Streamed: the tool_use block's id is the final message's.
    const st = api.messages.stream({ ...base, messages });
    const started: string[] = [];
    st.on("streamEvent", (e) => {
      if (e.type === "content_block_start" && e.content_block.type === "tool_use") started.push(e.content_block.id);
    });
    const final = await st.finalMessage();
    expect(final.content.filter((b) => b.type === "tool_use").map((b) => (b as Anthropic.ToolUseBlock).id)).toEqual(
      started,
    );
    expect(ids).not.toContain(started[0]);
  });

  it("Responses: call_ids distinct across turns, so the history of both is served", async () => {
    const api = client(server.url, REQUEST);
    const tools = chatTools.map((t) => ({
      type: "function" as const,
      name: t.function.name,
      parameters: t.function.parameters,
      strict: true,
    }));
    const input: unknown[] = [{ role: "user", content: "call a tool" }];
    const ids: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const r = await api.responses.create({
        model: "m",
        input: input as never,
        tools,
        tool_choice: { type: "function", name: "pick_5" },
        max_output_tokens: 48,
      });
      const calls = r.output.filter((o) => o.type === "function_call");
      expect(calls.length).toBe(1);
      ids.push(...calls.map((c) => c.call_id));
      input.push(
        ...r.output,
        ...calls.map((c) => ({ type: "function_call_output", call_id: c.call_id, output: "ok" })),
      );
    }
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(3);
  });
});

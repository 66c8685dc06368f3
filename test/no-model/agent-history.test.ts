// What the model wrote goes back with the history (seed 002, #547 and #549): text beside a call,
// null instead of "", reasoning blocks unchanged and in order, also after the history went
// through JSON; and no empty reasoning field is ever sent.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseHistory, runAgent, serializeHistory } from "../../src/index.js";
import type { AgentMessage } from "../../src/agent/types.js";
import { loggingTool, newLog } from "../support/agent-tools.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";

let server: ScriptedOpenAI;
beforeEach(async () => {
  server = await ScriptedOpenAI.start();
});
afterEach(async () => {
  await server.close();
});

const run = (extra: Partial<Parameters<typeof runAgent>[0]> = {}) =>
  runAgent({
    client: { baseURL: server.baseURL },
    tools: [loggingTool(newLog())],
    prompt: "Go",
    instructions: "inst",
    ...extra,
  });

/** The assistant message with calls in the n-th request, as the server received it. */
const callMessage = (n: number) =>
  server.requests[n]!.body.messages.find((m: any) => m.role === "assistant" && m.tool_calls?.length > 0);

// Two blocks of different kinds, keys in the provider's own order: both must come back as they were.
const DETAILS_TEXT =
  '[{"type":"reasoning.text","text":"Check the configuration first.","id":"r1","format":"anthropic-claude-v1","index":0,"signature":"sha256:abc"},' +
  '{"type":"reasoning.encrypted","data":"AAAA","id":"r2","format":"anthropic-claude-v1","index":1}]';

describe("#547 text beside a tool call", () => {
  it("stays in the history with its call", async () => {
    server
      .answer({ content: "I look at the configuration first.", calls: [{ name: "probe" }] })
      .answer({ content: "Done." });
    const r = await run();
    expect(r.status).toBe("completed");
    expect(callMessage(1).content).toBe("I look at the configuration first.");
    expect(callMessage(1).tool_calls[0].function.name).toBe("probe");
  });

  it.each([
    ["null", null],
    ["an empty string", ""],
  ])('with no text (the provider sent %s), the call goes back with content null, never ""', async (_, content) => {
    server.answer({ content, calls: [{ name: "probe" }] }).answer({ content: "Done." });
    await run();
    expect(callMessage(1).content).toBeNull();
    expect(server.requests[1]!.raw).not.toContain('"content":""');
  });

  it("every message that went over the wire is in the result, in order", async () => {
    server.answer({ content: "Looking.", calls: [{ name: "probe", id: "c1" }] }).answer({ content: "Done." });
    const r = await run();
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    // The second request is exactly the result's history without the last answer.
    expect(server.requests[1]!.body.messages).toEqual(r.messages.slice(0, 4));
    expect(r.finalMessage).toBe("Done.");
  });
});

describe("#549 reasoning details", () => {
  it("go back to the provider unchanged and in order (signature, id, format, index)", async () => {
    server
      .answer({ content: "Checking.", calls: [{ name: "probe" }], reasoning_details: JSON.parse(DETAILS_TEXT) })
      .answer({ content: "Done." });
    await run();
    const sent = callMessage(1).reasoning_details;
    expect(sent).toEqual(JSON.parse(DETAILS_TEXT));
    // Byte for byte, keys in the provider's order: the provider recognises its block by it.
    expect(server.requests[1]!.raw).toContain(`"reasoning_details":${DETAILS_TEXT}`);
  });

  it("survive serializing the history to JSON and back, and go back unchanged after that", async () => {
    server
      .answer({ content: "Text", calls: [{ name: "probe", id: "c1" }], reasoning_details: JSON.parse(DETAILS_TEXT) })
      .answer({ content: "Done." });
    const first = await run();
    const restored = parseHistory(serializeHistory(first.messages));
    expect(restored).toEqual(first.messages);
    const withCall = restored.find((m) => m.role === "assistant" && m.tool_calls) as Extract<
      AgentMessage,
      { role: "assistant" }
    >;
    expect(withCall.content).toBe("Text");
    expect(withCall.reasoning_details).toEqual(JSON.parse(DETAILS_TEXT));

    // A restart: the restored history is sent as it was saved.
    server.answer({ content: "Again." });
    await runAgent({
      client: { baseURL: server.baseURL },
      tools: [loggingTool(newLog())],
      messages: [...restored, { role: "user", content: "More" }],
    });
    expect(server.requests[2]!.raw).toContain(`"reasoning_details":${DETAILS_TEXT}`);
  });

  it("without reasoning, no reasoning field is sent, not even an empty one", async () => {
    server
      .reply({
        body: {
          choices: [
            {
              finish_reason: "tool_calls",
              message: {
                role: "assistant",
                content: "x",
                reasoning: "",
                reasoning_content: "",
                reasoning_details: [],
                tool_calls: [{ id: "c1", type: "function", function: { name: "probe", arguments: "{}" } }],
              },
            },
          ],
        },
      })
      .answer({ content: "Done." });
    const r = await run();
    expect(r.status).toBe("completed");
    expect(server.requests[1]!.raw).not.toContain("reasoning");
    expect(serializeHistory(r.messages)).not.toContain("reasoning");
  });

  it("a history with an assistant message of empty content beside calls is refused with what to do", () => {
    const bad = JSON.stringify([{ role: "assistant", content: "", tool_calls: [] }]);
    expect(() => parseHistory(bad)).toThrow(/must be null, not ""/);
  });
});

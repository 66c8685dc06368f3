// The three client APIs on a real model (Qwen2.5-Coder 0.5B from `npm run models`, greedy, on the
// CPU) through their real client packages: the Anthropic SDK on /v1/messages, the openai client's
// Responses API on /v1/responses, and the Vercel AI SDK on /v1/chat/completions. In each, an agent's
// two turns: the first answer forced to call (tool_choice any / required) holds the right call for
// the prompt, valid against its tool; its result goes back as the API sends results (tool_result,
// function_call_output, the SDK's tool step) and the second answer is served, every call in it valid;
// every request is answered the same streamed and whole (test/support/both-ways.ts). A model that is
// not fetched is skipped with the line that fetches it, except under CI=true.
import { describe, expect, it } from "vitest";
import type Anthropic from "@anthropic-ai/sdk";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import type { ResponseCreateParamsNonStreaming, ResponseInputItem } from "openai/resources/responses/responses";
import { CODER, coderEntry, useCoderServer } from "../support/real-coder.js";
import { messagesBothWays, responsesBothWays } from "../support/both-ways.js";
import { callProblems, client, type CallLike, type FunctionTool, anthropicClient } from "../support/server-fixtures.js";
import { FILE_TOOLS } from "../support/tools.js";
import { timedFetch, timeoutFor, type Work } from "../support/timeouts.js";

const NAME = CODER;
const entry = coderEntry;
const inCi = process.env.CI === "true";
if (!entry.present && !inCi) console.warn(`clients-real: ${NAME} not fetched; run \`npm run models\``);

const tools = FILE_TOOLS as FunctionTool[];
const READ = "Read the file /etc/hosts.";
const HOSTS = "127.0.0.1 localhost";
/** One request: at most 96 tokens decoded, on the real model. A test sends at most 4 (the AI SDK's two steps, twice). */
const REQUEST: Work = { decode: 96, model: "qwen2.5-coder-0.5b" };
const BY_WORK = { timeout: timeoutFor({ ...REQUEST, decode: 4 * 96, requests: 4 }) };

describe.skipIf(!entry.present && !inCi)(`the three client APIs on ${NAME}`, BY_WORK, () => {
  const served = useCoderServer();

  it("Anthropic Messages: tool_use for the prompt, its tool_result back, a valid second answer; streamed the same", async () => {
    const api = anthropicClient(served.server.url, REQUEST, "k");
    const anthropicTools = tools.map((t) => ({ name: t.function.name, input_schema: t.function.parameters as never }));
    const base = { model: NAME, max_tokens: 96, temperature: 0, tools: anthropicTools };
    const first = await messagesBothWays(api, {
      ...base,
      tool_choice: { type: "any" },
      messages: [{ role: "user", content: READ }],
    });
    expect(first.stop_reason).toBe("tool_use");
    const uses = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    expect(uses.map(({ name, input }) => ({ name, input }))).toEqual([{ name: "read", input: { path: "/etc/hosts" } }]);

    const second = await messagesBothWays(api, {
      ...base,
      messages: [
        { role: "user", content: READ },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: uses[0]!.id, content: HOSTS }] },
      ],
    });
    expect(["end_turn", "tool_use", "max_tokens"]).toContain(second.stop_reason);
    const calls: CallLike[] = second.content.flatMap((b) =>
      b.type === "tool_use"
        ? [{ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input) } }]
        : [],
    );
    expect(callProblems(calls, tools)).toBe("");
    console.log(
      `${NAME} messages, after the tool_result: ${second.stop_reason} ${JSON.stringify(second.content).slice(0, 300)}`,
    );
  });

  it("Responses: a function_call for the prompt, its output back, a valid second response; streamed the same", async () => {
    const api = client(served.server.url, REQUEST);
    const responseTools = tools.map((t) => ({
      type: "function" as const,
      name: t.function.name,
      parameters: t.function.parameters,
      strict: true,
    }));
    const ask: ResponseCreateParamsNonStreaming = {
      model: NAME,
      input: "Write 'hello' to notes.txt.",
      tools: responseTools,
      tool_choice: "required",
      temperature: 0,
      max_output_tokens: 96,
    };
    const first = await responsesBothWays(api, ask);
    expect(first.status).toBe("completed");
    const calls = first.output.filter((o) => o.type === "function_call");
    expect(calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) }))).toEqual([
      { name: "write", arguments: { path: "notes.txt", content: "hello" } },
    ]);

    const input: ResponseInputItem[] = [
      { role: "user", content: "Write 'hello' to notes.txt." },
      ...(first.output as ResponseInputItem[]),
      { type: "function_call_output", call_id: calls[0]!.call_id, output: "written" },
    ];
    const second = await responsesBothWays(api, { ...ask, input, tool_choice: "auto" });
    expect(["completed", "incomplete"]).toContain(second.status);
    const again = second.output.flatMap((o) =>
      o.type === "function_call"
        ? [{ id: o.call_id, type: "function", function: { name: o.name, arguments: o.arguments } }]
        : [],
    );
    expect(callProblems(again, tools)).toBe("");
    expect(again.map((c) => c.id)).not.toContain(calls[0]!.call_id);
    console.log(`${NAME} responses, after the output: ${second.status} ${JSON.stringify(second.output).slice(0, 300)}`);
  });

  it("the Vercel AI SDK: the tool runs with the model's input, its result goes back, steps end; streamText the same", async () => {
    const provider = createOpenAICompatible({
      name: "toolmask",
      baseURL: `${served.server.url}/v1`,
      fetch: timedFetch(REQUEST),
    });
    const ran: unknown[] = [];
    const sdkTools = {
      read: tool({
        inputSchema: jsonSchema<{ path: string }>(tools[0]!.function.parameters),
        execute: async (input: { path: string }) => {
          ran.push(input);
          return HOSTS;
        },
      }),
    };
    const settings = {
      model: provider.chatModel(NAME),
      prompt: READ,
      tools: sdkTools,
      temperature: 0,
      maxOutputTokens: 96,
      stopWhen: stepCountIs(2),
      // The first step must call; the second answers from the result.
      prepareStep: ({ stepNumber }: { stepNumber: number }) => ({
        toolChoice: stepNumber === 0 ? ("required" as const) : ("none" as const),
      }),
      maxRetries: 0,
    };
    const r = await generateText(settings);
    expect(r.steps.length).toBe(2);
    expect(r.steps[0]!.toolCalls.map((c) => ({ name: c.toolName, input: c.input }))).toEqual([
      { name: "read", input: { path: "/etc/hosts" } },
    ]);
    expect(ran).toEqual([{ path: "/etc/hosts" }]);
    expect(r.steps[1]!.toolCalls).toEqual([]);
    const s = streamText(settings);
    for await (const p of s.fullStream) if (p.type === "error") throw p.error;
    const steps = await s.steps;
    expect(steps.map((st) => st.toolCalls.map((c) => c.input))).toEqual(
      r.steps.map((st) => st.toolCalls.map((c) => c.input)),
    );
    expect(await s.text).toBe(r.text);
    console.log(`${NAME} AI SDK, step 2 (${r.finishReason}): ${JSON.stringify(r.text).slice(0, 300)}`);
  });
});

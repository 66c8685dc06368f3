// What Codex CLI 0.171.0 sends to POST /v1/responses (test/support/codex-request.ts builds requests
// of its shape), through the real openai client against the server on the random-weight test
// model: the fields and headers it adds are accepted; its namespace, hosted, tool_search and custom
// tools each come back as Codex reads them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import type {
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import {
  agentsNamespace,
  applyPatch,
  CODEX_HEADERS,
  codexTurn,
  execCommand,
  toolSearch,
  webSearch,
} from "../support/codex-request.js";
import { responsesBothWays } from "../support/both-ways.js";
import { customInputSchema } from "../../src/server/responses/custom-format.js";
import { client } from "../support/server-fixtures.js";
import { responsesProtocolProblems } from "../support/stream-protocol.js";
import { testModelPath } from "../support/test-model.js";
import type { Work } from "../support/timeouts.js";

let model: LlamaModel;
let server: ToolmaskServer;
let api: OpenAI;
/** Requests here decode at most 24 tokens. */
const REQUEST: Work = { decode: 24 };
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder" });
  api = client(server.url, REQUEST);
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

async function events(params: ResponseCreateParamsStreaming): Promise<ResponseStreamEvent[]> {
  const out: ResponseStreamEvent[] = [];
  for await (const e of await api.responses.create(params, { headers: CODEX_HEADERS })) out.push(e);
  return out;
}

describe("Codex's fields and headers", () => {
  it("client_metadata, prompt_cache_key, include, reasoning.summary, text.verbosity, store and the x-codex-* headers: accepted", async () => {
    const seen = await events(codexTurn([execCommand], { max_output_tokens: 8 }));
    expect(responsesProtocolProblems(seen)).toEqual([]);
    expect(seen.at(-1)?.type).toMatch(/^response\.(completed|incomplete)$/);
    const done = seen.at(-1) as unknown as { response: { reasoning: unknown; store: boolean } };
    expect(done.response.reasoning).toEqual({ effort: "medium", summary: "auto" });
    expect(done.response.store).toBe(false);
  });

  it("client_metadata that is not an object of strings is a 400 naming it", async () => {
    for (const bad of [[1], { turn: 7 }, "x"]) {
      const err = await events(codexTurn([execCommand], { max_output_tokens: 2, client_metadata: bad })).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ status: 400, error: { param: "client_metadata", code: "invalid_type" } });
    }
  });
});

const CALL: Work = { decode: 48 };
const ask = (tools: unknown[], extra: Record<string, unknown>) =>
  ({
    model: "m",
    input: "call a tool",
    tools,
    max_output_tokens: 48,
    ...extra,
  }) as unknown as ResponseCreateParamsNonStreaming;

describe("Codex's tools", () => {
  const all = [execCommand, agentsNamespace, applyPatch, toolSearch, webSearch];

  it("a turn with every kind of tool Codex declares is answered; the hosted web_search is named in toolmask.tools_not_offered", async () => {
    const seen = await events(codexTurn(all, { max_output_tokens: 8 }));
    expect(responsesProtocolProblems(seen)).toEqual([]);
    const created = seen[0] as unknown as { response: { tools: unknown[]; toolmask?: unknown } };
    expect(created.response.tools).toEqual(all);
    const notOffered = {
      tools_not_offered: [{ path: "tools[4]", type: "web_search", reason: expect.stringMatching(/hosted/) }],
    };
    expect(created.response.toolmask).toEqual(notOffered);
    expect((seen.at(-1) as unknown as { response: { toolmask?: unknown } }).response.toolmask).toEqual(notOffered);
  });

  it("web_search is left out of the prompt: the same prompt as without it", async () => {
    const a = await api.responses.create(ask([execCommand, webSearch], { max_output_tokens: 1 }));
    const b = await api.responses.create(ask([execCommand], { max_output_tokens: 1 }));
    expect(a.usage!.input_tokens).toBe(b.usage!.input_tokens);
    expect(b).not.toHaveProperty("toolmask");
    // Hosted tools only: the prompt of no tools at all.
    const c = await api.responses.create(ask([webSearch], { max_output_tokens: 1 }));
    const d = await api.responses.create(ask([], { max_output_tokens: 1 }));
    expect(c.usage!.input_tokens).toBe(d.usage!.input_tokens);
    expect(c.usage!.input_tokens).toBeLessThan(b.usage!.input_tokens);
    expect(c.tools).toEqual([webSearch]);
  });

  it("a namespaced function: offered as multi_agent_v1__close_agent, back as a function_call with name and namespace apart", async () => {
    const c = client(server.url, CALL);
    const r = await responsesBothWays(
      c,
      ask(all, { tool_choice: { type: "function", name: "multi_agent_v1__close_agent" }, parallel_tool_calls: false }),
    );
    const calls = r.output.filter((o) => o.type === "function_call");
    expect(calls).toEqual([
      expect.objectContaining({ name: "close_agent", namespace: "multi_agent_v1", status: "completed" }),
    ]);
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ target: "agent-7" });
  });

  it("tool_search with execution client: back as a tool_search_call item, its arguments an object", async () => {
    const c = client(server.url, CALL);
    // One query the random model can finish within the limit.
    const search = {
      ...toolSearch,
      parameters: { type: "object", properties: { query: { enum: ["calendar"] } }, required: ["query"] },
    };
    const r = await responsesBothWays(
      c,
      ask([execCommand, search], {
        tool_choice: { type: "function", name: "tool_search" },
        parallel_tool_calls: false,
      }),
    );
    const found = r.output.filter((o) => o.type === "tool_search_call");
    expect(found).toEqual([
      expect.objectContaining({ execution: "client", call_id: expect.stringMatching(/^call_/), status: "completed" }),
    ]);
    expect(found[0]!.arguments).toEqual({ query: "calendar" });
  });

  it("the tools a tool_search_output loads are offered: a loaded namespaced function is called and comes back with its namespace", async () => {
    const c = client(server.url, CALL);
    const calendar = {
      type: "namespace",
      name: "mcp__calendar",
      description: "Calendar tools.",
      tools: [
        {
          type: "function",
          name: "create_event",
          parameters: { type: "object", properties: { day: { enum: ["monday"] } }, required: ["day"] },
        },
      ],
    };
    const r = await responsesBothWays(
      c,
      ask([execCommand, toolSearch], {
        tool_choice: { type: "function", name: "mcp__calendar__create_event" },
        parallel_tool_calls: false,
        input: [
          { role: "user", content: "add an event on monday" },
          { type: "tool_search_call", call_id: "s1", execution: "client", arguments: { query: "calendar" } },
          { type: "tool_search_output", call_id: "s1", execution: "client", tools: [calendar] },
        ],
      }),
    );
    const calls = r.output.filter((o) => o.type === "function_call");
    expect(calls).toEqual([expect.objectContaining({ name: "create_event", namespace: "mcp__calendar" })]);
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ day: "monday" });
    expect(r.tools).toEqual([execCommand, toolSearch]);
  });

  const customs: Array<[string, unknown, RegExp]> = [
    ["a regex", { type: "grammar", syntax: "regex", definition: "[ab]{3}|yes" }, /^(?:[ab]{3}|yes)$/u],
    [
      "a Lark grammar",
      { type: "grammar", syntax: "lark", definition: 'start: "ok" | "no" DIGIT\n%import common.DIGIT' },
      /^(?:ok|no[0-9])$/u,
    ],
  ];
  it.each(customs)(
    "a custom tool whose format is %s: back as a custom_tool_call whose input is in its language",
    async (_, format, oracle) => {
      const c = client(server.url, CALL);
      const tool = { type: "custom", name: "answer", format };
      const r = await responsesBothWays(
        c,
        ask([tool, execCommand], { tool_choice: { type: "custom", name: "answer" }, parallel_tool_calls: false }),
      );
      const made = r.output.filter((o) => o.type === "custom_tool_call");
      expect(made).toEqual([expect.objectContaining({ name: "answer", call_id: expect.stringMatching(/^call_/) })]);
      expect(made[0]!.input).toMatch(oracle);
      const raw = await events({
        ...ask([tool], { tool_choice: { type: "custom", name: "answer" }, parallel_tool_calls: false }),
        stream: true,
      } as ResponseCreateParamsStreaming);
      const types = raw.map((e) => e.type);
      expect(types).toContain("response.custom_tool_call_input.delta");
      expect(types).toContain("response.custom_tool_call_input.done");
    },
  );

  it("a custom tool of format text takes any text", async () => {
    const c = client(server.url, CALL);
    const r = await responsesBothWays(
      c,
      ask([{ type: "custom", name: "note", format: { type: "text" } }], {
        tool_choice: "required",
        max_output_tokens: 64,
      }),
    );
    // The random model may run to the limit inside the input: a call kept is a custom_tool_call.
    for (const o of r.output)
      if (o.type !== "message" && o.type !== "reasoning") expect(o.type).toBe("custom_tool_call");
  });

  it("the next turn: each kind of call item and its output go back as the chat route's prompt", async () => {
    const fc = {
      id: "c1",
      type: "function",
      function: { name: "multi_agent_v1__close_agent", arguments: '{"target":"agent-7"}' },
    };
    const ct = {
      id: "c2",
      type: "function",
      function: {
        name: "apply_patch",
        arguments: JSON.stringify({ input: "*** Begin Patch\n*** Delete File: a\n*** End Patch\n" }),
      },
    };
    const ts = { id: "c3", type: "function", function: { name: "tool_search", arguments: '{"query":"calendar"}' } };
    const turn = await api.responses.create(
      ask(all, {
        max_output_tokens: 1,
        input: [
          { role: "user", content: "go" },
          {
            type: "function_call",
            call_id: "c1",
            name: "close_agent",
            namespace: "multi_agent_v1",
            arguments: fc.function.arguments,
          },
          {
            type: "custom_tool_call",
            call_id: "c2",
            name: "apply_patch",
            input: "*** Begin Patch\n*** Delete File: a\n*** End Patch\n",
          },
          { type: "tool_search_call", call_id: "c3", execution: "client", arguments: { query: "calendar" } },
          { type: "function_call_output", call_id: "c1", output: "closed" },
          { type: "custom_tool_call_output", call_id: "c2", output: "Done!" },
          { type: "tool_search_output", call_id: "c3", execution: "client", tools: [execCommand] },
        ],
      }),
    );
    const chatTools = [
      {
        type: "function",
        function: { name: "exec_command", description: execCommand.description, parameters: execCommand.parameters },
      },
      ...agentsNamespace.tools.map((t) => ({
        type: "function",
        function: {
          name: `multi_agent_v1__${t.name}`,
          parameters: t.parameters,
          ...(t.description ? { description: t.description } : {}),
        },
      })),
      {
        type: "function",
        function: {
          name: "apply_patch",
          description: applyPatch.description,
          // The input's schema: its pattern is the Lark grammar's language (test/no-model/lark-grammar).
          parameters: customInputSchema(applyPatch.format, "tools[2]", "apply_patch"),
        },
      },
      {
        type: "function",
        function: { name: "tool_search", description: toolSearch.description, parameters: toolSearch.parameters },
      },
    ];
    const same = await api.chat.completions.create({
      model: "m",
      max_tokens: 1,
      tools: chatTools as never,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [fc, ct, ts] } as never,
        { role: "tool", tool_call_id: "c1", content: "closed" },
        { role: "tool", tool_call_id: "c2", content: "Done!" },
        { role: "tool", tool_call_id: "c3", content: JSON.stringify([execCommand]) },
      ],
    });
    expect(turn.usage!.input_tokens).toBe(same.usage!.prompt_tokens);
  });
});

// Tool search on /v1/messages (src/server/anthropic/deferred-tools.ts): a tool declared with
// `defer_loading: true` is hidden from the model (not in the prompt, not callable) until a
// tool_reference block in a tool_result loads it, as Anthropic's API treats it. Claude Code 2.1.328
// declares `DeferredToolPlaceholder` so on every request; offered, Qwen2.5-Coder called it and the
// client answered "No such tool available". Asserted through the real @anthropic-ai/sdk client:
// count_tokens (the prompt with a hidden tool is the prompt without it), a tool_choice that names
// a hidden tool or needs one (400), the same after a tool_reference (the call made), and bad input.
import type Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { anthropicClient } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";

let model: LlamaModel;
let server: ToolmaskServer;
let api: Anthropic;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, dialect: "hermes" });
  api = anthropicClient(server.url, { decode: 200 });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const schema = (key: string) => ({
  type: "object" as const,
  properties: { [key]: { type: "string", enum: ["a", "b"] } },
  required: [key],
});
const READ = { name: "Read", input_schema: schema("path") };
const HIDDEN = { name: "Fetch", input_schema: schema("url"), defer_loading: true };
const ask = [{ role: "user" as const, content: "Read a file." }];
/** A conversation in which a search's tool_result loaded Fetch. */
const loaded = [
  ...ask,
  {
    role: "assistant" as const,
    content: [{ type: "tool_use" as const, id: "toolu_1", name: "ToolSearch", input: { query: "fetch" } }],
  },
  {
    role: "user" as const,
    content: [
      { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "tool_reference", tool_name: "Fetch" }] },
    ],
  },
] as Anthropic.MessageParam[];
const SEARCH = { name: "ToolSearch", input_schema: schema("query") };
const tokens = (body: object) => api.messages.countTokens({ model: "m", ...body } as never).then((r) => r.input_tokens);
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "answered",
    (e: { status?: number; error?: { error?: { message?: string } } }) => `${e.status} ${e.error?.error?.message}`,
  );

describe("defer_loading on /v1/messages", () => {
  it("a deferred tool no tool_reference loaded is left out of the prompt; once loaded it is in", async () => {
    expect(await tokens({ messages: ask, tools: [READ, HIDDEN] })).toBe(await tokens({ messages: ask, tools: [READ] }));
    const withLoaded = await tokens({ messages: loaded, tools: [READ, SEARCH, HIDDEN] });
    const notDeferred = await tokens({
      messages: loaded,
      tools: [READ, SEARCH, { name: HIDDEN.name, input_schema: HIDDEN.input_schema }],
    });
    expect(withLoaded).toBe(notDeferred);
  });

  it("a call is never to a hidden tool: tool_choice any with Read and a hidden Fetch calls Read", async () => {
    for (let i = 0; i < 4; i++) {
      const r = await api.messages.create({
        model: "m",
        max_tokens: 200,
        messages: ask,
        tools: [READ, HIDDEN] as never,
        tool_choice: { type: "any" },
        ...({ temperature: 1 } as object),
      });
      const names = r.content.filter((b) => b.type === "tool_use").map((b) => b.name);
      expect(names.length).toBeGreaterThan(0);
      expect(new Set(names)).toEqual(new Set(["Read"]));
    }
  });

  it("tool_choice naming a hidden tool, or needing one when every tool is hidden, is a 400 that says so", async () => {
    const named = { model: "m", max_tokens: 16, messages: ask, tools: [READ, HIDDEN] as never };
    expect(await refusal(api.messages.create({ ...named, tool_choice: { type: "tool", name: "Fetch" } }))).toBe(
      '400 tool_choice.name "Fetch" is deferred (defer_loading: true) and no tool_reference in the conversation loads it',
    );
    expect(
      await refusal(
        api.messages.create({
          model: "m",
          max_tokens: 16,
          messages: ask,
          tools: [HIDDEN] as never,
          tool_choice: { type: "any" },
        }),
      ),
    ).toMatch(
      /^400 tool_choice \{"type": "any"\} needs a tool the model can call, and every declared tool is deferred/,
    );
  });

  it("after a tool_reference loads it, tool_choice naming it is answered with its call", async () => {
    const r = await api.messages.create({
      model: "m",
      max_tokens: 200,
      messages: loaded,
      tools: [READ, SEARCH, HIDDEN] as never,
      tool_choice: { type: "tool", name: "Fetch" },
    });
    const call = r.content.find((b) => b.type === "tool_use");
    expect(call).toMatchObject({ name: "Fetch", input: { url: expect.stringMatching(/^[ab]$/) } });
  });

  it("bad input: defer_loading not a boolean, a tool_reference to an undeclared tool or with no name, an unknown block", async () => {
    const create = (tools: object[], messages: Anthropic.MessageParam[]) =>
      refusal(api.messages.create({ model: "m", max_tokens: 8, messages, tools: tools as never }));
    expect(await create([READ, { ...HIDDEN, defer_loading: "yes" }], ask)).toBe(
      "400 tools[1].defer_loading must be true or false, got string",
    );
    const referencing = (block: object) =>
      [
        ...loaded.slice(0, 2),
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [block] }] },
      ] as Anthropic.MessageParam[];
    expect(await create([READ, SEARCH], referencing({ type: "tool_reference", tool_name: "Nope" }))).toBe(
      '400 messages[2].content[0].content[0].tool_name "Nope" is not among the declared tools; a tool_reference loads a tool declared with defer_loading: true',
    );
    expect(await create([READ, SEARCH], referencing({ type: "tool_reference" }))).toMatch(
      /^400 messages\[2\]\.content\[0\]\.content\[0\]\.tool_name must be the name of a declared tool/,
    );
    expect(await create([READ, SEARCH], referencing({ type: "image", source: {} }))).toMatch(
      /^400 messages\[2\]\.content\[0\]\.content\[0\] must be \{"type": "text"/,
    );
  });
});

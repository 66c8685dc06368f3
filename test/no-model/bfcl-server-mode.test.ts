// npm run bench:bfcl's llama-server mode (src/bench/bfcl/server-mode.ts) against a scripted
// OpenAI-compatible endpoint: what each request carries (the item's messages and converted tools,
// the run's tool_choice, greedy, max_tokens, parallel calls, cache_prompt false) and how each kind of
// answer is recorded — calls and toolmask's verdict on them, an HTTP error as an invalid answer that
// says so, a call cut by max_tokens as invalid — and the table's three columns. The real server runs in
// test/model-real/bench-smallest-bfcl.test.ts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toOpenAiTools } from "../../src/bench/bfcl/convert.js";
import { decodeCategoryOnServer } from "../../src/bench/bfcl/server-mode.js";
import { markdownTable, summarizeGroup, type BfclReport } from "../../src/bench/bfcl/summary.js";
import type { BfclAnswer } from "../../src/bench/bfcl/run.js";
import type { BfclItem } from "../../src/bench/bfcl/types.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";

const item = (id: string, category: BfclItem["category"]): BfclItem => ({
  id,
  category,
  messages: [{ role: "user", content: `question ${id}` }],
  functions: [
    {
      name: "geo.distance",
      description: "Distance between two cities",
      parameters: {
        type: "dict",
        properties: { from: { type: "string", description: "city" }, to: { type: "string", description: "city" } },
        required: ["from", "to"],
      },
    },
  ],
  groundTruth: [],
});

let server: ScriptedOpenAI;
beforeEach(async () => {
  server = await ScriptedOpenAI.start();
});
afterEach(async () => {
  await server.close();
});

const options = { toolChoice: "required" as const, maxTokens: 77, concurrency: 1, requestTimeoutMs: 60_000 };

describe("the llama-server mode of bench:bfcl", () => {
  it("sends each item with its converted tools, the run's tool_choice, greedy, max_tokens, parallel calls and cache_prompt false", async () => {
    server.answer({ calls: [{ name: "geo_distance", arguments: '{"from": "Paris", "to": "Rome"}' }] });
    server.answer({ content: "no tool needed" });
    const items = [item("simple_python_1", "simple"), item("irrelevance_1", "irrelevance")];
    await decodeCategoryOnServer({ url: server.origin }, "simple", [items[0]!], options);
    await decodeCategoryOnServer({ url: server.origin }, "irrelevance", [items[1]!], options);
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
    const [a, b] = server.requests.map((r) => r.body);
    expect(a).toEqual({
      messages: items[0]!.messages,
      tools: toOpenAiTools(items[0]!.functions).tools,
      tool_choice: "required",
      parallel_tool_calls: true,
      temperature: 0,
      max_tokens: 77,
      cache_prompt: false,
    });
    // irrelevance stays auto under required, as in the in-process modes (run.ts choiceFor)
    expect(b.tool_choice).toBe("auto");
  });

  it("records the calls with toolmask's verdict, an HTTP error as an invalid answer naming it, and a call cut by max_tokens as invalid", async () => {
    server.answer({
      calls: [{ name: "geo_distance", arguments: '{"from": "Paris", "to": "Rome"}' }],
      usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
    });
    server.reply({ status: 500, body: { error: { code: 500, message: "Failed to parse input at pos 12" } } });
    server.answer({ calls: [{ name: "geo_distance", arguments: '{"from": "Par' }], finish_reason: "length" });
    server.answer({ calls: [{ name: "geo_distance", arguments: '{"from": "Paris"}' }] });
    server.answer({ content: "I cannot call a tool for that." });
    const items = ["a", "b", "c", "d", "e"].map((x) => item(`simple_python_${x}`, "simple"));
    const g = await decodeCategoryOnServer({ url: server.origin }, "simple", items, options);
    expect(g.mode).toBe("llama-server");
    const view = g.answers.map((x) => ({
      mode: x.mode,
      finish: x.finishReason,
      valid: x.valid,
      reason: x.reason,
      calls: x.calls.length,
      error: x.serverError?.slice(0, 8),
    }));
    expect(view).toEqual([
      { mode: "llama-server", finish: "tool_calls", valid: true, reason: "", calls: 1, error: undefined },
      {
        mode: "llama-server",
        finish: "stop",
        valid: false,
        reason: expect.stringMatching(/^llama-server answered HTTP 500: .*Failed to parse input/),
        calls: 0,
        error: "HTTP 500",
      },
      {
        mode: "llama-server",
        finish: "length",
        valid: false,
        reason: "arguments of geo_distance are not JSON",
        calls: 1,
        error: undefined,
      },
      {
        mode: "llama-server",
        finish: "tool_calls",
        valid: false,
        reason: "geo_distance lacks to",
        calls: 1,
        error: undefined,
      },
      {
        mode: "llama-server",
        finish: "stop",
        valid: false,
        reason: "no call although one is required",
        calls: 0,
        error: undefined,
      },
    ]);
    expect(g.answers[0]).toMatchObject({ promptTokens: 120, completionTokens: 30, text: "" });
    expect(g.answers[4]!.text).toBe("I cannot call a tool for that.");

    const scored: BfclAnswer[] = g.answers.map((x) => ({
      ...x,
      astCorrect: false,
      astError: null,
      contentCalls: [],
      astCorrectFromContent: false,
    }));
    const row = summarizeGroup("m", "hermes", g, scored);
    expect(row).toMatchObject({ mode: "llama-server", items: 5, valid: 1, serverErrors: 1, withCalls: 3 });
    const report = { models: [], rows: [row] } as unknown as BfclReport;
    const [head, , line] = markdownTable(report).split("\n");
    expect(head).toContain("| valid unmasked | valid masked | valid llama-server |");
    expect(line!.split(" | ").slice(3, 9)).toEqual(["—", "—", "1/5 (20%)", "—", "—", "0/5 (0%)"]);
  });

  it("stops the run with the reason when the server answers a finish_reason it does not know", async () => {
    server.answer({ content: "x", finish_reason: "eos" });
    await expect(
      decodeCategoryOnServer({ url: server.origin }, "simple", [item("simple_python_1", "simple")], options),
    ).rejects.toThrow(/unexpected finish_reason "eos"/);
  });
});

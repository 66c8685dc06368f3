// The rules of tool_choice live in src/dialects/tool-choice.ts, one function each: the library
// (resolveRequest) and the three HTTP request readers refuse the same requests by the same rule,
// each in its own fields. A named tool with no tools declared needs tools everywhere (the chat
// route said the name was "not among the declared tools (none declared)", the library that it
// was not declared, Responses and Messages that it needed tools).
import { describe, expect, it } from "vitest";
import { resolveRequest, ToolDefinitionError } from "../../src/index.js";
import { ApiError } from "../../src/server/errors.js";
import { parseCompletionRequest } from "../../src/server/chat/request.js";
import { parseResponsesRequest } from "../../src/server/responses/request.js";
import { parseMessagesRequest } from "../../src/server/anthropic/request.js";
import { fn } from "../support/tools.js";

const TOOLS = [fn("read", { path: { type: "string" } }), fn("write", { path: { type: "string" } })];

/** The refusal a request reader gives `body`, as [param, message]. */
function refusal(read: (body: unknown) => unknown, body: unknown): [string | null, string] {
  try {
    read(body);
  } catch (e) {
    if (e instanceof ApiError) return [e.param, e.message];
    if (e instanceof ToolDefinitionError) return ["library", e.message];
    throw e;
  }
  throw new Error("the request was not refused");
}

const bounds = { vocabSize: 1000, contextSize: 4096 };
const messages = [{ role: "user", content: "hi" }];
const readers = {
  chat: (tools: unknown[], choice: "required" | "named") =>
    refusal((b) => parseCompletionRequest(b, bounds), {
      messages,
      tools: tools.length ? tools : undefined,
      tool_choice: choice === "required" ? "required" : { type: "function", function: { name: "nope" } },
    }),
  responses: (tools: unknown[], choice: "required" | "named") =>
    refusal((b) => parseResponsesRequest(b, bounds), {
      input: "hi",
      tools: tools.map((t) => ({ type: "function", name: (t as { function: { name: string } }).function.name })),
      tool_choice: choice === "required" ? "required" : { type: "function", name: "nope" },
    }),
  messages: (tools: unknown[], choice: "required" | "named") =>
    refusal((b) => parseMessagesRequest(b, bounds), {
      model: "m",
      max_tokens: 8,
      messages,
      tools: tools.map((t) => ({
        name: (t as { function: { name: string } }).function.name,
        input_schema: { type: "object" },
      })),
      tool_choice: choice === "required" ? { type: "any" } : { type: "tool", name: "nope" },
    }),
  library: (tools: unknown[], choice: "required" | "named") =>
    refusal(
      () =>
        resolveRequest({
          dialect: "hermes",
          tools,
          toolChoice: choice === "required" ? "required" : { type: "function", function: { name: "nope" } },
        }),
      undefined,
    ),
};

describe("the rules of tool_choice, alike on every route", () => {
  it.each(["required", "named"] as const)(
    "%s with no tools: needs tools, on every route and in the library",
    (choice) => {
      const got = Object.fromEntries(Object.entries(readers).map(([k, read]) => [k, read([], choice)]));
      expect(got).toEqual({
        chat: ["tool_choice", expect.stringMatching(/^tool_choice .* needs tools; declare at least one in tools$/)],
        responses: [
          "tool_choice",
          expect.stringMatching(/^tool_choice .* needs tools; declare at least one in tools$/),
        ],
        messages: ["tool_choice", expect.stringMatching(/^tool_choice .* needs tools; declare at least one in tools$/)],
        library: ["library", "toolChoice requires a call but no tools are declared"],
      });
    },
  );

  it("a named tool not declared: not among the declared tools, on every route and in the library", () => {
    const got = Object.fromEntries(Object.entries(readers).map(([k, read]) => [k, read(TOOLS, "named")]));
    expect(got).toEqual({
      chat: ["tool_choice", 'tool_choice names "nope", which is not among the declared tools (read, write)'],
      responses: ["tool_choice", 'tool_choice names "nope", which is not among the declared tools (read, write)'],
      messages: ["tool_choice.name", 'tool_choice.name "nope" is not among the declared tools (read, write)'],
      library: ["library", 'toolChoice names "nope", which is not among the declared tools'],
    });
  });
});

// The bench's verdict on one answer, on the parser's real results for outputs a user would see.
import { describe, expect, it } from "vitest";
import { verdictOf } from "../../src/bench/validity.js";
import { parseToolCalls } from "../../src/parser/stream.js";
import type { ToolChoice } from "../../src/dialects/tools.js";

const tools = [
  {
    type: "function",
    function: {
      name: "read",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
  {
    type: "function",
    function: {
      name: "write",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, text: { type: "string" } },
        required: ["path", "text"],
      },
    },
  },
];
const call = (name: string, args: Record<string, string>) =>
  `<tool_call>\n<function=${name}>\n${Object.entries(args)
    .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
    .join("")}</function>\n</tool_call>`;

function verdict(
  text: string,
  o: { choice?: ToolChoice; parallel?: boolean; finish?: "stop" | "length"; declared?: unknown[] } = {},
) {
  // The parser sees every declared tool, like a lenient reader of another server's output; the verdict checks the request.
  const parsed = parseToolCalls(text, {
    dialect: "qwen3-coder",
    tools: o.declared ?? tools,
    finishReason: o.finish ?? "stop",
  });
  return verdictOf(parsed, tools, o.choice, o.parallel);
}

describe("bench verdicts", () => {
  it("a complete call with its required arguments is valid", () => {
    expect(verdict(call("read", { path: "a.txt" }), { choice: "required" })).toMatchObject({
      valid: true,
      calls: 1,
      truncated: false,
    });
  });
  it("a call cut by maxTokens is not valid, and counts as truncated", () => {
    expect(verdict(call("write", { path: "a.txt", text: "hello" }).slice(0, 60), { finish: "length" })).toMatchObject({
      valid: false,
      truncated: true,
      reason: "cut inside a call",
    });
  });
  it("text cut after a complete call leaves the call valid", () => {
    expect(
      verdict(`${call("read", { path: "a" })} and then some`, { finish: "length", choice: "required" }),
    ).toMatchObject({ valid: true, truncated: false });
  });
  it("no call where one is required is not valid", () => {
    expect(verdict("I would rather not.", { choice: "required" })).toMatchObject({
      valid: false,
      reason: "no call although one is required",
    });
    expect(verdict("I would rather not.", { choice: "auto" }).valid).toBe(true);
  });
  it("a call the request does not allow is not valid", () => {
    expect(
      verdict(call("write", { path: "a", text: "b" }), { choice: { type: "function", function: { name: "read" } } })
        .reason,
    ).toMatch(/does not allow/);
  });
  it("a call without a required argument is not valid", () => {
    expect(verdict(call("write", { path: "a" })).valid).toBe(false);
  });
  it("two calls with parallel calls off is not valid", () => {
    expect(verdict(call("read", { path: "a" }) + call("read", { path: "b" }), { parallel: false }).reason).toMatch(
      /2 calls although parallel calls are off/,
    );
  });
});

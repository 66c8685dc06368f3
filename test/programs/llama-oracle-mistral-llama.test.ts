// llama.cpp's own parser (the oracle, test/support/llama-oracle.ts) on Mistral Nemo, Mistral Small 3.2
// and Llama 3.x outputs, next to ours: where the wire ends and what the ids are, the same; where
// llama.cpp fails a whole parse or ships unfinished arguments, our stricter verdict is recorded too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseToolCalls } from "../../src/index.js";
import {
  startLlamaOracle,
  templatePath,
  type LlamaOracle,
  type OracleOk,
  type OracleResult,
  type OracleTool,
} from "../support/llama-oracle.js";

const tools: OracleTool[] = [
  {
    type: "function",
    function: {
      name: "read_file",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, limit: { type: "integer" } },
        required: ["path"],
      },
    },
  },
  { type: "function", function: { name: "noop", parameters: { type: "object", properties: {} } } },
];

const NEMO = "mistralai-Mistral-Nemo-Instruct-2407.jinja";
const SMALL = "Mistral-Small-3.2-24B-Instruct-2506.jinja";
const LLAMA = "meta-llama-Llama-3.1-8B-Instruct.jinja";
const DIALECT: Record<string, string> = { [NEMO]: "mistral-nemo", [SMALL]: "mistral", [LLAMA]: "llama3" };
const NO_MATCH = {
  ok: false,
  stage: "parse",
  error: "The model produced output that does not match the expected peg-native format",
};

let oracle: LlamaOracle;
beforeAll(async () => {
  oracle = await startLlamaOracle();
});
afterAll(() => oracle?.close());

const theirs = (template: string, text: string): Promise<OracleResult> =>
  oracle.parse({ template: templatePath(template), tools, text });
async function theirsOk(template: string, text: string): Promise<OracleOk> {
  const r = await theirs(template, text);
  if (!r.ok) throw new Error(`oracle failed at ${r.stage}: ${r.error}`);
  return r;
}
const ours = (template: string, text: string) => parseToolCalls(text, { dialect: DIALECT[template]!, tools });
/** Both parsers' calls as [name, arguments, id]. */
const callsOf = (r: OracleOk) => r.tool_calls.map((c) => [c.name, JSON.parse(c.arguments), c.id]);
const ourCalls = (template: string, text: string) =>
  ours(template, text).toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments), c.id]);

describe("parity: complete calls, content before them, ids", () => {
  it.each([
    [
      NEMO,
      '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "/a"}, "id": "abcdefghi"}, {"name": "noop", "arguments": {}, "id": "bbcdefgh1"}]',
      "",
    ],
    [NEMO, 'Sure. [TOOL_CALLS] [{"name":"read_file","arguments":{"path":"/a"},"id":"abcdefghi"}]', "Sure. "],
    [
      SMALL,
      'Sure.[TOOL_CALLS]read_file[CALL_ID]abcdefghi[ARGS]{"path": "/a"}[TOOL_CALLS]noop[CALL_ID]bbcdefgh1[ARGS]{}',
      "Sure.",
    ],
    [LLAMA, '{"name": "read_file", "parameters": {"path": "/a"}}', ""],
    [LLAMA, '\n\n{ "name" : "read_file" , "parameters" : {"path": "/a"} }\n', ""],
  ])("%s: %j", async (template, text, content) => {
    const t = await theirsOk(template, text);
    expect(t.content).toBe(content);
    const o = ours(template, text);
    expect(o.content ?? "").toBe(content);
    expect(o.incomplete).toEqual([]);
    // llama.cpp leaves the id empty where the wire has none; ours is then call_N.
    expect(ourCalls(template, text)).toEqual(callsOf(t).map(([n, a, id], i) => [n, a, id === "" ? `call_${i}` : id]));
  });
});

describe("where we are deliberately stricter or keep more", () => {
  it("Nemo: a call without its id, or keys out of order — llama.cpp fails the parse; ours reports the call invalid", async () => {
    for (const text of [
      '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "/a"}}]',
      '[TOOL_CALLS][{"id": "abcdefghi", "name": "read_file", "arguments": {"path": "/a"}}]',
    ]) {
      expect(await theirs(NEMO, text)).toMatchObject(NO_MATCH);
      expect(ours(NEMO, text).incomplete).toMatchObject([{ name: "read_file", kind: "invalid" }]);
    }
  });

  it("Nemo and Small 3.2: an id the template would refuse next turn — llama.cpp takes it; ours reports the call invalid", async () => {
    const nemo = '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "/a"}, "id": "abc"}]';
    const small = '[TOOL_CALLS]read_file[CALL_ID]ab-d_[ARGS]{"path": "/a"}';
    expect(callsOf(await theirsOk(NEMO, nemo))).toEqual([["read_file", { path: "/a" }, "abc"]]);
    expect(callsOf(await theirsOk(SMALL, small))).toEqual([["read_file", { path: "/a" }, "ab-d_"]]);
    expect(ours(NEMO, nemo).incomplete).toMatchObject([{ kind: "invalid" }]);
    expect(ours(SMALL, small).incomplete).toMatchObject([{ kind: "invalid" }]);
  });

  it("a cut mid-arguments — llama.cpp ships unfinished JSON as a call; ours is incomplete", async () => {
    for (const [template, text] of [
      [NEMO, '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "/a'],
      [SMALL, '[TOOL_CALLS]read_file[CALL_ID]abcdefghi[ARGS]{"path": "/a'],
      [LLAMA, '{"name": "read_file", "parameters": {"path": "/a'],
    ] as const) {
      expect((await theirsOk(template, text)).tool_calls.map((c) => c.arguments)).toEqual(['{"path": "/a']);
      expect(ours(template, text)).toMatchObject({
        toolCalls: [],
        incomplete: [{ name: "read_file", kind: "cut", missing: ["path"] }],
      });
    }
  });

  it("Llama 3.x: content with a brace — llama.cpp fails the parse; ours keeps it as content", async () => {
    for (const text of [
      "Use {x} here.",
      'Use {x} then {"name": "read_file", "parameters": {"path": "/a"}}',
      '{"a": 1} is JSON',
    ]) {
      expect(await theirs(LLAMA, text)).toMatchObject(NO_MATCH);
      expect(ours(LLAMA, text)).toMatchObject({ content: text, toolCalls: [] });
    }
  });

  it("Llama 3.x: a call after brace-free prose — llama.cpp takes it; ours keeps it as content (a call must open the answer)", async () => {
    const text = 'Use x then {"name": "read_file", "parameters": {"path": "/a"}}';
    const t = await theirsOk(LLAMA, text);
    expect(t.content).toBe("Use x then ");
    expect(t.tool_calls).toHaveLength(1);
    expect(ours(LLAMA, text)).toMatchObject({ content: text, toolCalls: [] });
  });

  it("Llama 3.x: text after the call — llama.cpp fails the parse; ours keeps the call and the text", async () => {
    const text = '{"name": "read_file", "parameters": {"path": "/a"}}; {"name": "noop", "parameters": {}}';
    expect(await theirs(LLAMA, text)).toMatchObject(NO_MATCH);
    const o = ours(LLAMA, text);
    expect(o.toolCalls.map((c) => c.function.name)).toEqual(["read_file"]);
    expect(o.content).toBe('; {"name": "noop", "parameters": {}}');
  });

  it("an undeclared name — llama.cpp fails the parse; ours makes it content", async () => {
    for (const [template, text] of [
      [NEMO, '[TOOL_CALLS][{"name": "rm", "arguments": {"path": "/a"}, "id": "abcdefghi"}]'],
      [LLAMA, '{"name": "rm", "parameters": {"path": "/a"}}'],
    ] as const) {
      expect(await theirs(template, text)).toMatchObject(NO_MATCH);
      expect(ours(template, text)).toMatchObject({ content: text, toolCalls: [] });
    }
  });
});

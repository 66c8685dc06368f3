// Qwen2.5-Coder keeps Qwen2.5's Hermes template but writes its calls as JSON objects, bare or in a
// ```json fence: the qwen2.5-coder dialect reads them, and loadModel picks it from the GGUF's
// general.name. The texts below are what Qwen2.5-Coder-0.5B-Instruct (models/manifest.json) wrote,
// greedy and unmasked, for "What is the weather in Paris right now?" and "…in Paris and in Rome…"
// (docs/models.md). test/no-model/parser-fenced-calls.test.ts has the forms in full.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildToolGrammar, parseToolCalls } from "../../src/index.js";
import { detectModelDialect } from "../../src/engine/detect-dialect.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { templatesDir } from "../support/template-fixtures.js";

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];
const BARE = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
const FENCED = '```json\n{\n  "name": "get_weather",\n  "arguments": {\n    "city": "Paris"\n  }\n}\n```';
const calls = (r: ReturnType<typeof parseToolCalls>) =>
  r.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]);

describe("qwen2.5-coder: which models get it", () => {
  const template = readFileSync(join(templatesDir(), "Qwen-Qwen2.5-7B-Instruct.jinja"), "utf8");

  it("a Qwen2.5-Coder GGUF with Qwen2.5's template gets it, with a notice that says how to choose hermes", () => {
    const notices: string[] = [];
    for (const name of ["Qwen2.5 Coder 0.5B Instruct AWQ", "Qwen2.5-Coder-7B-Instruct", "qwen2.5_coder 14b"])
      expect(
        detectModelDialect(template, name, { onNotice: (n) => notices.push(n), name: "the chat template of m.gguf" }),
      ).toBe("qwen2.5-coder");
    expect(notices).toHaveLength(3);
    expect(notices[0]).toMatch(
      /"Qwen2\.5 Coder 0\.5B Instruct AWQ".*qwen2\.5-coder dialect.*pass \{ dialect: "hermes" \}.*TOOLMASK_QUIET=1/,
    );
  });

  it("other Qwen2.5 models, a model without a name, and a Coder model with another template keep the template's dialect, without a notice", () => {
    const notices: string[] = [];
    const onNotice = (n: string) => notices.push(n);
    expect(detectModelDialect(template, "Qwen2.5 7B Instruct", { onNotice })).toBe("hermes");
    expect(detectModelDialect(template, undefined, { onNotice })).toBe("hermes");
    const qwen3Coder = readFileSync(join(templatesDir(), "Qwen3-Coder.jinja"), "utf8");
    expect(detectModelDialect(qwen3Coder, "Qwen2.5 Coder 7B (Qwen3-Coder template)", { onNotice })).toBe("qwen3-coder");
    expect(notices).toEqual([]);
  });
});

describe("qwen2.5-coder: the parser", () => {
  it("reads the model's bare call, which the hermes dialect leaves as content", () => {
    const r = parseToolCalls(BARE, { dialect: "qwen2.5-coder", tools: TOOLS });
    expect(calls(r)).toEqual([["get_weather", { city: "Paris" }]]);
    expect(r).toMatchObject({ content: null, incomplete: [], finishReason: "tool_calls" });
    const h = parseToolCalls(BARE, { dialect: "hermes", tools: TOOLS });
    expect(h.toolCalls).toEqual([]);
    expect(h.content).toBe(BARE);
  });

  it("reads the model's fenced call, which the hermes dialect leaves as content; a cut call is reported", () => {
    const fenced = parseToolCalls(FENCED, { dialect: "qwen2.5-coder", tools: TOOLS });
    expect(calls(fenced)).toEqual([["get_weather", { city: "Paris" }]]);
    expect(fenced).toMatchObject({ content: null, incomplete: [], finishReason: "tool_calls" });
    expect(parseToolCalls(FENCED, { dialect: "hermes", tools: TOOLS }).content).toBe(FENCED);
    const cut = parseToolCalls(BARE.slice(0, 40), { dialect: "qwen2.5-coder", tools: TOOLS });
    expect(cut.toolCalls).toEqual([]);
    expect(cut.incomplete.length).toBe(1);
  });

  it("an undeclared name is not a call", () => {
    const r = parseToolCalls('{"name": "rm", "arguments": {"path": "/"}}', { dialect: "qwen2.5-coder", tools: TOOLS });
    expect(r.toolCalls).toEqual([]);
    expect(r.finishReason).not.toBe("tool_calls");
  });
});

describe("qwen2.5-coder: the grammar", () => {
  const accepts = (toolChoice: "auto" | "required", text: string) =>
    grammarAccepts(buildToolGrammar({ dialect: "qwen2.5-coder", tools: TOOLS, toolChoice }), text);

  it("auto: the bare or fenced call, or prose (a <tool_call> block is prose here, as the parser reads it); an undeclared call is prose too, and so is JSON that is no call", () => {
    expect(accepts("auto", BARE)).toBe(true);
    expect(accepts("auto", FENCED)).toBe(true);
    expect(accepts("auto", "Cats are cute and playful animals.")).toBe(true);
    const tagged = `<tool_call>\n${BARE}\n</tool_call>`;
    expect(accepts("auto", tagged)).toBe(true);
    expect(parseToolCalls(tagged, { dialect: "qwen2.5-coder", tools: TOOLS }).content).toBe(tagged);
    // As the parser reads it (above): a call to a tool nobody declared is the model's text.
    expect(accepts("auto", '{"name": "rm", "arguments": {}}')).toBe(true);
    expect(accepts("required", '{"name": "rm", "arguments": {}}')).toBe(false);
    // JSON whose head is no call's is text from the character that leaves every head, as for the parser.
    expect(accepts("auto", '{"path": "/"}')).toBe(true);
    expect(parseToolCalls('{"path": "/"}', { dialect: "qwen2.5-coder", tools: TOOLS }).content).toBe('{"path": "/"}');
  });

  it("required: the answer opens with the call, bare or fenced (neither is forced: the model writes both); prose is refused", () => {
    expect(accepts("required", BARE)).toBe(true);
    expect(accepts("required", FENCED)).toBe(true);
    expect(accepts("required", "Cats are cute.")).toBe(false);
    expect(accepts("required", '{"path": "/"}')).toBe(false);
  });
});

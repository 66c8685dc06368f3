// Each dialect against its family's REAL chat template: an assistant turn with tool calls,
// rendered by the template with a real Jinja engine, parses back to the same calls.
import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../src/index.js";
import { DIALECT_TEMPLATES, renderAssistantToolCalls, toolsFor, type Call, type TemplateDialect } from "./support/template-fixtures.js";

const CALLS: Call[][] = [
  [{ name: "write_file", arguments: { path: "/tmp/a b.txt", content: "line 1\nline \"2\" <b>&</b>\n", ok: true, mode: 420 } }],
  [
    { name: "read_file", arguments: { path: "☃/x", limit: 3 } },
    { name: "search", arguments: { query: "", filters: { lang: "ts", deep: { n: [1, 2] } }, tags: ["a", "b"], ratio: 0.25 } },
  ],
  [{ name: "noop", arguments: {} }],
];

describe.each(["qwen3-coder", "hermes", "seed-oss", "mistral", "deepseek-v3.1", "kimi-k2"] as const)("%s templates parse back", (dialect: TemplateDialect) => {
  // Mistral Small 3.2 writes [CALL_ID]id between the name and [ARGS]: not read yet.
  for (const t of DIALECT_TEMPLATES[dialect].filter((x) => !x.file.startsWith("Mistral-Small-3.2"))) {
    for (const [i, calls] of CALLS.entries()) {
      it(`${t.file}: calls #${i}`, () => {
        const turn = renderAssistantToolCalls(dialect, calls, { template: t.file });
        const r = parseToolCalls(turn.assistant, { dialect, tools: toolsFor(calls), reasoning: true });
        expect(r.incomplete).toEqual([]);
        expect(r.toolCalls.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) }))).toEqual(calls);
        expect(r.content).toBeNull();
        expect(r.finishReason).toBe("tool_calls");
      });
    }
    it(`${t.file}: content beside a call is kept`, () => {
      const turn = renderAssistantToolCalls(dialect, CALLS[0]!, { template: t.file, content: "I'll write it." });
      const r = parseToolCalls(turn.assistant, { dialect, tools: toolsFor(CALLS[0]!), reasoning: true });
      expect(r.toolCalls).toHaveLength(1);
      expect(r.content?.trim()).toBe("I'll write it.");
    });
  }
});

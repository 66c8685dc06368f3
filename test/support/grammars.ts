// Grammars the engine suites share: a Qwen3-Coder-style XML tool call built from the IR
// (the dialect modules build the real ones; these keep the engine tests self-contained).
import { alt, literal, perm, seq, star, until, type Grammar, type GrammarNode } from "../../src/index.js";

export interface ToolSpec {
  name: string;
  params: Array<{ name: string; required: boolean }>;
}

export const FILE_TOOLS: ToolSpec[] = [
  { name: "read", params: [{ name: "path", required: true }] },
  {
    name: "write",
    params: [
      { name: "path", required: true },
      { name: "content", required: true },
    ],
  },
  {
    name: "edit",
    params: [
      { name: "path", required: true },
      { name: "old_string", required: true },
      { name: "new_string", required: true },
    ],
  },
];

/** `<tool_call>\n<function=NAME>\n<parameter=K>\nV\n</parameter>\n…</function>\n</tool_call>`, exact terminator. */
export function xmlToolCall(tools: ToolSpec[]): GrammarNode {
  // A value is any text up to the first "</parameter>"; padding newlines are part of the value text.
  const param = (name: string) => seq(literal(`<parameter=${name}>`), until("</parameter>"), optional_("\n"));
  const fn = (t: ToolSpec) =>
    seq(
      literal(`<function=${t.name}>\n`),
      perm(t.params.map((p) => ({ node: param(p.name), required: p.required }))),
      literal("</function>"),
    );
  return seq(literal("<tool_call>\n"), alt(...tools.map(fn)), literal("\n</tool_call>"));
}

export function xmlToolCalls(tools: ToolSpec[]): Grammar {
  const call = xmlToolCall(tools);
  return { root: seq(call, star(seq(literal("\n"), call))) };
}

function optional_(text: string): GrammarNode {
  return { type: "repeat", item: literal(text), min: 0, max: 1 };
}

// Hermes JSON (Qwen2.5, Qwen3, Hermes 2/3):
// <tool_call>\n{"name": "f", "arguments": {…}}\n</tool_call>
import type { DialectSpec } from "./spec.js";

export const hermes: DialectSpec = {
  name: "hermes",
  detect: { markers: [["<tool_call>"]], priority: 85 },
  description: 'Hermes JSON: <tool_call>{"name", "arguments"}</tool_call>',
  reasoning: { open: "<think>", close: "</think>" },
  call: {
    kind: "json",
    open: ["<tool_call>", { optional: "\n" }],
    nameKey: "name",
    argsKey: "arguments",
    close: [{ optional: "\n" }, "</tool_call>"],
  },
};

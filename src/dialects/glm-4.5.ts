// GLM-4.5 / 4.6 / 4.7 (Zhipu): <tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>;
// 4.7 writes the same tags without the newlines. Nothing closes the name: a parameter or the
// close does. Values: strings raw, everything else as JSON (the templates use tojson).
import type { DialectSpec } from "./spec.js";

export const glm45: DialectSpec = {
  name: "glm-4.5",
  detect: { markers: [["<tool_call>", "<arg_key>"]], priority: 95 },
  description: "GLM-4.5/4.6/4.7: <tool_call>NAME with <arg_key>K</arg_key><arg_value>V</arg_value> pairs",
  // 4.6 writes "\n<think>…</think>"; 4.7's prompt opens the thought itself (reasoning: "forced-open").
  reasoning: { open: "<think>", close: "</think>", lead: "\n" },
  call: {
    kind: "xml",
    open: ["<tool_call>"],
    nameClose: null,
    paramOpen: [{ optional: "\n" }, "<arg_key>"],
    paramNameClose: "</arg_key>",
    valueOpen: [{ optional: "\n" }, "<arg_value>"],
    valueClose: "</arg_value>",
    trimNewline: false,
    close: [{ optional: "\n" }, "</tool_call>"],
  },
};

// Kimi K2: <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|>…<|tool_calls_section_end|>
import type { DialectSpec } from "./spec.js";

export const kimiK2: DialectSpec = {
  name: "kimi-k2",
  detect: { markers: [["<|tool_calls_section_begin|>"]], priority: 110 },
  description: "Kimi K2: functions.NAME:IDX calls inside <|tool_calls_section_begin|>…<|tool_calls_section_end|>",
  reasoning: { open: "<think>", close: "</think>" },
  section: { open: "<|tool_calls_section_begin|>", close: "<|tool_calls_section_end|>" },
  call: {
    kind: "named",
    open: ["<|tool_call_begin|>", "functions."],
    nameClose: ":",
    index: true,
    id: "head",
    argsOpen: ["<|tool_call_argument_begin|>"],
    close: ["<|tool_call_end|>"],
  },
};

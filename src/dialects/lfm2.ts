// LFM2 / LFM2.5 (Liquid AI): <|tool_call_start|>[get_weather(city='Paris'), f(n=1)]<|tool_call_end|>
// — Python-style calls in one list between markers, keyword arguments, values Python literals
// (the LFM2.5 template writes strings as '…', dicts with tojson and other values with str(), so
// JSON's true/false/null and JSON containers are read as well, as llama.cpp's LFM2 parser does).
// LFM2's own template prints an assistant turn's content only: past calls are written into it
// ("calls-as-content"); LFM2.5-8B-A1B's template writes tool_calls itself in this form.
import type { DialectSpec } from "./spec.js";

export const lfm2: DialectSpec = {
  name: "lfm2",
  // Its own templates print content only; their tool list is LFM2's: <|tool_list_start|> (LFM2),
  // "List of tools: [" (LFM2.5), as llama.cpp detects them.
  detect: {
    markers: [["<|tool_call_start|>"], ["<|tool_list_start|>"], ["List of tools: [", "<|im_start|>"]],
    priority: 65,
  },
  description: "LFM2 / LFM2.5: <|tool_call_start|>[name(key=value, …), …]<|tool_call_end|>, Python-style calls",
  reasoning: { open: "<think>", close: "</think>" },
  section: { open: "<|tool_call_start|>", arrayOpen: "[", close: "]", end: "<|tool_call_end|>" },
  call: { kind: "python", open: [], nameClose: "(" },
  prompt: "calls-as-content",
};

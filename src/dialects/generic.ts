// The generic dialect, for chat models whose template shows no tool calls (SmolLM2, Gemma 3):
// llama.cpp's generic handler (docs/function-calling.md, common/chat.cpp). The answer is one JSON
// object: {"tool_calls": [{"name": "f", "arguments": {…}}, …]}, {"tool_call": {"name", "arguments"}}
// or {"response": "text"}; the system message describes the tools (src/dialects/prompt.ts).
// Both call keys are read (and allowed by the grammar) whether parallel calls are on or off, as
// llama.cpp's parser reads both; with parallel calls off "tool_calls" holds one call.
import type { DialectSpec } from "./spec.js";

export const generic: DialectSpec = {
  name: "generic",
  description:
    'Generic (llama.cpp): the answer is one JSON object, {"tool_calls": [{"name", "arguments"}, …]} or {"response": "…"}',
  call: {
    kind: "envelope",
    open: [],
    nameKey: "name",
    argsKey: "arguments",
    callsKey: "tool_calls",
    callKey: "tool_call",
    responseKey: "response",
  },
  callOpensAnswer: true,
  prompt: "generic",
};

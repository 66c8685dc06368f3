// Mistral Nemo: [TOOL_CALLS][{"name": "f", "arguments": {…}, "id": "abcdefghi"}, …] — one JSON
// array of calls, keys in that order, the id required (the template and llama.cpp both insist).
import type { DialectSpec } from "./spec.js";

export const mistralNemo: DialectSpec = {
  name: "mistral-nemo",
  detect: { markers: [["[TOOL_CALLS]"]], priority: 75 },
  description: 'Mistral Nemo: [TOOL_CALLS] then a JSON array of {"name", "arguments", "id"} calls',
  section: { open: "[TOOL_CALLS]", close: "]", arrayOpen: "[" },
  call: { kind: "json", open: [], nameKey: "name", argsKey: "arguments", id: { key: "id", length: 9 }, close: [] },
};

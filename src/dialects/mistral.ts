// Mistral / Magistral (newer templates): [TOOL_CALLS]NAME[ARGS]{json}, once per call; Mistral
// Small 3.2 writes an id between: [TOOL_CALLS]NAME[CALL_ID]abcdefghi[ARGS]{json}. One dialect reads
// both (the id is optional), as llama.cpp's parser does: the family is the same, and a model that
// was not taught [CALL_ID] never writes it.
import type { DialectSpec } from "./spec.js";

export const mistral: DialectSpec = {
  name: "mistral",
  detect: { markers: [["[TOOL_CALLS]", "[ARGS]"]], priority: 80 },
  description: "Mistral: [TOOL_CALLS]NAME[CALL_ID]id[ARGS]{arguments} per call, the [CALL_ID]id optional",
  reasoning: { open: "[THINK]", close: "[/THINK]" },
  call: { kind: "named", open: ["[TOOL_CALLS]"], nameClose: "[ARGS]", id: { open: "[CALL_ID]", length: 9 }, close: [] },
};

// Mistral / Magistral (newer templates): [TOOL_CALLS]NAME[ARGS]{json}, once per call.
import type { DialectSpec } from "./spec.js";

export const mistral: DialectSpec = {
  name: "mistral",
  description: "Mistral: [TOOL_CALLS]NAME[ARGS]{arguments} per call",
  reasoning: { open: "[THINK]", close: "[/THINK]" },
  call: { kind: "named", open: ["[TOOL_CALLS]"], nameClose: "[ARGS]", close: [] },
};

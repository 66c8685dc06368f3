// Qwen2.5-Coder: its chat template is Qwen2.5's (Hermes: "return a json object … within
// <tool_call></tool_call> XML tags"), but the model was not taught the tags: it writes the call as a
// bare JSON object, {"name": "f", "arguments": {…}}, as the whole answer (docs/models.md: the
// 0.5B model did so for every single-call request, masked or not; vLLM #32926 and
// NousResearch/hermes-agent #5867 report the same of the 7B and 14B models). Read like Llama 3.x:
// one call that opens the answer after whitespace, text after it content; content alone never
// starts with "{". loadModel picks it over hermes from the GGUF's general.name
// (src/engine/detect-dialect.ts).
import type { DialectSpec } from "./spec.js";

export const qwen25Coder: DialectSpec = {
  name: "qwen2.5-coder",
  // Qwen2.5-Coder keeps Qwen2.5's Hermes template but writes bare JSON calls.
  detect: { modelName: { template: "hermes", pattern: /qwen\s*2\.5[\s_-]*coder/i } },
  description:
    'Qwen2.5-Coder: the answer is one bare {"name", "arguments"} JSON call (no <tool_call> tags), or content',
  callOpensAnswer: true,
  call: { kind: "json", open: [], nameKey: "name", argsKey: "arguments", close: [] },
};

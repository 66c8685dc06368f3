// Qwen2.5-Coder: its chat template is Qwen2.5's (Hermes: "return a json object … within
// <tool_call></tool_call> XML tags"), but the model was not taught the tags: it writes the call as a
// JSON object opening the answer, in a ```json fence (39 of the 56 real-model suite's answers) or
// bare (10), several calls one after another (docs/model-suite.md, docs/dialects.md; vLLM #32926
// and NousResearch/hermes-agent #5867 report the same of the 7B and 14B models). A call is told by
// its head, `{"name": "<an allowed tool>"` after the fence's open or none; other text, fenced or
// bare JSON among it, is content from the character where it leaves every head
// (src/dialects/opening.ts). loadModel picks it over hermes from the GGUF's general.name
// (src/engine/detect-dialect.ts).
import { FENCED_CALLS } from "./opening.js";
import type { DialectSpec } from "./spec.js";

export const qwen25Coder: DialectSpec = {
  name: "qwen2.5-coder",
  // Qwen2.5-Coder keeps Qwen2.5's Hermes template but writes bare or fenced JSON calls.
  detect: { modelName: { template: "hermes", pattern: /qwen\s*2\.5[\s_-]*coder/i } },
  description:
    'Qwen2.5-Coder: the answer opens with {"name", "arguments"} JSON calls, bare or in ```json fences (no <tool_call> tags), or is content',
  callOpensAnswer: true,
  openingCalls: FENCED_CALLS,
  call: { kind: "json", open: [], nameKey: "name", argsKey: "arguments", close: [] },
};

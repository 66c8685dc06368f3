// DeepSeek V3.1: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
import type { DialectSpec } from "./spec.js";

export const deepseekV31: DialectSpec = {
  name: "deepseek-v3.1",
  detect: { markers: [["<｜tool▁calls▁begin｜>"]], priority: 105 },
  description: "DeepSeek V3.1: calls inside <｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>, NAME<｜tool▁sep｜>{arguments}",
  reasoning: { open: "<think>", close: "</think>" },
  section: { open: "<｜tool▁calls▁begin｜>", close: "<｜tool▁calls▁end｜>" },
  call: { kind: "named", open: ["<｜tool▁call▁begin｜>"], nameClose: "<｜tool▁sep｜>", close: ["<｜tool▁call▁end｜>"] },
};

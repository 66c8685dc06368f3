// Qwen3-Coder XML (Qwen3-Coder, Qwen3.5+):
// <tool_call>\n<function=NAME>\n<parameter=K>\nV\n</parameter>\n</function>\n</tool_call>
import type { DialectSpec } from "./spec.js";

export const qwen3Coder: DialectSpec = {
  name: "qwen3-coder",
  detect: { markers: [["<tool_call>", "<function="]], priority: 90 },
  description: "Qwen3-Coder XML: <function=NAME> with <parameter=K> raw values",
  reasoning: { open: "<think>", close: "</think>" },
  call: {
    kind: "xml",
    open: ["<tool_call>", { optional: "\n" }, "<function="],
    nameClose: ">",
    paramOpen: [{ optional: "\n" }, "<parameter="],
    paramNameClose: ">",
    valueClose: "</parameter>",
    trimNewline: true,
    // no pythonLiterals: the template writes containers with `tojson`
    close: [{ optional: "\n" }, "</function>", { optional: "\n" }, "</tool_call>"],
  },
};

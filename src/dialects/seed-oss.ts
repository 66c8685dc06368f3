// Seed-OSS (ByteDance):
// <seed:tool_call>\n<function=NAME>\n<parameter=K>V</parameter>\n</function>\n</seed:tool_call>
import type { DialectSpec } from "./spec.js";

export const seedOss: DialectSpec = {
  name: "seed-oss",
  detect: { markers: [["<seed:tool_call>"]], priority: 120 },
  description: "Seed-OSS XML: <seed:tool_call><function=NAME><parameter=K>V</parameter>",
  reasoning: { open: "<seed:think>", close: "</seed:think>" },
  call: {
    kind: "xml",
    open: ["<seed:tool_call>", { optional: "\n" }, "<function="],
    nameClose: ">",
    paramOpen: [{ optional: "\n" }, "<parameter="],
    paramNameClose: ">",
    valueClose: "</parameter>",
    trimNewline: false,
    // the template writes `arg_value | string`: {'lang': 'ts'}, ['a', 'b'], True, None
    pythonLiterals: true,
    close: [{ optional: "\n" }, "</function>", { optional: "\n" }, "</seed:tool_call>"],
    scopeCloseOptionalAtEnd: true,
  },
};

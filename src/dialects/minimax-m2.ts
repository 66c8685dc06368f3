// MiniMax-M2: one section around every call of the answer:
// <minimax:tool_call>\n<invoke name="NAME">\n<parameter name="K">V</parameter>\n</invoke>\n</minimax:tool_call>
// Values: strings raw, everything else as JSON (the template uses tojson).
import type { DialectSpec } from "./spec.js";

export const minimaxM2: DialectSpec = {
  name: "minimax-m2",
  detect: { markers: [["<minimax:tool_call>"]], priority: 115 },
  description:
    'MiniMax-M2: <invoke name="NAME"> calls with <parameter name="K">V</parameter> inside <minimax:tool_call>…</minimax:tool_call>',
  // The template's generation prompt opens the thought ("<think>\n"): use reasoning "forced-open" there.
  reasoning: { open: "<think>", close: "</think>" },
  section: { open: "<minimax:tool_call>", close: "</minimax:tool_call>", gap: "\n" },
  call: {
    kind: "xml",
    open: ['<invoke name="'],
    nameClose: '">',
    paramOpen: [{ optional: "\n" }, '<parameter name="'],
    paramNameClose: '">',
    valueClose: "</parameter>",
    trimNewline: false,
    close: [{ optional: "\n" }, "</invoke>"],
  },
};

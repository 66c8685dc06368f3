// Llama 3.1/3.2/3.3 JSON calls: {"name": "f", "parameters": {…}} with no marker around them.
// The templates write one call per message and nothing beside it; llama.cpp's parser takes a call
// only where the text it reads as content ends at the first "{". Here a call must open the answer
// (after whitespace), so content with braces later on stays content; text after the call is content.
import type { DialectSpec } from "./spec.js";

export const llama3: DialectSpec = {
  name: "llama3",
  detect: { markers: [["ipython", '"parameters"']], priority: 70 },
  description: 'Llama 3.x: the answer is one {"name", "parameters"} JSON call, or content',
  callOpensAnswer: true,
  call: { kind: "json", open: [], nameKey: "name", argsKey: "parameters", close: [] },
};

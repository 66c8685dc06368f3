// gpt-oss (OpenAI's harmony format), as openai-gpt-oss-120b.jinja renders it and llama.cpp reads it.
// After the generation prompt `<|start|>assistant` the model writes messages:
//   <|channel|>analysis<|message|>THOUGHT<|end|>
//   <|start|>assistant<|channel|>commentary<|message|>PREAMBLE<|end|>
//   <|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>{json}<|call|>
//   <|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{json}<|call|>
//   <|start|>assistant<|channel|>final<|message|>ANSWER<|return|>
//
// Decisions (both interpreters follow them: src/dialects/grammar-harmony.ts, src/parser/read-harmony.ts):
// - Reasoning is the analysis channel's text. The parser reads an analysis message as reasoning
//   whatever `reasoning` says (the channel is explicit); the grammar allows analysis messages only
//   with reasoning true, and with "forced-open" the output starts inside one (the prompt ended
//   with `<|channel|>analysis<|message|>`).
// - Content is the final channel's text, and a commentary message without a recipient (a
//   preamble before a call) is content too, as llama.cpp has it. Pieces are joined as written.
// - A call is a commentary message with the recipient `to=functions.NAME`, before or after the
//   channel, an optional content type (` json`, ` <|constrain|>json`), then a JSON arguments object.
//   `<|call|>` ends it; it is the end-of-generation token of a tool-call turn, so engines usually
//   leave it out of the text: a call whose object closed where the output ends is complete too.
//   Anything else right after the object is a call without its end (invalid).
// - One call per turn: `<|call|>` ends the generation, so parallelToolCalls changes nothing (as
//   llama.cpp, which reads exactly one). Text after `<|call|>` (an engine that did not stop) is
//   content as written, like text after the calls of the other dialects, but a call message there
//   (a header to an allowed function, with or without its message start, after any text) is
//   outside the answer: an invalid entry with its text, never a call and not content (llama.cpp
//   drops it silently). The grammar allows no ` to=functions.` after `<|call|>`.
// - The grammar: thought/preamble messages, then the final message (auto, none, no tools) or
//   the call (auto, required, named). The final message is the last; it ends at `<|return|>`,
//   `<|end|>` or the end of the output, and text after its end is content as written, a call
//   message there invalid as after `<|call|>`.
// - Text that is not a message where a message should start (a recipient that is not a declared
//   function, an unknown channel, free text) ends the answer: the rest of the output is content as
//   written, a call message in it invalid. An undeclared name is refused at the name, before
//   anything of the call is streamed.
import type { DialectSpec } from "./spec.js";

export const gptOss: DialectSpec = {
  name: "gpt-oss",
  detect: { markers: [["<|channel|>", "<|call|>"]], priority: 100 },
  description:
    "gpt-oss (harmony): analysis/commentary/final messages; calls to=functions.NAME<|message|>{arguments}<|call|>",
  reasoning: { open: "<|channel|>analysis<|message|>", close: "<|end|>" },
  call: {
    kind: "harmony",
    open: [" to=functions."],
    messageStart: ["<|start|>", "assistant"],
    channel: "<|channel|>",
    message: "<|message|>",
    channels: { reasoning: "analysis", calls: "commentary", final: "final" },
    contentType: [" ", { optional: "<|constrain|>" }, "json"],
    end: "<|end|>",
    callEnd: "<|call|>",
    finalEnd: "<|return|>",
  },
};

// The Anthropic Messages stream: message_start, content blocks (content_block_start, its deltas,
// content_block_stop), then message_delta (stop reason, usage) and message_stop, each a named
// server-sent event. Text and thinking stream as they decode. A tool_use block is opened only when
// its call is released (released-calls.ts: it has ended complete and valid), and then sent whole —
// its input as one input_json_delta, the arguments' own JSON text as the whole answer writes it —
// so a client never sees a tool_use for a call that is later cut by max_tokens or found invalid.
import type { StreamChunk } from "../../engine/stream.js";
import type { ToolCall } from "../../parser/types.js";
import type { Redact } from "../redact.js";
import { ReleasedCalls } from "../released-calls.js";
import type { StreamWriter } from "../run-request.js";
import type { SseWriter } from "../sse.js";
import { anthropicErrorBody } from "./errors.js";
import { sealThought } from "./thought-signature.js";
import {
  openingMessage,
  stopReasonOf,
  stopSequenceOf,
  toolUseBlock,
  usageOf,
  type ContentBlock,
  type ToolUseBlock,
} from "./response.js";

type Delta =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "signature_delta"; signature: string };

/** A block as content_block_start opens it: a tool_use's input is {} until its input_json_delta. */
type OpeningBlock =
  | Exclude<ContentBlock, ToolUseBlock>
  | (Omit<ToolUseBlock, "input"> & { input: Record<string, never> });

/**
 * `thoughtOmitted` (thinking.display "omitted"): a thinking block streams no thinking_delta; its
 * thought goes in one signature_delta before the block stops (thought-signature.ts).
 */
export function messagesStreamWriter(id: string, model: string, redact: Redact, thoughtOmitted = false): StreamWriter {
  let index = -1;
  let open: ContentBlock["type"] | undefined;
  let thoughtSoFar = "";
  const released = new ReleasedCalls();

  const stopBlock = async (sse: SseWriter) => {
    if (open === undefined) return;
    if (open === "thinking" && thoughtOmitted) {
      await delta(sse, { type: "signature_delta", signature: sealThought(thoughtSoFar) });
      thoughtSoFar = "";
    }
    open = undefined;
    await sse.named("content_block_stop", { type: "content_block_stop", index });
  };
  const startBlock = async (sse: SseWriter, block: OpeningBlock) => {
    await stopBlock(sse);
    index++;
    open = block.type;
    await sse.named("content_block_start", { type: "content_block_start", index, content_block: block });
  };
  const delta = (sse: SseWriter, d: Delta) =>
    sse.named("content_block_delta", { type: "content_block_delta", index, delta: d });

  const toolUse = async (sse: SseWriter, call: ToolCall) => {
    const block = toolUseBlock(call);
    await startBlock(sse, { ...block, input: {} });
    await delta(sse, { type: "input_json_delta", partial_json: block.input.text });
    await stopBlock(sse);
  };

  return {
    async open(sse) {
      await sse.named("message_start", { type: "message_start", message: openingMessage(id, model) });
    },
    async keepalive(sse) {
      await sse.named("ping", { type: "ping" });
    },
    async chunk(sse, chunk: StreamChunk) {
      const { content, reasoning_content: thought } = chunk.delta;
      if (thought) {
        if (open !== "thinking") await startBlock(sse, { type: "thinking", thinking: "", signature: "" });
        if (thoughtOmitted) thoughtSoFar += thought;
        else await delta(sse, { type: "thinking_delta", thinking: thought });
      }
      if (content) {
        if (open !== "text") await startBlock(sse, { type: "text", text: "" });
        await delta(sse, { type: "text_delta", text: content });
      }
      for (const { call } of released.of(chunk)) await toolUse(sse, call);
      const r = chunk.result;
      if (!r) return;
      await stopBlock(sse);
      await sse.named("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stopReasonOf(r), stop_sequence: stopSequenceOf(r) },
        usage: usageOf(r),
      });
      await sse.named("message_stop", { type: "message_stop" });
    },
    close: async (sse) => sse.end(),
    // Headers are out: the error goes as an `error` event, which the SDK raises as an APIError.
    fail: (sse, e) => sse.named("error", anthropicErrorBody(e, redact)),
  };
}

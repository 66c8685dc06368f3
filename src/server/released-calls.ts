// Which calls a stream writer sends its client, and when: each call once, whole, when it has ended
// complete and valid (its tool_call_end event), then on the last chunk any call of the result that
// no end event announced; never a call the answer does not hold (one cut by max_tokens or a stop
// string, invalid, dropped, or one more than parallel_tool_calls allows). The chat-completions,
// Messages and Responses writers all send their calls from here.
import type { StreamChunk } from "../engine/stream.js";
import type { ToolCall } from "../parser/types.js";

export interface ReleasedCall {
  /** The call's place among the answer's calls (its tool_calls index). */
  index: number;
  call: ToolCall;
}

export class ReleasedCalls {
  readonly #sent = new Set<string>();

  /** The calls `chunk` releases, in the answer's order. */
  of(chunk: StreamChunk): ReleasedCall[] {
    const out: ReleasedCall[] = [];
    const release = (call: ToolCall) => {
      if (this.#sent.has(call.id)) return;
      out.push({ index: this.#sent.size, call });
      this.#sent.add(call.id);
    };
    if (chunk.event?.type === "tool_call_end") release(chunk.event.call);
    for (const call of chunk.result?.message.tool_calls ?? []) release(call);
    return out;
  }
}

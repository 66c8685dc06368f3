// Call ids as a conversation needs them: the parser names an answer's calls call_0, call_1, … (the
// same for every split of the text), so every answer's first call would be call_0, and a client
// sending its history back (Anthropic's tool_use ids, the Responses API's call_ids, chat
// completions' tool_call_id) would hold one id twice. Each answer's calls get fresh random ids
// here, the same one for a call wherever the answer names it (its stream's events, its result).
import { randomBytes } from "node:crypto";
import type { GenerateResult } from "../engine/generate.js";
import type { StreamChunk } from "../engine/stream.js";
import type { ToolCall } from "../parser/types.js";

export class CallIds {
  readonly #prefix: string;
  readonly #ids = new Map<string, string>();

  /** `prefix`: "call_" (OpenAI's), "toolu_" (Anthropic's). */
  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  of(id: string): string {
    let fresh = this.#ids.get(id);
    if (fresh === undefined) {
      fresh = `${this.#prefix}${randomBytes(12).toString("hex")}`;
      this.#ids.set(id, fresh);
    }
    return fresh;
  }

  call = (c: ToolCall): ToolCall => ({ ...c, id: this.of(c.id) });

  result(r: GenerateResult): GenerateResult {
    const calls = r.message.tool_calls;
    return calls ? { ...r, message: { ...r.message, tool_calls: calls.map(this.call) } } : r;
  }

  chunk(c: StreamChunk): StreamChunk {
    const out: StreamChunk = { ...c };
    if (c.delta.tool_calls)
      out.delta = {
        ...c.delta,
        tool_calls: c.delta.tool_calls.map((d) => (d.id === undefined ? d : { ...d, id: this.of(d.id) })),
      };
    const e = c.event;
    if (e?.type === "tool_call_start") out.event = { ...e, id: this.of(e.id) };
    else if (e?.type === "tool_call_end") out.event = { ...e, call: this.call(e.call) };
    if (c.result) out.result = this.result(c.result);
    return out;
  }

  async *stream(chunks: AsyncIterable<StreamChunk>): AsyncGenerator<StreamChunk> {
    for await (const c of chunks) yield this.chunk(c);
  }
}

// The stream protocols of Anthropic's Messages API and OpenAI's Responses API, checked event by
// event (chat completions' chunks: assemble() in server-fixtures.ts): what every streamed answer of
// the server suites must keep, whatever it holds.
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";

/** The Messages stream's protocol broken, one line per rule ([] when every rule is kept). */
export function messagesProtocolProblems(events: RawMessageStreamEvent[]): string[] {
  const out: string[] = [];
  if (events[0]?.type !== "message_start") out.push("the first event is not message_start");
  else if (events[0].message.content.length !== 0 || events[0].message.stop_reason !== null)
    out.push("message_start carries content or a stop reason");
  if (events.at(-1)?.type !== "message_stop") out.push("the last event is not message_stop");
  if (events.at(-2)?.type !== "message_delta") out.push("message_delta is not just before message_stop");
  let open: { index: number; type: string; deltas: number; signed?: boolean } | undefined;
  let next = 0;
  for (const e of events.slice(1, -2)) {
    if (e.type === "content_block_start") {
      if (open) out.push(`block ${e.index} starts while ${open.index} is open`);
      if (e.index !== next) out.push(`block ${e.index} starts, expected ${next}`);
      if (e.content_block.type === "tool_use" && JSON.stringify(e.content_block.input) !== "{}")
        out.push("a tool_use block starts with input");
      open = { index: e.index, type: e.content_block.type, deltas: 0 };
      next++;
    } else if (e.type === "content_block_delta") {
      if (!open || e.index !== open.index) out.push(`a delta for block ${e.index}, which is not open`);
      else {
        open.deltas++;
        const want = { text: "text_delta", thinking: "thinking_delta", tool_use: "input_json_delta" }[open.type];
        // a thinking block's signature comes once, after its thought (Anthropic's streaming docs)
        if (open.signed) out.push(`a ${e.delta.type} after block ${open.index}'s signature_delta`);
        if (open.type === "thinking" && e.delta.type === "signature_delta") open.signed = true;
        else if (e.delta.type !== want) out.push(`a ${e.delta.type} in a ${open.type} block`);
      }
    } else if (e.type === "content_block_stop") {
      if (!open || e.index !== open.index) out.push(`block ${e.index} stops, but it is not open`);
      else if (open.type === "tool_use" && open.deltas !== 1) out.push("a tool_use block's input came in pieces");
      open = undefined;
    } else out.push(`a ${e.type} event inside the message`);
  }
  if (open) out.push(`block ${open.index} never stops`);
  return out;
}

/** The Responses stream's protocol broken, one line per rule ([] when every rule is kept). */
export function responsesProtocolProblems(events: ResponseStreamEvent[]): string[] {
  const out: string[] = [];
  events.forEach((e, i) => {
    if (e.sequence_number !== i) out.push(`event ${i} has sequence_number ${e.sequence_number}`);
  });
  if (events[0]?.type !== "response.created") out.push("the first event is not response.created");
  if (events[1]?.type !== "response.in_progress") out.push("the second event is not response.in_progress");
  const last = events.at(-1);
  if (last?.type !== "response.completed" && last?.type !== "response.incomplete")
    out.push("the last event is not response.completed or response.incomplete");
  const items = new Map<number, { type: string; id: string; done: boolean }>();
  let open: number | undefined;
  for (const e of events.slice(2, -1)) {
    if (e.type === "response.output_item.added") {
      if (open !== undefined) out.push(`item ${e.output_index} added while ${open} is open`);
      if (e.output_index !== items.size) out.push(`item ${e.output_index} added, expected ${items.size}`);
      if (e.item.type === "function_call" && e.item.arguments !== "")
        out.push("a function_call is added with arguments");
      items.set(e.output_index, { type: e.item.type, id: e.item.id ?? "", done: false });
      open = e.output_index;
    } else if (e.type === "response.output_item.done") {
      if (open !== e.output_index) out.push(`item ${e.output_index} done, but it is not open`);
      items.get(e.output_index)!.done = true;
      open = undefined;
    } else if ("item_id" in e) {
      const item = items.get(e.output_index);
      if (open !== e.output_index || !item || item.id !== e.item_id)
        out.push(`a ${e.type} for item ${e.output_index}, which is not open`);
      else if (
        e.type.startsWith("response.function_call_arguments") !== (item.type === "function_call") &&
        e.type.startsWith("response.custom_tool_call_input") !== (item.type === "custom_tool_call")
      )
        out.push(`a ${e.type} in a ${item.type} item`);
    } else out.push(`a ${e.type} event inside the response`);
  }
  if (open !== undefined) out.push(`item ${open} never done`);
  const final = last && "response" in last ? last.response : undefined;
  if (final && final.output.length !== items.size) out.push("the final response's output is not the items streamed");
  return out;
}

// The Responses API stream: response.created and response.in_progress, then the output items in
// the order they decode — a reasoning item (reasoning_text deltas), a message item (output_text
// deltas), function_call items — each opened by response.output_item.added and closed by its .done
// events, then response.completed, or response.incomplete when max_output_tokens cut the answer.
// Every event carries a sequence_number from 0. A call's item (function_call, custom_tool_call,
// tool_search_call: response.ts callItem) is opened only once its call is released
// (released-calls.ts: it has ended complete and valid), and then sent whole (a function_call's
// arguments as one response.function_call_arguments.delta, a custom_tool_call's input as one
// response.custom_tool_call_input.delta, then their .done), so a client never sees a call that is
// later cut or found invalid.
import type { StreamChunk } from "../../engine/stream.js";
import type { ToolCall } from "../../parser/types.js";
import type { Redact } from "../redact.js";
import { ReleasedCalls } from "../released-calls.js";
import type { StreamWriter } from "../run-request.js";
import type { SseWriter } from "../sse.js";
import { responsesError } from "./errors.js";
import type { CallRoute } from "./tools.js";
import {
  callItem,
  finishedResponse,
  messageItem,
  newItemId,
  openingResponse,
  outputText,
  reasoningItem,
  type OutputItem,
  type ResponseHead,
} from "./response.js";

interface OpenPart {
  kind: "reasoning" | "message";
  id: string;
  index: number;
  text: string;
}

export function responsesStreamWriter(
  head: ResponseHead,
  redact: Redact,
  routes: ReadonlyMap<string, CallRoute>,
  toolPaths: readonly string[],
): StreamWriter {
  let seq = 0;
  const output: OutputItem[] = [];
  const released = new ReleasedCalls();
  let open: OpenPart | undefined;

  const send = async (sse: SseWriter, type: string, body: object) => {
    await sse.named(type, { type, sequence_number: seq, ...body });
    seq++; // once written: an event that could not be serialized takes no number
  };

  const closePart = async (sse: SseWriter) => {
    if (!open) return;
    const { id, index, text } = open;
    if (open.kind === "reasoning") {
      const part = { type: "reasoning_text" as const, text };
      await send(sse, "response.reasoning_text.done", { item_id: id, output_index: index, content_index: 0, text });
      await send(sse, "response.content_part.done", { item_id: id, output_index: index, content_index: 0, part });
      output[index] = reasoningItem(id, "completed", [part]);
    } else {
      const part = outputText(text);
      await send(sse, "response.output_text.done", {
        item_id: id,
        output_index: index,
        content_index: 0,
        text,
        logprobs: [],
      });
      await send(sse, "response.content_part.done", { item_id: id, output_index: index, content_index: 0, part });
      output[index] = messageItem(id, "completed", [part]);
    }
    await send(sse, "response.output_item.done", { output_index: index, item: output[index] });
    open = undefined;
  };

  const openPart = async (sse: SseWriter, kind: OpenPart["kind"]) => {
    await closePart(sse);
    const id = newItemId(kind === "reasoning" ? "rs" : "msg");
    const index = output.length;
    const item = kind === "reasoning" ? reasoningItem(id, "in_progress", []) : messageItem(id, "in_progress", []);
    output.push(item);
    await send(sse, "response.output_item.added", { output_index: index, item });
    const part = kind === "reasoning" ? { type: "reasoning_text", text: "" } : outputText("");
    await send(sse, "response.content_part.added", { item_id: id, output_index: index, content_index: 0, part });
    open = { kind, id, index, text: "" };
  };

  const addText = async (sse: SseWriter, kind: OpenPart["kind"], delta: string) => {
    if (open?.kind !== kind) await openPart(sse, kind);
    const part = open as OpenPart;
    part.text += delta;
    const event = kind === "reasoning" ? "response.reasoning_text.delta" : "response.output_text.delta";
    await send(sse, event, {
      item_id: part.id,
      output_index: part.index,
      content_index: 0,
      delta,
      ...(kind === "message" ? { logprobs: [] } : {}),
    });
  };

  /** A released call, sent whole as the item its route says, with the events OpenAI streams for it. */
  const toolCall = async (sse: SseWriter, call: ToolCall) => {
    await closePart(sse);
    const index = output.length;
    const done = callItem(call, routes);
    const id = done.id;
    if (done.type === "function_call") {
      output.push({ ...done, arguments: "", status: "in_progress" });
      await send(sse, "response.output_item.added", { output_index: index, item: output[index] });
      const args = done.arguments;
      await send(sse, "response.function_call_arguments.delta", { item_id: id, output_index: index, delta: args });
      await send(sse, "response.function_call_arguments.done", {
        item_id: id,
        output_index: index,
        name: done.name,
        arguments: args,
      });
    } else if (done.type === "custom_tool_call") {
      output.push({ ...done, input: "" });
      await send(sse, "response.output_item.added", { output_index: index, item: output[index] });
      const input = done.input;
      await send(sse, "response.custom_tool_call_input.delta", {
        item_id: id,
        call_id: done.call_id,
        output_index: index,
        delta: input,
      });
      await send(sse, "response.custom_tool_call_input.done", { item_id: id, output_index: index, input });
    } else {
      output.push({ ...done, status: "in_progress" } as OutputItem);
      await send(sse, "response.output_item.added", { output_index: index, item: output[index] });
    }
    output[index] = done;
    await send(sse, "response.output_item.done", { output_index: index, item: done });
  };

  return {
    async open(sse) {
      await send(sse, "response.created", { response: openingResponse(head) });
      await send(sse, "response.in_progress", { response: openingResponse(head) });
    },
    async chunk(sse, chunk: StreamChunk) {
      const { content, reasoning_content: thought } = chunk.delta;
      if (thought) await addText(sse, "reasoning", thought);
      if (content) await addText(sse, "message", content);
      for (const { call } of released.of(chunk)) await toolCall(sse, call);
      const r = chunk.result;
      if (!r) return;
      await closePart(sse);
      const response = finishedResponse(head, r, output);
      await send(sse, response.status === "completed" ? "response.completed" : "response.incomplete", { response });
    },
    close: async (sse) => sse.end(),
    // Headers are out: an `error` event as the Responses API streams it, with OpenAI's error object
    // beside its fields, which the openai client raises as an APIError.
    fail: (sse, e) => {
      const { error } = responsesError(e, toolPaths).body(redact);
      return send(sse, "error", { code: error.code, message: error.message, param: error.param, error });
    },
  };
}

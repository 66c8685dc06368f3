// generate()'s result as an Anthropic Message: the thought as a thinking block, the text as a text
// block, each complete and valid call as a tool_use block (a call cut by max_tokens or invalid is
// in result.incomplete, never here), the stop reason, and the usage. The streamed form (stream.ts)
// builds the same content from the same pieces.
import { randomUUID } from "node:crypto";
import type { GenerateResult } from "../../engine/generate.js";
import type { ToolCall } from "../../parser/types.js";
import { toolmaskField } from "../shapes.js";

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export type ContentBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | ToolUseBlock;

export const newMessageId = () => `msg_${randomUUID().replaceAll("-", "")}`;

/**
 * "length" is max_tokens whatever it cut (a call included); complete calls are tool_use, also when
 * a stop string ended the answer after them (an agent runs them); otherwise a stop string is
 * stop_sequence, and the model's own end end_turn.
 */
export function stopReasonOf(r: GenerateResult): StopReason {
  if (r.finishReason === "length") return "max_tokens";
  if (r.finishReason === "tool_calls") return "tool_use";
  return r.stopSequence !== undefined ? "stop_sequence" : "end_turn";
}

/** The stop string that ended the answer (GenerateResult.stopSequence), whatever the stop reason. */
export const stopSequenceOf = (r: GenerateResult): string | null => r.stopSequence ?? null;

/** A finished call as a tool_use block: its arguments (JSON the parser checked) as the input object. */
export function toolUseBlock(call: ToolCall): ToolUseBlock {
  const input = call.function.arguments.trim() === "" ? {} : (JSON.parse(call.function.arguments) as unknown);
  if (input === null || typeof input !== "object" || Array.isArray(input))
    throw new Error(`call ${call.id} has arguments that are not a JSON object: ${call.function.arguments}`);
  return { type: "tool_use", id: call.id, name: call.function.name, input: input as Record<string, unknown> };
}

export function contentOf(r: GenerateResult): ContentBlock[] {
  const m = r.message;
  const out: ContentBlock[] = [];
  if (m.reasoning_content) out.push({ type: "thinking", thinking: m.reasoning_content, signature: "" });
  if (m.content) out.push({ type: "text", text: m.content });
  for (const call of m.tool_calls ?? []) out.push(toolUseBlock(call));
  return out;
}

export const usageOf = (r: GenerateResult) => ({
  input_tokens: r.usage.prompt_tokens,
  output_tokens: r.usage.completion_tokens,
});

/** The message as message_start opens a stream: no content yet, and no stop reason. */
export function openingMessage(id: string, model: string) {
  return {
    id,
    type: "message" as const,
    role: "assistant" as const,
    model,
    content: [] as ContentBlock[],
    stop_reason: null,
    stop_sequence: null,
    // The prompt's tokens are counted once decoding ends: message_delta carries them.
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}

export function messageBody(id: string, model: string, r: GenerateResult) {
  return {
    ...openingMessage(id, model),
    content: contentOf(r),
    stop_reason: stopReasonOf(r),
    stop_sequence: stopSequenceOf(r),
    usage: usageOf(r),
    ...toolmaskField(r),
  };
}

// generate()'s result as an Anthropic Message: the thought as a thinking block, the text as a text
// block, each complete and valid call as a tool_use block (a call cut by max_tokens or invalid is
// in result.incomplete, never here), the stop reason, and the usage. The streamed form (stream.ts)
// builds the same content from the same pieces. A tool_use input is the arguments' own JSON text:
// the body is written by jsonWithRaw (raw-json.ts), never by JSON.stringify of a parsed value.
import { randomUUID } from "node:crypto";
import type { GenerateResult } from "../../engine/generate.js";
import { withoutJsonWs } from "../../parser/json-scan.js";
import { JsonObject } from "../../parser/json-value.js";
import { readJson } from "../../parser/read-value.js";
import type { ToolCall } from "../../parser/types.js";
import { jsonWithRaw, RawJson } from "../raw-json.js";
import { toolmaskField } from "../toolmask-field.js";
import { sealThought } from "./thought-signature.js";

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  /** The arguments' JSON text, written into the body as it stands (raw-json.ts). */
  input: RawJson;
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

/**
 * A finished call as a tool_use block: its input is its arguments' own JSON text (JSON the parser
 * or a gateway's check accepted), the whitespace between tokens dropped and nothing else changed,
 * so numbers and key order reach the client as the model wrote them ("" is {}).
 */
export function toolUseBlock(call: ToolCall): ToolUseBlock {
  const text = call.function.arguments;
  if (text.trim() === "") return { type: "tool_use", id: call.id, name: call.function.name, input: new RawJson("{}") };
  if (!(readJson(text) instanceof JsonObject))
    throw new Error(`call ${call.id} has arguments that are not a JSON object: ${text.slice(0, 200)}`);
  return { type: "tool_use", id: call.id, name: call.function.name, input: new RawJson(withoutJsonWs(text)) };
}

/** The answer's blocks; `thoughtOmitted`: the thought in the thinking block's signature (thought-signature.ts). */
export function contentOf(r: GenerateResult, thoughtOmitted = false): ContentBlock[] {
  const m = r.message;
  const out: ContentBlock[] = [];
  if (m.reasoning_content)
    out.push(
      thoughtOmitted
        ? { type: "thinking", thinking: "", signature: sealThought(m.reasoning_content) }
        : { type: "thinking", thinking: m.reasoning_content, signature: "" },
    );
  if (m.content) out.push({ type: "text", text: m.content });
  for (const call of m.tool_calls ?? []) out.push(toolUseBlock(call));
  return out;
}

/**
 * As Anthropic counts them (and llama-server's Messages API): input_tokens are the prompt tokens
 * decoded for this request, cache_read_input_tokens those reused from the prompt cache (absent from
 * a gateway, which does not read them); the prompt is their sum.
 */
export const usageOf = (r: GenerateResult) => {
  const cached = r.usage.prompt_tokens_details?.cached_tokens;
  return {
    input_tokens: r.usage.prompt_tokens - (cached ?? 0),
    ...(cached !== undefined ? { cache_read_input_tokens: cached } : {}),
    output_tokens: r.usage.completion_tokens,
  };
};

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

/** The whole answer's body as JSON text, each tool_use input written as its arguments' text. */
export function messageBody(id: string, model: string, r: GenerateResult, thoughtOmitted = false): string {
  return jsonWithRaw({
    ...openingMessage(id, model),
    content: contentOf(r, thoughtOmitted),
    stop_reason: stopReasonOf(r),
    stop_sequence: stopSequenceOf(r),
    usage: usageOf(r),
    ...toolmaskField(r),
  });
}

// The field readers the three APIs' request readers share (chat/request.ts, responses/request.ts,
// anthropic/request.ts and their message readers): numbers, integers and booleans in range, text
// parts, a conversation's list field, tool names as a refusal lists them. Each refusal is a 400
// naming the field (OpenAI's `param`) and what would be accepted.
import { invalidParam } from "./errors.js";
import { given, isObj, kind, SHOWN_CHARS, shown, type Obj } from "./values.js";

export const MAX_STOPS = 16;

/** Largest count the engine takes (a 32-bit signed integer in llama.cpp). */
export const INT32_MAX = 2 ** 31 - 1;

export function number(body: Obj, key: string, min: number, max: number): number | undefined {
  const v = body[key];
  if (!given(v)) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max)
    throw invalidParam(key, `${key} must be a number from ${min} to ${max}, got ${shown(v)}`);
  return v;
}

export function integer(body: Obj, key: string, min: number, max: number): number | undefined {
  const v = body[key];
  if (!given(v)) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max)
    throw invalidParam(key, `${key} must be an integer from ${min} to ${max}, got ${shown(v)}`);
  return v;
}

export function bool(body: Obj, key: string): boolean | undefined {
  const v = body[key];
  if (!given(v)) return undefined;
  if (typeof v !== "boolean") throw invalidParam(key, `${key} must be true or false, got ${kind(v)}`, "invalid_type");
  return v;
}

/** Text parts joined, as OpenAI reads them; other parts (images, audio) this server cannot read. */
export function content(v: unknown, where: string): string | null | undefined {
  if (v === undefined || v === null || typeof v === "string") return v;
  if (!Array.isArray(v))
    throw invalidParam(where, `${where} must be a string or an array of text parts, got ${kind(v)}`, "invalid_type");
  return v
    .map((part, k) => {
      if (!isObj(part) || part.type !== "text" || typeof part.text !== "string")
        throw invalidParam(
          `${where}[${k}]`,
          `${where}[${k}] must be {"type": "text", "text": "…"}; this server reads text only`,
        );
      return part.text;
    })
    .join("");
}

/**
 * A conversation's list field (`messages`, the Responses API's `input`): a non-empty array of at
 * most `contextSize` entries. Every entry takes at least one token of the prompt; more of them than
 * the context holds cannot fit, and are refused before the template renders them (100,000 messages
 * took minutes).
 */
export function promptList(v: unknown, field: string, shape: string, entries: string, contextSize: number): unknown[] {
  if (!Array.isArray(v) || v.length === 0)
    throw invalidParam(
      field,
      `${field} must be ${shape}, got ${Array.isArray(v) ? "an empty array" : kind(v)}`,
      given(v) ? "invalid_type" : "missing_required_parameter",
    );
  if (v.length > contextSize)
    throw invalidParam(
      field,
      `${v.length} ${entries} cannot fit in this model's context of ${contextSize} tokens (each takes at least one); send at most ${contextSize}`,
      "context_length_exceeded",
    );
  return v;
}

/**
 * A 400 for a message whose content is an empty array (`where`: `messages[0]`, `input[0]`): it would
 * reach the template as an empty turn. OpenAI's API reference gives a message's content array
 * minItems 1 (every role), and /v1/messages refuses a message of no content blocks.
 */
export function refuseNoParts(v: unknown, where: string): void {
  if (Array.isArray(v) && v.length === 0)
    throw invalidParam(
      `${where}.content`,
      `${where}.content is an empty array: a message needs at least one content part; send its text as a string (or null for an assistant message with tool_calls), or leave the message out`,
    );
}

/** Tool names as a refusal lists them: the first 20, each quoted short, and how many more. */
export function declaredNames(names: readonly string[]): string {
  if (names.length === 0) return "none declared";
  const brief = (n: string) => (n.length <= SHOWN_CHARS ? n : shown(n));
  const first = names.slice(0, 20).map(brief).join(", ");
  return names.length > 20 ? `${first} and ${names.length - 20} more` : first;
}

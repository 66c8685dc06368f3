// The conversation as it goes over the wire, and to disk and back: nothing the model wrote is
// dropped (text beside calls, reasoning blocks), and no empty field is invented.
import type { AgentMessage, AgentToolCall, AssistantAgentMessage } from "./types.js";

/** An assistant message from a response's `message` object (OpenAI shape, as any server sends it). */
export function assistantMessage(raw: unknown, callIdPrefix: string): AssistantAgentMessage {
  if (raw === null || typeof raw !== "object") throw new TypeError("the response's message is not an object");
  const m = raw as Record<string, unknown>;
  // "" goes as null: some providers reject an assistant message with empty content beside calls.
  const text = textOf(m.content);
  const out: AssistantAgentMessage = { role: "assistant", content: text === "" ? null : text };
  // Calls in any other shape than a list of call objects cannot be run nor sent back: the answer
  // is refused whole rather than read as an answer without calls.
  if (m.tool_calls !== undefined && m.tool_calls !== null && !Array.isArray(m.tool_calls))
    throw new TypeError(`the response's message tool_calls is ${describe(m.tool_calls)}, not an array of calls`);
  if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0)
    out.tool_calls = m.tool_calls.map((c, i) => toolCallOf(c, `${callIdPrefix}_${i}`, i));
  if (Array.isArray(m.reasoning_details) && m.reasoning_details.length > 0) out.reasoning_details = m.reasoning_details;
  if (typeof m.reasoning === "string" && m.reasoning !== "") out.reasoning = m.reasoning;
  if (typeof m.reasoning_content === "string" && m.reasoning_content !== "")
    out.reasoning_content = m.reasoning_content;
  return out;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  // Content parts: the text parts, in order.
  if (Array.isArray(content))
    return content
      .map((p) =>
        p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string"
          ? (p as { text: string }).text
          : "",
      )
      .join("");
  throw new TypeError(`the response's message content is neither text nor content parts: ${JSON.stringify(content)}`);
}

function describe(v: unknown): string {
  return Array.isArray(v) ? "an array" : v === null ? "null" : typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function toolCallOf(raw: unknown, fallbackId: string, i: number): AgentToolCall {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new TypeError(`the response's message tool_calls[${i}] is ${describe(raw)}, not a call object`);
  const c = raw as { id?: unknown; function?: unknown };
  if (c.function === null || typeof c.function !== "object" || Array.isArray(c.function))
    throw new TypeError(
      `the response's message tool_calls[${i}].function is ${describe(c.function)}, not an object with name and arguments`,
    );
  const fn = c.function as { name?: unknown; arguments?: unknown };
  // Arguments stay as sent; an object (some servers) is written as the JSON text it stands for.
  const args =
    typeof fn.arguments === "string"
      ? fn.arguments
      : fn.arguments === undefined || fn.arguments === null
        ? ""
        : JSON.stringify(fn.arguments);
  return {
    id: typeof c.id === "string" && c.id !== "" ? c.id : fallbackId,
    type: "function",
    function: { name: typeof fn.name === "string" ? fn.name : "", arguments: args },
  };
}

/** The history as JSON text (e.g. to save it); `parseHistory` reads it back unchanged. */
export function serializeHistory(messages: readonly AgentMessage[]): string {
  return JSON.stringify(messages);
}

/** Reads `serializeHistory`'s text (or any JSON array of chat messages), checking every message. */
export function parseHistory(json: string): AgentMessage[] {
  const value: unknown = JSON.parse(json);
  if (!Array.isArray(value)) throw new TypeError("a history must be a JSON array of chat messages");
  value.forEach((m, i) => checkMessage(m, i));
  return value as AgentMessage[];
}

/** Throws, naming the message, when `m` is not a chat message runAgent can send. */
export function checkMessage(m: unknown, i: number): void {
  const where = `messages[${i}]`;
  if (m === null || typeof m !== "object") throw new TypeError(`${where} must be an object with a role`);
  const o = m as Record<string, unknown>;
  switch (o.role) {
    case "system":
    case "developer":
      if (typeof o.content !== "string") throw new TypeError(`${where} (${o.role}) needs a string content`);
      return;
    case "user":
      if (typeof o.content !== "string" && !Array.isArray(o.content))
        throw new TypeError(`${where} (user) needs a string or content-part array content`);
      return;
    case "assistant":
      if (o.content !== null && typeof o.content !== "string")
        throw new TypeError(`${where} (assistant) content must be a string or null`);
      if (o.content === "" && Array.isArray(o.tool_calls))
        throw new TypeError(`${where} (assistant) beside tool_calls, an empty content must be null, not ""`);
      if (o.tool_calls !== undefined && !Array.isArray(o.tool_calls))
        throw new TypeError(`${where} (assistant) tool_calls must be an array`);
      return;
    case "tool":
      if (typeof o.tool_call_id !== "string" || typeof o.content !== "string")
        throw new TypeError(`${where} (tool) needs a string tool_call_id and content`);
      return;
    default:
      throw new TypeError(
        `${where} has role ${JSON.stringify(o.role)}; use "system", "developer", "user", "assistant" or "tool"`,
      );
  }
}

// The prompt side of a dialect whose family's template does not carry tools or calls itself
// (DialectSpec.prompt): the messages are rewritten before the template renders them, so what
// the model reads is what the dialect's grammar lets it write and its parser reads back.
//
// "generic" follows llama.cpp's generic handler (common/chat.cpp before the autoparser, with
// minja's polyfills): the system message gains "Respond in JSON format, …", then the tools as
// indented JSON and an example call; past calls become the assistant's content as indented
// `{"tool_calls": [{"name", "arguments"}]}`, tool results user messages holding
// `{"tool_response": {"tool", "content", "tool_call_id"}}`. Our example and past calls carry no
// "id" (llama.cpp's example has `"id": "call_1___"`): the dialect's calls have none.
import { pyRepr } from "../grammar/python-repr.js";
import { readExactJson } from "../parser/exact-json.js";
import type { ChatMessage, ChatToolCall } from "../templates/render.js";
import type { DialectSpec } from "./spec.js";

export const GENERIC_INSTRUCTION =
  "Respond in JSON format, either with `tool_call` (a request to call tools) or with `response` reply to the user's request";
export const GENERIC_TOOLS_INTRO = "You can call any of the following tools to satisfy the user's requests: ";
const GENERIC_EXAMPLE = JSON.stringify(
  { tool_calls: [{ name: "tool_name", arguments: { arg1: "some_value" } }] },
  null,
  2,
);

export interface PromptParts {
  messages: ChatMessage[];
  /** The tools to hand the template (none where the system message already describes them). */
  tools?: unknown[];
}

/** A call's arguments as an object (the API sends a JSON string). */
function argumentsOf(call: ChatToolCall, where: string): Record<string, unknown> {
  const a = call.function?.arguments;
  if (a === undefined || a === null || (typeof a === "string" && a.trim() === "")) return {};
  if (typeof a !== "string") return a;
  // Read so that the prompt shows what was sent (a repeated key or a changed number is refused).
  const read = readExactJson(a);
  if ("error" in read && read.json) throw new TypeError(`${where}.function.arguments: ${read.error}`);
  const v = "value" in read ? read.value : undefined;
  if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  throw new TypeError(`${where}.function.arguments must be a JSON object (as a string or an object)`);
}

/** Past calls in the dialect's wire form, as the model would have written them. */
export function callsText(spec: DialectSpec, calls: ChatToolCall[], where = "tool_calls"): string {
  const f = spec.call;
  const read = calls.map((c, i) => ({ name: String(c.function?.name ?? ""), args: argumentsOf(c, `${where}[${i}]`) }));
  if (f.kind === "envelope")
    return JSON.stringify({ [f.callsKey]: read.map((c) => ({ [f.nameKey]: c.name, [f.argsKey]: c.args })) }, null, 2);
  if (f.kind === "python" && spec.section?.arrayOpen) {
    const list = read.map(
      (c) =>
        `${c.name}${f.nameClose}${Object.entries(c.args)
          .map(([k, v]) => `${k}=${pyRepr(v)}`)
          .join(", ")})`,
    );
    return `${spec.section.open}${spec.section.arrayOpen}${list.join(", ")}${spec.section.close}${spec.section.end ?? ""}`;
  }
  throw new TypeError(`dialect ${spec.name}: its template writes calls itself`);
}

/** The system text llama.cpp's generic handler adds for `tools`. */
export function genericSystemText(tools: unknown[]): string {
  return `${GENERIC_INSTRUCTION}\n\n${GENERIC_TOOLS_INTRO}${JSON.stringify(tools, null, 2)}\n\nExample tool call syntax:\n\n${GENERIC_EXAMPLE}\n\n`;
}

/** minja's add_system: appended to the first message when it is the system's, else a new first message. */
function addSystem(messages: ChatMessage[], text: string): ChatMessage[] {
  const first = messages[0];
  if (first && first.role === "system" && typeof first.content === "string")
    return [{ ...first, content: `${first.content}\n\n${text}` }, ...messages.slice(1)];
  return [{ role: "system", content: text }, ...messages];
}

/**
 * The messages and tools to render for `spec`. `templateWritesCalls`: the template renders
 * `tool_calls` itself (LFM2.5-8B-A1B does; LFM2's own prints content only).
 */
export function promptParts(
  spec: DialectSpec,
  messages: ChatMessage[],
  tools: unknown[] | undefined,
  templateWritesCalls: boolean,
): PromptParts {
  const hasTools = Array.isArray(tools) && tools.length > 0;
  const withTools = (m: ChatMessage[]): PromptParts => (hasTools ? { messages: m, tools: tools! } : { messages: m });
  if (spec.prompt === "calls-as-content" && !templateWritesCalls) {
    return withTools(
      messages.map((m, i) => {
        if (m?.role !== "assistant" || !Array.isArray(m.tool_calls) || m.tool_calls.length === 0) return m;
        const { tool_calls, ...rest } = m;
        const content = typeof m.content === "string" ? m.content : "";
        return { ...rest, content: content + callsText(spec, tool_calls, `messages[${i}].tool_calls`) };
      }),
    );
  }
  if (spec.prompt !== "generic") return withTools(messages);
  const rewritten = messages.map((m, i): ChatMessage => {
    if (m && m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      // Text beside past calls is left out: the dialect's answer is one JSON object, calls or text.
      const { tool_calls, ...rest } = m;
      return { ...rest, content: callsText(spec, tool_calls, `messages[${i}].tool_calls`) };
    }
    if (m && m.role === "tool") {
      const response: Record<string, unknown> = {};
      if (m.name !== undefined) response.tool = m.name;
      response.content = m.content;
      if (m.tool_call_id !== undefined) response.tool_call_id = m.tool_call_id;
      const { name: _n, tool_call_id: _id, ...rest } = m;
      return { ...rest, role: "user", content: JSON.stringify({ tool_response: response }, null, 2) };
    }
    return m;
  });
  return { messages: hasTools ? addSystem(rewritten, genericSystemText(tools!)) : rewritten };
}

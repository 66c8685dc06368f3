// An Anthropic conversation (`system`, then `messages` of content blocks) as the OpenAI-shaped
// messages generate() renders with the model's chat template: text blocks joined, an assistant's
// `thinking` blocks as its reasoning_content and its `tool_use` blocks as tool_calls (the block's id
// kept as the call's id, its input as the arguments' JSON), and each `tool_result` block as a tool
// message with that id (its tool_reference blocks as lines, deferred-tools.ts). Every refusal
// names the block it is about.
import type { ChatMessage } from "../../templates/render.js";
import { invalidParam } from "../errors.js";
import { content, promptList } from "../fields.js";
import { given, isObj, kind, shown, type Obj } from "../values.js";
import { type ToolReferences, toolResultText } from "./deferred-tools.js";
import { openThought } from "./thought-signature.js";

const USER_BLOCKS = "text and tool_result";
const ASSISTANT_BLOCKS = "text, thinking and tool_use";

/** `system`: a string or an array of text blocks; undefined when absent or empty. */
export function systemMessage(v: unknown): ChatMessage | undefined {
  const text = content(v, "system");
  return text ? { role: "system", content: text } : undefined;
}

function text(block: Obj, where: string): string {
  if (typeof block.text !== "string")
    throw invalidParam(`${where}.text`, `${where}.text must be a string, got ${kind(block.text)}`, "invalid_type");
  return block.text;
}

function blocks(m: Obj, where: string): Obj[] {
  if (typeof m.content === "string") return [{ type: "text", text: m.content }];
  if (!Array.isArray(m.content))
    throw invalidParam(
      `${where}.content`,
      `${where}.content must be a string or an array of content blocks, got ${kind(m.content)}`,
      given(m.content) ? "invalid_type" : "missing_required_parameter",
    );
  // A message of no blocks would vanish from the conversation (a conversation of none would reach
  // generate() with no message at all); Anthropic's API refuses it too.
  if (m.content.length === 0)
    throw invalidParam(
      `${where}.content`,
      `${where}.content is an empty array: a message needs at least one content block; send its text as a string or as [{"type": "text", "text": "…"}], or leave the message out`,
    );
  return m.content.map((b, j) => {
    if (!isObj(b) || typeof b.type !== "string")
      throw invalidParam(
        `${where}.content[${j}]`,
        `${where}.content[${j}] must be a content block {"type", …}, got ${kind(b)}`,
        "invalid_type",
      );
    return b;
  });
}

function unsupportedBlock(b: Obj, where: string, role: string, allowed: string): never {
  throw invalidParam(
    `${where}.type`,
    `${where}.type ${shown(b.type)} is not supported in ${role} messages by this server; it reads ${allowed} blocks`,
    "unsupported_value",
  );
}

/** A user message: its text as a user message, each tool_result as a tool message, in block order. */
function userMessages(
  list: Obj[],
  where: string,
  calls: ReadonlySet<string>,
  prev: string,
  refs: ToolReferences,
): ChatMessage[] {
  const out: ChatMessage[] = [];
  const answered = new Set<string>();
  let said: string[] | undefined;
  const flush = () => {
    if (said) out.push({ role: "user", content: said.join("") });
    said = undefined;
  };
  list.forEach((b, j) => {
    const w = `${where}.content[${j}]`;
    if (b.type === "text") {
      (said ??= []).push(text(b, w));
      return;
    }
    if (b.type !== "tool_result") unsupportedBlock(b, w, "user", USER_BLOCKS);
    const id = b.tool_use_id;
    if (typeof id !== "string" || id === "")
      throw invalidParam(`${w}.tool_use_id`, `${w}.tool_use_id must be the id of a tool_use block`);
    if (!calls.has(id))
      throw invalidParam(
        `${w}.tool_use_id`,
        `${w}.tool_use_id ${shown(id)} does not match a tool_use block in ${prev}; a tool_result answers a tool_use of the assistant message just before it`,
      );
    // One result per call, as /v1/responses holds function_call_output items to: a template would
    // show the model two answers to one call.
    if (answered.has(id))
      throw invalidParam(
        `${w}.tool_use_id`,
        `${w}.tool_use_id ${shown(id)} is answered twice in ${where}; send one tool_result per tool_use`,
      );
    answered.add(id);
    if (given(b.is_error) && typeof b.is_error !== "boolean")
      throw invalidParam(`${w}.is_error`, `${w}.is_error must be true or false, got ${kind(b.is_error)}`);
    const result = toolResultText(b.content, `${w}.content`, refs);
    flush();
    // Chat templates have no error flag on a tool message: the text says so.
    out.push({ role: "tool", tool_call_id: id, content: b.is_error === true ? `Error: ${result}` : result });
  });
  flush();
  return out;
}

/** An assistant message: its text, its thought and its calls as one OpenAI assistant message. */
function assistantMessage(list: Obj[], where: string, ids: Set<string>): ChatMessage {
  const said: string[] = [];
  const thought: string[] = [];
  const calls: NonNullable<ChatMessage["tool_calls"]> = [];
  list.forEach((b, j) => {
    const w = `${where}.content[${j}]`;
    if (b.type === "text") said.push(text(b, w));
    else if (b.type === "thinking") {
      if (typeof b.thinking !== "string")
        throw invalidParam(`${w}.thinking`, `${w}.thinking must be a string, got ${kind(b.thinking)}`, "invalid_type");
      // With display "omitted" the block comes back with its thought in the signature.
      thought.push(b.thinking === "" ? (openThought(b.signature) ?? "") : b.thinking);
    } else if (b.type === "tool_use") {
      if (typeof b.id !== "string" || b.id === "")
        throw invalidParam(`${w}.id`, `${w}.id must be a non-empty string (the id its tool_result refers to)`);
      if (ids.has(b.id)) throw invalidParam(`${w}.id`, `${w}.id ${shown(b.id)} is used by another tool_use block`);
      if (typeof b.name !== "string" || b.name === "")
        throw invalidParam(`${w}.name`, `${w}.name must be the name of a tool`);
      if (!isObj(b.input))
        throw invalidParam(`${w}.input`, `${w}.input must be an object (the tool's arguments), got ${kind(b.input)}`);
      ids.add(b.id);
      calls.push({ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input) } });
    } else unsupportedBlock(b, w, "assistant", ASSISTANT_BLOCKS);
  });
  const out: ChatMessage = { role: "assistant", content: said.length > 0 ? said.join("") : null };
  if (thought.length > 0) out.reasoning_content = thought.join("");
  if (calls.length > 0) out.tool_calls = calls;
  return out;
}

/**
 * `messages` as OpenAI-shaped messages; at most `contextSize` of them (each takes a token at least).
 * The tool_reference blocks of its tool_results are recorded in `refs` (deferred-tools.ts).
 */
export function conversation(messages: unknown, contextSize: number, refs: ToolReferences = new Map()): ChatMessage[] {
  const v = promptList(messages, "messages", "a non-empty array of {role, content}", "messages", contextSize);
  const out: ChatMessage[] = [];
  let calls = new Set<string>();
  const ids = new Set<string>();
  v.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!isObj(m))
      throw invalidParam(where, `${where} must be an object {role, content}, got ${kind(m)}`, "invalid_type");
    if (m.role !== "user" && m.role !== "assistant" && m.role !== "system")
      throw invalidParam(
        `${where}.role`,
        `${where}.role must be "user", "assistant" or "system", got ${shown(m.role)}`,
      );
    const list = blocks(m, where);
    if (m.role === "system") {
      // Where it stands (Claude Code sends its environment after the first user message); the
      // template's render moves it to the front where it cannot render it there (system-fallback.ts).
      const said = list.map((b, j) =>
        b.type === "text"
          ? text(b, `${where}.content[${j}]`)
          : unsupportedBlock(b, `${where}.content[${j}]`, "system", "text"),
      );
      out.push({ role: "system", content: said.join("") });
    } else if (m.role === "user") {
      out.push(...userMessages(list, where, calls, i > 0 ? `messages[${i - 1}]` : "an earlier message", refs));
      calls = new Set();
    } else {
      const said = assistantMessage(list, where, ids);
      calls = new Set((said.tool_calls ?? []).map((c) => c.id as string));
      out.push(said);
    }
  });
  // The turn answered is the last user or assistant message's (system messages may follow it).
  let last = v.length - 1;
  while (last >= 0 && (v[last] as Obj).role === "system") last--;
  if (last < 0)
    throw invalidParam(
      "messages",
      "messages holds system messages only: send at least one user message",
      "missing_required_parameter",
    );
  if ((v[last] as Obj).role !== "user")
    throw invalidParam(
      `messages[${last}].role`,
      `messages[${last}] is an assistant message: this server answers a user turn and does not continue a prefilled assistant message; end messages with a user message`,
      "unsupported_value",
    );
  return out;
}

// `context_management` of a Messages request (Claude Code sends `{edits: [{type:
// "clear_thinking_20251015", keep: "all"}]}`): the context edits Anthropic applies before the
// model reads the conversation. clear_thinking is applied here the same way — the thought of every
// assistant turn but the last `keep.value` ones that have one is left out of the prompt ("all"
// keeps every thought; Anthropic's default keeps 1 turn). Other edits (clear_tool_uses_20250919,
// which needs Anthropic's token triggers) are refused with a 400 naming them, never dropped: they
// would change what the model reads.
import type { ChatMessage } from "../../templates/render.js";
import { invalidParam } from "../errors.js";
import { given, isObj, kind, shown } from "../values.js";

const CLEAR_THINKING = "clear_thinking_20251015";

/** How many of the latest assistant turns with a thought keep it (Infinity: all); undefined when no edit asks. */
export function thinkingTurnsKept(v: unknown): number | undefined {
  if (!given(v)) return undefined;
  if (!isObj(v))
    throw invalidParam("context_management", `context_management must be an object, got ${kind(v)}`, "invalid_type");
  for (const key of Object.keys(v))
    if (key !== "edits")
      throw invalidParam(
        `context_management.${key.length <= 64 ? key : shown(key)}`,
        `context_management.${key.length <= 64 ? key : shown(key)} is not supported by this server; it reads edits`,
        "unsupported_parameter",
      );
  if (!given(v.edits)) return undefined;
  if (!Array.isArray(v.edits) || v.edits.length > 16)
    throw invalidParam(
      "context_management.edits",
      `context_management.edits must be an array of at most 16 edits, got ${kind(v.edits)}`,
      "invalid_type",
    );
  let kept: number | undefined;
  v.edits.forEach((e, i) => {
    const where = `context_management.edits[${i}]`;
    if (!isObj(e) || e.type !== CLEAR_THINKING)
      throw invalidParam(
        `${where}.type`,
        `${where}.type ${isObj(e) ? shown(e.type) : kind(e)} is not supported by this server; it applies ${CLEAR_THINKING}`,
        "unsupported_value",
      );
    for (const key of Object.keys(e))
      if (key !== "type" && key !== "keep")
        throw invalidParam(
          `${where}.${key.length <= 64 ? key : shown(key)}`,
          `${where}.${key.length <= 64 ? key : shown(key)} is not a field of ${CLEAR_THINKING}; it has type and keep`,
          "unsupported_parameter",
        );
    kept = keep(e.keep, `${where}.keep`);
  });
  return kept;
}

function keep(v: unknown, where: string): number {
  if (!given(v)) return 1;
  if (v === "all") return Number.POSITIVE_INFINITY;
  if (
    isObj(v) &&
    v.type === "thinking_turns" &&
    typeof v.value === "number" &&
    Number.isInteger(v.value) &&
    v.value >= 0 &&
    v.value <= 1_000_000 &&
    Object.keys(v).every((k) => k === "type" || k === "value")
  )
    return v.value;
  throw invalidParam(
    where,
    `${where} must be "all" or {"type": "thinking_turns", "value": n} with n an integer from 0 up, got ${shown(v)}`,
    "invalid_value",
  );
}

/** `messages` with the thought of all but the last `kept` assistant turns that have one left out. */
export function clearThinking(messages: ChatMessage[], kept: number): ChatMessage[] {
  if (kept === Number.POSITIVE_INFINITY) return messages;
  let seen = 0;
  const out = [...messages];
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i]!;
    if (m.role !== "assistant" || typeof m.reasoning_content !== "string" || m.reasoning_content === "") continue;
    if (++seen <= kept) continue;
    const { reasoning_content: _left, ...rest } = m;
    out[i] = rest;
  }
  return out;
}

// Tool search (Anthropic's `defer_loading`): a tool declared with `defer_loading: true` is hidden
// from the model until a `tool_reference` block names it in a tool_result of the conversation
// (what a tool search returns, Claude Code's ToolSearch among them). Until then it is neither in
// the prompt nor in the grammar, so no call can name it: Claude Code 2.1.328 declares
// `DeferredToolPlaceholder` that way on every request and refuses a call to it ("No such tool
// available"). Once referenced it is offered like any other tool. A reference renders in the tool
// message as the line `Tool loaded: NAME`.
import { invalidParam } from "../errors.js";
import { given, isObj, kind, shown } from "../values.js";

/** The tool_reference blocks of a conversation: each named tool and where it was named. */
export type ToolReferences = Map<string, string>;

/** `defer_loading` of tool `w`: true, false or absent (false). */
export function deferLoading(t: Record<string, unknown>, w: string): boolean {
  if (!given(t.defer_loading)) return false;
  if (typeof t.defer_loading !== "boolean")
    throw invalidParam(
      `${w}.defer_loading`,
      `${w}.defer_loading must be true or false, got ${kind(t.defer_loading)}`,
      "invalid_type",
    );
  return t.defer_loading;
}

/**
 * A tool_result's `content`: a string, or text and tool_reference blocks. Returns its text for the
 * tool message; each reference is recorded in `refs` (checked against the tools by offeredTools).
 */
export function toolResultText(v: unknown, where: string, refs: ToolReferences): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (!Array.isArray(v))
    throw invalidParam(
      where,
      `${where} must be a string or an array of text and tool_reference blocks, got ${kind(v)}`,
    );
  return v
    .map((b, k) => {
      const w = `${where}[${k}]`;
      if (isObj(b) && b.type === "text" && typeof b.text === "string") return b.text;
      if (isObj(b) && b.type === "tool_reference") {
        if (typeof b.tool_name !== "string" || b.tool_name === "")
          throw invalidParam(
            `${w}.tool_name`,
            `${w}.tool_name must be the name of a declared tool, got ${shown(b.tool_name)}`,
          );
        if (!refs.has(b.tool_name)) refs.set(b.tool_name, w);
        return `Tool loaded: ${b.tool_name}\n`;
      }
      throw invalidParam(
        w,
        `${w} must be {"type": "text", "text": "…"} or {"type": "tool_reference", "tool_name": "…"}; this server reads those only`,
      );
    })
    .join("");
}

/**
 * The tools offered to the model: those not deferred, and the deferred ones a tool_reference
 * loaded. A reference to a tool not declared is refused.
 */
export function offeredTools<T extends { function: { name: string } }>(
  declared: Array<{ tool: T; deferred: boolean }>,
  refs: ToolReferences,
): { offered: T[]; hidden: string[] } {
  for (const [name, w] of refs) {
    const d = declared.find((t) => t.tool.function.name === name);
    if (!d)
      throw invalidParam(
        `${w}.tool_name`,
        `${w}.tool_name ${shown(name)} is not among the declared tools; a tool_reference loads a tool declared with defer_loading: true`,
      );
  }
  const offered: T[] = [];
  const hidden: string[] = [];
  for (const { tool, deferred } of declared)
    if (!deferred || refs.has(tool.function.name)) offered.push(tool);
    else hidden.push(tool.function.name);
  return { offered, hidden };
}

// A function name that no fixed string closes (GLM: `<tool_call>NAME<arg_key>…`,
// `<tool_call>NAME\n</tool_call>`): it ends where the call's first parameter or its close
// begins, exactly as the grammar's `literal(name)` followed by the parameters or the close.
import type { ResolvedRequest } from "../dialects/options.js";
import type { XmlCallFormat } from "../dialects/spec.js";
import type { ToolDef } from "../dialects/tools.js";
import { matchGlue, NEED } from "./glue.js";
import type { Text } from "./text.js";

/** refused: resumeAt is where content reading goes on, when the refusal was a name's departure (departure.ts). */
export type NameRead =
  | { status: "done"; tool: ToolDef; end: number; close?: string }
  | { status: "need"; cutAt: string }
  | { status: "refused"; resumeAt?: number };

/**
 * Decided per declared name, on the text alone: a name followed by a parameter or the close is
 * the call's; one the text is still a prefix of (or whose follower has only begun) keeps it open;
 * when none is left the call is refused, before anything about it was streamed.
 */
export function readNameBeforeGlue(
  text: Text,
  i: number,
  f: XmlCallFormat,
  o: ResolvedRequest,
  final: boolean,
): NameRead {
  let open = false;
  for (const t of o.tools) {
    if (text.startsWith(t.name, i)) {
      const j = i + t.name.length;
      const p = matchGlue(text, j, f.paramOpen, final);
      const c = matchGlue(text, j, f.close, final);
      if (p >= 0 || c >= 0) return { status: "done", tool: t, end: j };
      if (p === NEED || c === NEED) open = true;
    } else if (t.name.startsWith(text.slice(i, i + t.name.length))) {
      open = true; // the text ends inside this name
    }
  }
  return open ? { status: "need", cutAt: "the function name" } : { status: "refused" };
}

// Whether one answer's tool calls are what a client can act on: every call is complete (the
// output did not end inside one), names a tool the request allows, has its required arguments,
// and a call is there when the tool choice demands one. Text cut by maxTokens after complete calls
// does not spoil them (the finish reasons show it apart). Checked on the parser's calls, against the request's tools
// (not the parser's own bookkeeping), so a parser that let a bad call through would show here.
import type { ToolChoice } from "../dialects/tools.js";
import type { FinishReason, IncompleteCall, ToolCall } from "../parser/types.js";

export interface AnswerView {
  finishReason: FinishReason;
  toolCalls: ToolCall[];
  incomplete: IncompleteCall[];
}

export interface Verdict {
  valid: boolean;
  /** "" when valid; else why not, in a few words. */
  reason: string;
  calls: number;
  /** The output ended inside a call. */
  truncated: boolean;
}

type ToolLike = { function?: { name?: string; parameters?: { required?: string[] } } };

export function verdictOf(
  a: AnswerView,
  tools: readonly unknown[],
  choice: ToolChoice | undefined,
  parallel: boolean | undefined,
): Verdict {
  const truncated = a.incomplete.some((c) => c.kind === "cut");
  const calls = a.toolCalls.length;
  const out = (reason: string): Verdict => ({ valid: reason === "", reason, calls, truncated });
  if (truncated) return out("cut inside a call");
  const bad = a.incomplete[0];
  if (bad) return out(`invalid call: ${bad.reason}`);
  const declared = new Map(
    (tools as ToolLike[]).map((t) => [t.function?.name ?? "", t.function?.parameters?.required ?? []]),
  );
  const c = choice ?? "auto";
  const allowed = typeof c === "object" ? [c.function.name] : c === "none" ? [] : [...declared.keys()];
  if ((c === "required" || typeof c === "object") && calls === 0)
    return out(a.finishReason === "length" ? "cut by maxTokens before any call" : "no call although one is required");
  if (parallel === false && calls > 1) return out(`${calls} calls although parallel calls are off`);
  for (const call of a.toolCalls) {
    if (!allowed.includes(call.function.name))
      return out(`call to ${JSON.stringify(call.function.name)}, which the request does not allow`);
    let args: unknown;
    try {
      args = JSON.parse(call.function.arguments);
    } catch {
      return out(`arguments of ${call.function.name} are not JSON`);
    }
    if (args === null || typeof args !== "object" || Array.isArray(args))
      return out(`arguments of ${call.function.name} are not an object`);
    const missing = declared.get(call.function.name)!.filter((k) => !(k in (args as object)));
    if (missing.length > 0) return out(`${call.function.name} lacks ${missing.join(", ")}`);
  }
  return out("");
}

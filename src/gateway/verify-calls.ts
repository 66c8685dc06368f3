// Calls an OpenAI-compatible engine returned as structured tool_calls, checked against the
// request's tools by the same value grammars the parser uses (parser/validate.ts): a call of the
// wrong shape (engines/openai.ts says which), a call to a tool that is not allowed, arguments that
// are not a JSON object of its parameters (JSON whitespace around it as the call envelopes allow;
// a key given twice or a number a double cannot hold is refused too),
// a second call when parallel calls are off, or any call of an answer cut at max_tokens is not
// passed on as valid but reported in `incomplete`, as the parser reports its own.
import { jsonArgumentsText } from "../dialects/call-grammar.js";
import { resolveRequest, type DialectOptions, type ResolvedRequest } from "../dialects/options.js";
import { allowedTool, notAllowedReason } from "../dialects/tool-choice.js";
import { invalidJsonReason } from "../parser/calls.js";
import { JsonObject, valueFault } from "../parser/json-value.js";
import { readJson } from "../parser/read-value.js";
import type { IncompleteCall, ToolCall } from "../parser/types.js";
import { grammarAccepts } from "../parser/validate.js";
import type { CallDelta } from "./engines/types.js";

export interface VerifiedCalls {
  toolCalls: ToolCall[];
  incomplete: IncompleteCall[];
}

/** The calls of `deltas` (fragments joined by index), each valid or reported. */
export function verifyCalls(
  deltas: CallDelta[],
  options: DialectOptions | ResolvedRequest,
  finish: "stop" | "length",
  firstIndex = 0,
): VerifiedCalls {
  const o = resolveRequest(options);
  const byIndex = new Map<
    number,
    { id?: string; name: string; arguments: string; malformed?: NonNullable<CallDelta["malformed"]> }
  >();
  for (const d of deltas) {
    const c = byIndex.get(d.index) ?? { name: "", arguments: "" };
    if (d.malformed) c.malformed ??= d.malformed;
    if (d.id !== undefined) c.id ??= d.id;
    if (d.name !== undefined) c.name += d.name;
    if (d.arguments !== undefined) c.arguments += d.arguments;
    byIndex.set(d.index, c);
  }
  const out: VerifiedCalls = { toolCalls: [], incomplete: [] };
  const calls = [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
  calls.forEach((c, k) => {
    const index = firstIndex + k;
    const text = JSON.stringify({ name: c.name, arguments: c.arguments });
    const refuse = (kind: IncompleteCall["kind"], reason: string, missing: string[] = []) =>
      out.incomplete.push({ index, name: c.name || null, kind, reason, missing, text });
    if (c.malformed)
      return out.incomplete.push({
        index,
        name: c.name || null,
        kind: "invalid",
        reason: c.malformed.reason,
        missing: [],
        text: c.malformed.text,
      });
    if (finish === "length") return refuse("cut", "the answer was cut at max_tokens");
    if (c.name === "") return refuse("invalid", "a call without a function name");
    const tool = allowedTool(o, c.name);
    if (!tool) return refuse("invalid", notAllowedReason(o, c.name));
    if (!o.parallelToolCalls && out.toolCalls.length > 0)
      return refuse("invalid", "a second call while parallel_tool_calls is false");
    // Read as the parser reads a call's arguments: numbers as written, a key given twice told.
    const args = readJson(c.arguments === "" ? "{}" : c.arguments);
    if (args === undefined) return refuse("invalid", "arguments are not JSON");
    const missing = args instanceof JsonObject ? tool.required.filter((r) => !args.entries.has(r)) : [];
    if (
      valueFault(args) !== undefined ||
      !grammarAccepts(jsonArgumentsText(tool, o.maxValueLength), c.arguments === "" ? "{}" : c.arguments)
    )
      return refuse("invalid", invalidJsonReason(tool, args, o.maxValueLength), missing);
    out.toolCalls.push({
      id: c.id ?? `call_${index}`,
      type: "function",
      function: { name: c.name, arguments: c.arguments === "" ? "{}" : c.arguments },
    });
  });
  return out;
}

// Runs one turn's calls: parallel-safe calls at the same time (at most `limit` at once), every
// other call alone. Results come back in the order of the calls, each with its own tool_call_id;
// a call that cannot or did not run well gets a result that says why.
import type { ToolDef } from "../dialects/tools.js";
import { checkArguments } from "./arguments.js";
import { resultJson } from "./result-json.js";
import type { AgentMessage, AgentTool, AgentToolCall } from "./types.js";

export interface DeclaredTool {
  tool: AgentTool;
  def: ToolDef;
}

export interface ToolRunOptions {
  tools: ReadonlyMap<string, DeclaredTool>;
  limit: number;
  signal: AbortSignal;
  /** The history the calls came from (tools may read it). */
  messages: readonly AgentMessage[];
}

type ToolMessage = Extract<AgentMessage, { role: "tool" }>;

export async function runToolCalls(calls: readonly AgentToolCall[], o: ToolRunOptions): Promise<ToolMessage[]> {
  const contents: string[] = new Array(calls.length);
  const inFlight = new Set<Promise<void>>();
  const ids = new Set<string>();
  for (const [i, call] of calls.entries()) {
    // Two results with one tool_call_id could not be told apart: the later call is refused.
    if (ids.has(call.id)) {
      contents[i] =
        `Error: the call id "${call.id}" is used by an earlier call in this answer; each call needs its own id. This call ("${call.function.name}") was not run.`;
      continue;
    }
    ids.add(call.id);
    const declared = o.tools.get(call.function.name);
    if (!declared) {
      const names = [...o.tools.keys()].map((n) => `"${n}"`).join(", ") || "none";
      contents[i] =
        `Error: there is no tool named "${call.function.name}"; the tools are: ${names}. The call was not run.`;
      continue;
    }
    const checked = checkArguments(declared.def, call.function.arguments);
    if ("error" in checked) {
      contents[i] =
        `Error: ${checked.error}. The tool "${call.function.name}" was not run; call it again with valid arguments.`;
      continue;
    }
    const start = () => execute(declared.tool, checked.args, call, o).then((c) => void (contents[i] = c));
    if (declared.tool.parallelSafe) {
      while (inFlight.size >= o.limit) await Promise.race(inFlight);
      const p: Promise<void> = start().finally(() => inFlight.delete(p));
      inFlight.add(p);
    } else {
      // One at a time: nothing else runs beside it.
      await Promise.all(inFlight);
      await start();
    }
  }
  await Promise.all(inFlight);
  return calls.map((call, i) => ({ role: "tool", tool_call_id: call.id, content: contents[i]! }));
}

async function execute(
  tool: AgentTool,
  args: Record<string, unknown>,
  call: AgentToolCall,
  o: ToolRunOptions,
): Promise<string> {
  if (o.signal.aborted) return `Error: the run was aborted before "${tool.name}" ran.`;
  let value: unknown;
  try {
    value = await tool.execute(args, { toolCallId: call.id, signal: o.signal, messages: o.messages });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return `Error: the tool "${tool.name}" failed: ${why}`;
  }
  try {
    return resultText(value);
  } catch (e) {
    // A stack overflow on a deeply nested result lands here too.
    return `Error: the tool "${tool.name}" ran, but its result cannot be sent as JSON: ${(e as Error).message}`;
  }
}

/** A string is sent as is, undefined as "", anything else as JSON (see result-json.ts). */
function resultText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined) return "";
  return resultJson(v);
}

// Runs one turn's calls: parallel-safe calls at the same time (at most `limit` at once), every
// other call alone. Results come back in the order of the calls, each with its own tool_call_id;
// a call that cannot or did not run well gets a result that says why. While the model is still
// writing its answer, a call the stream reports complete and valid may start at once (`offer`):
// when it and every call before it in the answer is parallel-safe, so calls start in the same
// order and under the same rules as they would once the answer ended, only sooner.
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

export type ToolMessage = Extract<AgentMessage, { role: "tool" }>;

type Checked = { error: string } | { tool: AgentTool; args: Record<string, unknown> };

export class TurnToolRunner {
  readonly #o: ToolRunOptions;
  readonly #contents: string[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  readonly #ids = new Set<string>();
  /** The calls started early, in answer order (a prefix of the answer's calls). */
  readonly #early: AgentToolCall[] = [];
  #earlyOpen = true;

  constructor(o: ToolRunOptions) {
    this.#o = o;
  }

  /** The ids of the calls started before the answer ended. */
  get startedEarly(): string[] {
    return this.#early.map((c) => c.id);
  }

  /**
   * Call `index` of the answer is complete and valid in the stream; `history` is the conversation
   * with the answer so far (its calls up to this one). It starts now when it and every earlier
   * call started early and a parallel slot is free; otherwise it and every later call wait for the
   * answer's end.
   */
  offer(index: number, call: AgentToolCall, history: readonly AgentMessage[]): void {
    if (!this.#earlyOpen || index !== this.#early.length || this.#inFlight.size >= this.#o.limit) {
      this.#earlyOpen = false;
      return;
    }
    const checked = this.#check(call);
    if ("error" in checked || !checked.tool.parallelSafe) {
      this.#earlyOpen = false;
      return;
    }
    this.#ids.add(call.id);
    this.#early.push(call);
    this.#launch(index, checked, call, history);
  }

  /** The answer's calls, run (those started early awaited), their results in call order. */
  async finish(calls: readonly AgentToolCall[]): Promise<ToolMessage[]> {
    this.#earlyOpen = false;
    this.#early.forEach((c, i) => {
      const final = calls[i];
      // The stream's complete calls are the answer's calls (the parser's tool_call_end events are its result's toolCalls).
      if (!final || final.function.name !== c.function.name || final.function.arguments !== c.function.arguments)
        throw new Error(`internal: call ${i} started early ("${c.function.name}") is not the answer's call ${i}`);
    });
    for (const [i, call] of calls.entries()) {
      if (i < this.#early.length) continue;
      // Two results with one tool_call_id could not be told apart: the later call is refused.
      if (this.#ids.has(call.id)) {
        this.#contents[i] =
          `Error: the call id "${call.id}" is used by an earlier call in this answer; each call needs its own id. This call ("${call.function.name}") was not run.`;
        continue;
      }
      this.#ids.add(call.id);
      const checked = this.#check(call);
      if ("error" in checked) {
        this.#contents[i] = checked.error;
        continue;
      }
      if (checked.tool.parallelSafe) {
        while (this.#inFlight.size >= this.#o.limit) await Promise.race(this.#inFlight);
        this.#launch(i, checked, call, this.#o.messages);
      } else {
        // One at a time: nothing else runs beside it.
        await Promise.all(this.#inFlight);
        this.#contents[i] = await execute(checked.tool, checked.args, call, this.#o.signal, this.#o.messages);
      }
    }
    await Promise.all(this.#inFlight);
    return calls.map((call, i) => ({ role: "tool", tool_call_id: call.id, content: this.#contents[i]! }));
  }

  /** The results of the calls started early, once they have run (the answer then failed or was cut). */
  async settleEarly(): Promise<ToolMessage[]> {
    this.#earlyOpen = false;
    await Promise.all(this.#inFlight);
    return this.#early.map((call, i) => ({ role: "tool", tool_call_id: call.id, content: this.#contents[i]! }));
  }

  #check(call: AgentToolCall): Checked {
    const declared = this.#o.tools.get(call.function.name);
    if (!declared) {
      const names = [...this.#o.tools.keys()].map((n) => `"${n}"`).join(", ") || "none";
      return {
        error: `Error: there is no tool named "${call.function.name}"; the tools are: ${names}. The call was not run.`,
      };
    }
    const checked = checkArguments(declared.def, call.function.arguments);
    if ("error" in checked)
      return {
        error: `Error: ${checked.error}. The tool "${call.function.name}" was not run; call it again with valid arguments.`,
      };
    return { tool: declared.tool, args: checked.args };
  }

  #launch(
    i: number,
    c: { tool: AgentTool; args: Record<string, unknown> },
    call: AgentToolCall,
    history: readonly AgentMessage[],
  ): void {
    const p: Promise<void> = execute(c.tool, c.args, call, this.#o.signal, history)
      .then((content) => void (this.#contents[i] = content))
      .finally(() => this.#inFlight.delete(p));
    this.#inFlight.add(p);
  }
}

/** Runs an answer's calls once it has ended (no early start). */
export function runToolCalls(calls: readonly AgentToolCall[], o: ToolRunOptions): Promise<ToolMessage[]> {
  return new TurnToolRunner(o).finish(calls);
}

async function execute(
  tool: AgentTool,
  args: Record<string, unknown>,
  call: AgentToolCall,
  signal: AbortSignal,
  messages: readonly AgentMessage[],
): Promise<string> {
  if (signal.aborted) return `Error: the run was aborted before "${tool.name}" ran.`;
  let value: unknown;
  try {
    value = await tool.execute(args, { toolCallId: call.id, signal, messages });
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

// Runs one turn's calls: parallel-safe calls at the same time (at most `limit` at once), every
// other call alone. Results come back in the order of the calls, each with its own tool_call_id;
// a call that cannot or did not run well gets a result that says why. While the model is still
// writing its answer, a call the stream reports complete and valid may start at once (`offer`):
// when it and every call before it in the answer is parallel-safe, so calls start in the same
// order and under the same rules as they would once the answer ended, only sooner. Each call has
// a deadline, and an abort of the run ends the wait at once: a call still running then is
// abandoned (its result says so, and the turn lists it), never waited for.
import type { ToolDef } from "../dialects/tools.js";
import { checkArguments } from "./arguments.js";
import { AbandonedError, withDeadline } from "./deadline.js";
import { resultJson } from "./result-json.js";
import type { AbandonedCall, AgentMessage, AgentTool, AgentToolCall } from "./types.js";

export interface DeclaredTool {
  tool: AgentTool;
  def: ToolDef;
  /** Milliseconds one call may run, and the option that set it (the tool's or the run's). */
  timeout: { ms: number; option: string };
}

export interface ToolRunOptions {
  tools: ReadonlyMap<string, DeclaredTool>;
  limit: number;
  signal: AbortSignal;
  /** The history the calls came from (tools may read it). */
  messages: readonly AgentMessage[];
}

export type ToolMessage = Extract<AgentMessage, { role: "tool" }>;

type Checked = { error: string } | { declared: DeclaredTool; args: Record<string, unknown> };

/** A call's result text, and why it was abandoned when it was. */
interface Outcome {
  content: string;
  abandoned?: AbandonedCall["why"];
}

export class TurnToolRunner {
  readonly #o: ToolRunOptions;
  readonly #contents: string[] = [];
  readonly #abandoned: Array<AbandonedCall | undefined> = [];
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

  /** The calls whose results were abandoned (run aborted, or past their deadline), in call order. */
  get abandoned(): AbandonedCall[] {
    return this.#abandoned.filter((a) => a !== undefined);
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
    if ("error" in checked || !checked.declared.tool.parallelSafe) {
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
      if (checked.declared.tool.parallelSafe) {
        while (this.#inFlight.size >= this.#o.limit) await Promise.race(this.#inFlight);
        this.#launch(i, checked, call, this.#o.messages);
      } else {
        // One at a time: nothing else runs beside it.
        await Promise.all(this.#inFlight);
        this.#record(i, call, await execute(checked, call, this.#o.signal, this.#o.messages));
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
    return { declared, args: checked.args };
  }

  #record(i: number, call: AgentToolCall, o: Outcome): void {
    this.#contents[i] = o.content;
    if (o.abandoned) this.#abandoned[i] = { id: call.id, name: call.function.name, why: o.abandoned };
  }

  #launch(
    i: number,
    c: { declared: DeclaredTool; args: Record<string, unknown> },
    call: AgentToolCall,
    history: readonly AgentMessage[],
  ): void {
    const p: Promise<void> = execute(c, call, this.#o.signal, history)
      .then((o) => this.#record(i, call, o))
      .finally(() => this.#inFlight.delete(p));
    this.#inFlight.add(p);
  }
}

/** Runs an answer's calls once it has ended (no early start). */
export function runToolCalls(calls: readonly AgentToolCall[], o: ToolRunOptions): Promise<ToolMessage[]> {
  return new TurnToolRunner(o).finish(calls);
}

/** A call ran past its deadline (also the reason its ctx.signal gives). */
class ToolTimeoutError extends Error {
  constructor(name: string, t: DeclaredTool["timeout"]) {
    super(`the tool "${name}" did not finish within ${t.option} (${t.ms} ms)`);
    this.name = "ToolTimeoutError";
  }
}

async function execute(
  c: { declared: DeclaredTool; args: Record<string, unknown> },
  call: AgentToolCall,
  signal: AbortSignal,
  messages: readonly AgentMessage[],
): Promise<Outcome> {
  const { tool, timeout } = c.declared;
  if (signal.aborted) return { content: `Error: the run was aborted before "${tool.name}" ran.` };
  let value: unknown;
  try {
    value = await withDeadline(
      timeout.ms,
      signal,
      (s) => tool.execute(c.args, { toolCallId: call.id, signal: s, messages }),
      () => new ToolTimeoutError(tool.name, timeout),
    );
  } catch (e) {
    if (e instanceof ToolTimeoutError)
      return {
        content: `Error: ${e.message}; its result was abandoned and the tool was told to stop.`,
        abandoned: "timeout",
      };
    // A tool that heeds its signal may reject with the abort's reason before it is abandoned.
    if (e instanceof AbandonedError || signal.aborted)
      return {
        content: `Error: the run was aborted while the tool "${tool.name}" ran; its result was abandoned.`,
        abandoned: "aborted",
      };
    const why = e instanceof Error ? e.message : String(e);
    return { content: `Error: the tool "${tool.name}" failed: ${why}` };
  }
  try {
    return { content: resultText(value) };
  } catch (e) {
    // A stack overflow on a deeply nested result lands here too.
    return {
      content: `Error: the tool "${tool.name}" ran, but its result cannot be sent as JSON: ${(e as Error).message}`,
    };
  }
}

/** A string is sent as is, undefined as "", anything else as JSON (see result-json.ts). */
function resultText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === undefined) return "";
  return resultJson(v);
}

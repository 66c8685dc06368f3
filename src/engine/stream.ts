// generateStream(): generate() as OpenAI-style deltas while decoding runs, read by the same
// dialect parser token by token: text as it decodes, each call once it ended complete and valid
// (StreamDeltas), so the deltas add up to the result. Breaking out of the loop or aborting the
// signal stops decoding.
import type { NativeGenerationResult } from "../native.js";
import { argumentsOf } from "../parser/argument-event.js";
import type { StreamEvent, ToolCallArgument } from "../parser/types.js";
import { type GenerateOptions, type GenerateResult, type OnTokens, resultOf, startGeneration } from "./generate.js";
import type { LlamaModel } from "./model.js";
import { OutputText } from "./output-text.js";

export interface StreamToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function: { name?: string; arguments?: string };
}

export interface StreamDelta {
  role?: "assistant";
  content?: string;
  reasoning_content?: string;
  tool_calls?: StreamToolCallDelta[];
}

export interface StreamChunk {
  /**
   * The OpenAI delta: text and thought as they are read, a call whole once it ended complete and
   * valid (StreamDeltas); {} for an event that has none (a call's start and arguments, an error, a drop).
   */
  delta: StreamDelta;
  /** The parser event behind this chunk (absent on the role chunk and the last one). */
  event?: StreamEvent;
  /** Set on the last chunk only. */
  finish_reason: GenerateResult["finishReason"] | null;
  /** The whole answer, on the last chunk: what generate() would have returned. */
  result?: GenerateResult;
}

/**
 * Parser events as stream chunks: each event with its OpenAI delta. Text and thought go out as they
 * are read. A call's delta goes out whole — index, id, type, name and all its arguments — on its
 * tool_call_end chunk, the parser's verdict that the call ended complete and valid, and never
 * before: the deltas hold exactly the result's calls, in its order (`index` is the call's place in
 * result.message.tool_calls). A call cut by maxTokens or by a stop string, found invalid, dropped,
 * or one more than parallelToolCalls allows shows only in the events (its tool_call_start, its
 * arguments, then its tool_call_error or tool_call_dropped).
 */
export class StreamDeltas {
  #calls = 0;

  chunk(event: StreamEvent): StreamChunk {
    return { delta: this.#delta(event), finish_reason: null, event };
  }

  #delta(e: StreamEvent): StreamDelta {
    switch (e.type) {
      case "content":
        return { content: e.delta };
      case "reasoning":
        return { reasoning_content: e.delta };
      case "tool_call_end": {
        const { id, function: f } = e.call;
        const index = this.#calls++;
        return { tool_calls: [{ index, id, type: "function", function: { name: f.name, arguments: f.arguments } }] };
      }
      default:
        return {}; // a call's start and arguments wait for its verdict; errors and drops have no delta
    }
  }
}

export async function* generateStream(
  model: LlamaModel,
  options: GenerateOptions,
): AsyncGenerator<StreamChunk, void, undefined> {
  const output = new OutputText(model, options.stop);
  const ctl = new AbortController();
  const forward = () => ctl.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", forward, { once: true });
  if (options.signal?.aborted) forward();

  const pending: StreamChunk[] = [];
  const args: ToolCallArgument[] = [];
  const deltas = new StreamDeltas();
  const queue = (e: StreamEvent) => {
    if (e.type === "tool_call_argument") args.push(...argumentsOf([e]));
    pending.push(deltas.chunk(e));
  };
  let wake: (() => void) | undefined;
  const onTokens: OnTokens = (ids, stop) => {
    for (const [i, id] of ids.entries()) {
      for (const e of output.token(id)) queue(e);
      if (output.stopped) {
        stop(i + 1);
        break;
      }
    }
    wake?.();
  };
  let outcome: { native?: NativeGenerationResult; error?: unknown } | undefined;
  let started: Awaited<ReturnType<typeof startGeneration>>;
  try {
    started = await startGeneration(model, options, ctl.signal, onTokens);
  } catch (err) {
    options.signal?.removeEventListener("abort", forward);
    throw err;
  }
  // Tokens reach onTokens in later macrotasks: the parser is in place before the first.
  for (const e of output.attach(started.prepared.resolved, started.prepared.request.grammar !== undefined)) queue(e);
  const run = started.run.then(
    (native) => {
      outcome = { native };
      wake?.();
    },
    (error: unknown) => {
      outcome = { error };
      wake?.();
    },
  );

  try {
    yield { delta: { role: "assistant" }, finish_reason: null };
    for (;;) {
      while (pending.length > 0) yield pending.shift()!;
      if (outcome) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    await run;
    if (outcome.error !== undefined) throw outcome.error;
    const native = outcome.native!;
    const ended = output.end(native.finishReason === "stop" ? "stop" : "length");
    for (const e of ended.events) queue(e);
    while (pending.length > 0) yield pending.shift()!;
    const result = resultOf(native, output.text, ended.parsed, started.prepared.prepareMillis, args);
    if (output.stopSequence !== undefined) result.stopSequence = output.stopSequence;
    if (started.prepared.notices.length > 0) result.notices = started.prepared.notices;
    yield { delta: {}, finish_reason: result.finishReason, result };
  } finally {
    options.signal?.removeEventListener("abort", forward);
    if (!outcome) {
      ctl.abort(); // the consumer stopped early: free the sequence
      await run;
    }
  }
}

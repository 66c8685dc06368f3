// Feeding an output to the stream parser at given cut points, and the event stream as a client
// assembles it: what chunk-invariance tests compare.
import { ToolCallStreamParser, type ParserOptions, type StreamEvent } from "../../src/index.js";

/** Events with consecutive deltas of one kind (and one call) merged. */
export function mergedEvents(events: StreamEvent[]): unknown[] {
  const out: Array<Record<string, unknown>> = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if ((e.type === "content" || e.type === "reasoning") && last?.type === e.type) { last.delta = (last.delta as string) + e.delta; continue; }
    if (e.type === "tool_call_arguments" && last?.type === e.type && last.index === e.index) { last.delta = (last.delta as string) + e.delta; continue; }
    out.push({ ...e });
  }
  return out;
}

/** The result and merged events of feeding `text` split at `cuts` (ascending offsets). */
export function runChunks(text: string, options: ParserOptions, cuts: number[]) {
  const p = new ToolCallStreamParser(options);
  const events: StreamEvent[] = [];
  let at = 0;
  for (const c of cuts) { events.push(...p.feed(text.slice(at, c))); at = c; }
  events.push(...p.feed(text.slice(at)));
  const { events: last, ...result } = p.end();
  events.push(...last);
  return { result, events: mergedEvents(events) };
}

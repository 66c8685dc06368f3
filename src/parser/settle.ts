// What a finished, cut or dropped call becomes in the result and the event stream, shared by the
// stream parser and the harmony reader.
import { jsonText, type Json } from "./json-value.js";
import type { DroppedConstruct, StreamEvent } from "./types.js";

/** Records an over-limit call (its length is set once its end is found) and announces it. */
export function beginDrop(
  dropped: DroppedConstruct[],
  ev: StreamEvent[],
  index: number,
  name: string | null,
  limit: number,
): DroppedConstruct {
  const reason = `the call is longer than maxCallLength (${limit} characters)`;
  const d: DroppedConstruct = { index, name, reason, length: 0 };
  dropped.push(d);
  ev.push({ type: "tool_call_dropped", index, name, reason });
  return d;
}

export function callId(index: number): string {
  return `call_${index}`;
}

/** One argument as the arguments string writes it: `"key": value`, the value's numbers as written. */
export function argumentText([k, v]: [string, Json]): string {
  return `${JSON.stringify(k)}: ${jsonText(v)}`;
}

/** A call's arguments string: `{"a": 1, "b": "x"}`, each value compact. */
export function argumentsJson(args: Array<[string, Json]>): string {
  return args.length === 0 ? "{}" : `{${args.map(argumentText).join(", ")}}`;
}

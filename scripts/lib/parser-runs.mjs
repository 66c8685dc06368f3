// Feeding an output to the stream parser at given cut points, the event stream as a client
// assembles it, and whether the events — and generateStream's OpenAI deltas made from them — tell
// what the result says: what chunk-invariance tests and the fuzzer (scripts/lib/parser-fuzz.mjs)
// compare. The library's classes are passed in, so tests run them from src/ and scripts from dist/.

/** Events with consecutive deltas of one kind (and one call) merged. */
export function mergedEvents(events) {
  const out = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if ((e.type === "content" || e.type === "reasoning") && last?.type === e.type) {
      last.delta += e.delta;
      continue;
    }
    if (e.type === "tool_call_arguments" && last?.type === e.type && last.index === e.index) {
      last.delta += e.delta;
      continue;
    }
    out.push({ ...e });
  }
  return out;
}

/** The result and merged events of feeding `text` split at `cuts` (ascending offsets). */
export function runChunks(Parser, text, options, cuts) {
  const p = new Parser(options);
  const events = [];
  let at = 0;
  for (const c of cuts) {
    events.push(...p.feed(text.slice(at, c)));
    at = c;
  }
  events.push(...p.feed(text.slice(at)));
  const { events: last, ...result } = p.end(options.finishReason ?? "stop");
  events.push(...last);
  return { result, events: mergedEvents(events) };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Where the events disagree with the result (undefined when they tell the same). */
export function eventsDisagree(result, events) {
  const text = (type) =>
    events
      .filter((e) => e.type === type)
      .map((e) => e.delta)
      .join("");
  if (text("content") !== (result.content ?? "")) return "the content events do not make the result's content";
  if (text("reasoning") !== (result.reasoning ?? "")) return "the reasoning events do not make the result's reasoning";
  const ends = events.filter((e) => e.type === "tool_call_end");
  if (
    !same(
      ends.map((e) => e.call),
      result.toolCalls,
    )
  )
    return "the tool_call_end events are not the result's toolCalls";
  for (const e of ends) {
    const start = events.find((s) => s.type === "tool_call_start" && s.index === e.index);
    if (!start || start.id !== e.call.id || start.name !== e.call.function.name)
      return `call ${e.index} ended without its start (or with another id or name)`;
    const args = events
      .filter((a) => a.type === "tool_call_arguments" && a.index === e.index)
      .map((a) => a.delta)
      .join("");
    if (args !== e.call.function.arguments) return `call ${e.index}'s argument deltas do not make its arguments`;
    // One tool_call_argument event per argument, each valid (the call is), after the call's start.
    const told = events.filter((a) => a.type === "tool_call_argument" && a.index === e.index);
    const key = ([k, v]) => JSON.stringify([k, v]);
    const want = Object.entries(JSON.parse(e.call.function.arguments)).map(key).sort();
    const got = told.map((a) => key([a.name, a.value])).sort();
    if (!same(got, want)) return `call ${e.index}'s tool_call_argument events are not its arguments`;
    const bad = told.find((a) => !a.valid || a.path !== `/${a.name.replaceAll("~", "~0").replaceAll("/", "~1")}`);
    if (bad)
      return `call ${e.index}'s argument ${JSON.stringify(bad.name)} is reported ${bad.valid ? `at ${bad.path}` : "invalid"} in a valid call`;
    if (told.some((a) => events.indexOf(a) < events.indexOf(start)))
      return `call ${e.index} has an argument event before its start`;
  }
  const orphan = events.find(
    (a) => a.type === "tool_call_argument" && !events.some((s) => s.type === "tool_call_start" && s.index === a.index),
  );
  if (orphan) return `an argument event of call ${orphan.index}, which never started`;
  if (
    !same(
      events.filter((e) => e.type === "tool_call_error").map((e) => e.call),
      result.incomplete,
    )
  )
    return "the tool_call_error events are not the result's incomplete calls";
  const dropped = events
    .filter((e) => e.type === "tool_call_dropped")
    .map(({ index, name, reason }) => ({ index, name, reason }));
  if (
    !same(
      dropped,
      result.dropped.map(({ index, name, reason }) => ({ index, name, reason })),
    )
  )
    return "the tool_call_dropped events are not the result's dropped calls";
  const settling = events.filter(
    (e) => e.type === "tool_call_end" || e.type === "tool_call_error" || e.type === "tool_call_dropped",
  );
  const indexes = settling.map((e) => e.index);
  if (new Set(indexes).size !== indexes.length) return "two settled calls share an index";
  // A client learns every started call's verdict, and hears nothing more of it after that.
  for (const s of events.filter((e) => e.type === "tool_call_start")) {
    const at = settling.findIndex((e) => e.index === s.index);
    if (at < 0) return `call ${s.index} started but was never settled (no end, error or dropped event)`;
    const last = events.findLastIndex((e) => e.index === s.index);
    if (last !== events.indexOf(settling[at])) return `call ${s.index} has events after its verdict`;
  }
  return undefined;
}

/**
 * Where the OpenAI deltas generateStream makes of these events (`StreamDeltas`, src/engine/stream.ts)
 * disagree with the result (undefined when they assemble to its content, reasoning and calls).
 */
export function deltasDisagree(result, events, StreamDeltas) {
  const deltas = new StreamDeltas();
  const calls = [];
  let content = "";
  let reasoning = "";
  for (const e of events) {
    const { delta } = deltas.chunk(e);
    content += delta.content ?? "";
    reasoning += delta.reasoning_content ?? "";
    for (const t of delta.tool_calls ?? []) {
      if (t.index !== calls.length) return `a call's delta at index ${t.index}, expected ${calls.length}`;
      calls.push({ id: t.id, type: t.type, function: { name: t.function.name, arguments: t.function.arguments } });
    }
  }
  if (content !== (result.content ?? "")) return "the content deltas do not make the result's content";
  if (reasoning !== (result.reasoning ?? "")) return "the reasoning deltas do not make the result's reasoning";
  const call = (c) => [c.id, c.type, c.function.name, c.function.arguments];
  if (!same(calls.map(call), result.toolCalls.map(call))) return "the deltas' calls are not the result's toolCalls";
  return undefined;
}

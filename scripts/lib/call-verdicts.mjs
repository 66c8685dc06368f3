// Whether what the parser calls complete is what the grammar writes, call by call: the design rule
// (the parser never gives a "complete" verdict the grammar would refuse) checked on any answer,
// also one with invalid or cut calls after the complete ones. Shared by the fuzz suite
// (scripts/lib/parser-fuzz.mjs) and the verdict tests; plain ESM, the library's parts passed in
// as `lib` ({ ToolCallStreamParser, parseToolCalls, buildToolGrammar, grammarAcceptor, triggerOf,
// callTriggerOf }), so tests run it on src/ and scripts on dist/.

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The last tool grammar's acceptor, by its options' text: a test checks many answers against one. */
let lastAcceptor;
function acceptorFor(lib, grammarOptions) {
  const key = JSON.stringify(grammarOptions);
  if (lastAcceptor?.key !== key || lastAcceptor.lib !== lib)
    lastAcceptor = { key, lib, accepts: lib.grammarAcceptor(lib.buildToolGrammar(grammarOptions)) };
  return lastAcceptor.accepts;
}

/** Whether the answer `t`, read whole, holds `call` complete. */
const holds = (lib, t, options, call) => lib.parseToolCalls(t, options).toolCalls.some((c) => same(c, call));

/**
 * Undefined, or why a call the parser reports complete is one the grammar refuses. Each complete
 * call's own end is the shortest beginning of the answer that, read whole, already holds it
 * complete; unless that beginning is already outside what the grammar writes before the call (an
 * incomplete or dropped call before it, a trigger taken for text, prose before a required call),
 * the grammar must accept every byte of it.
 */
export function completeBeyondGrammar(lib, spec, text, options) {
  const { maxCallLength: _m, finishReason: _f, ...grammarOptions } = options;
  const whole = lib.parseToolCalls(text, options);
  if (!whole.toolCalls.length) return undefined;
  const triggers = [lib.triggerOf(spec), lib.callTriggerOf(spec)];
  let accepts;
  // Each call's index: the indexes settled calls take, in order, are the calls', incomplete and dropped ones'.
  const taken = new Set([...whole.incomplete, ...whole.dropped].map((x) => x.index));
  let index = 0;
  for (const call of whole.toolCalls) {
    while (taken.has(index)) index++;
    const i = index++;
    // The shortest beginning of the answer that holds the call (a longer one holds it too: text
    // after a call never undoes it).
    let lo = 0,
      hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (holds(lib, text.slice(0, mid), options, call)) hi = mid;
      else lo = mid + 1;
    }
    const head = text.slice(0, hi);
    const r = lib.parseToolCalls(head, options);
    if (r.incomplete.some((x) => x.index < i) || r.dropped.some((x) => x.index < i)) continue;
    if (triggers.some((x) => (r.content ?? "").includes(x) || (r.reasoning ?? "").includes(x))) continue;
    // Under a choice that requires a call, prose before the first one is text the grammar never writes.
    if (options.toolChoice !== undefined && options.toolChoice !== "auto" && proseFirst(lib, head, options)) continue;
    accepts ??= acceptorFor(lib, grammarOptions);
    if (!accepts(head, false))
      return `call ${i} (${call.function.name} ${call.function.arguments}) is complete in the first ${hi} characters, which the grammar refuses: ${JSON.stringify(head.length > 400 ? `…${head.slice(-400)}` : head)}`;
  }
  return undefined;
}

/** Whether content streams before the first call starts when `text` is fed whole. */
function proseFirst(lib, text, options) {
  const p = new lib.ToolCallStreamParser(options);
  for (const e of [...p.feed(text), ...p.end(options.finishReason ?? "stop").events]) {
    if (e.type === "tool_call_start") return false;
    if (e.type === "content" && e.delta) return true;
  }
  return false;
}

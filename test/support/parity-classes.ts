// Sorting every difference between our parser and llama.cpp's into a small set of named classes,
// each explained (with an example and why we differ) in docs/parity.md. A case that fits none is
// a finding: either our bug or a llama.cpp behaviour nobody has written down yet.
import { isDeepStrictEqual } from "node:util";
import { getDialect, type StreamEvent } from "../../src/index.js";
import { callTriggerOf, triggerOf } from "../../src/dialects/spec.js";
import { matchGlue, NEED } from "../../src/parser/glue.js";
import { textOf } from "../../src/parser/text.js";
import type { OurShape, Shape, ShapeCall, TheirShape } from "./parity-shape.js";

/** What our parser saw, beyond the result: facts the classes are decided on. */
export interface OurFacts {
  dialect: string;
  /** The template llama.cpp was given. */
  template: string;
  text: string;
  /** Our stream events, in order. */
  events: StreamEvent[];
  /** The OpenAI tools both parsers were given. */
  tools: unknown[];
  /** parallelToolCalls / parallel_tool_calls. */
  parallel: boolean;
  /** The end of the rendered prompt llama.cpp reports (its generation_prompt; "" when it threw). */
  prompt: string;
}

export const PARITY_CLASSES = {
  // Differences in shape only: applying them to our result gives llama.cpp's exactly.
  "cut-call":
    "the output ended inside a named call: we report it incomplete; llama.cpp returns it as a call (arguments as far as they go, often unfinished JSON) or drops it",
  "cut-before-name":
    "the output ended inside a call or section before a name was complete: we report an incomplete call without a name; llama.cpp says nothing",
  "cut-after-name":
    "GLM-4.6: the output ended after a declared name and the first bytes of what follows it (`<tool_call>read\\n`): we report an incomplete call without a name; llama.cpp returns the call with arguments `{`",
  "unclosed-scope-arguments":
    "Seed-OSS: a complete call whose </seed:tool_call> is missing at the very end: we return the call; llama.cpp returns unfinished JSON arguments",
  "trailing-marker-prefix":
    "the output ends in the first bytes of a call marker (or, inside a thought never closed, of the thought's close): we keep them as content (reasoning); llama.cpp drops them",
  "prompt-thought-in-content":
    "with reasoning_format none, llama.cpp puts the empty thought its prompt ends with (DeepSeek V3.1: <think></think>) at the start of content",
  "leading-whitespace":
    "llama.cpp strips whitespace at the start of content and of reasoning; we keep the bytes as generated",
  "llama3-call-after-text":
    "Llama 3.x: a call object after other text: it is content for us (a call must open the answer, so content with braces stays content); llama.cpp reads everything from the first { as calls",
  "raw-line-break-string":
    "LFM2: a '…' string with a raw line break in it (LFM2.5-8B-A1B's template writes strings unescaped): it is no Python literal, so we report the call invalid; llama.cpp returns the call with the line break raw in its JSON arguments (not valid JSON)",
  "whitespace-glue":
    "whitespace alone between a thought (or the answer's start) and a call: we read it as glue around the call, not content; llama.cpp returns it as content",
  // llama.cpp stops reading at something it does not accept: it returns what came before (or its
  // final parse throws); we read on.
  "undeclared-call":
    "a call to an undeclared name: it is content for us; llama.cpp drops it and everything after it, or throws",
  "parallel-off":
    "with parallelToolCalls false, a second call: we report it invalid; llama.cpp returns it anyway (Hermes), or drops it and everything after it, or throws",
  "invalid-call":
    "a call that ends but does not fit its tool: we report it invalid with a reason; llama.cpp drops it and everything after it, or throws",
  "schema-order":
    "XML parameters in another order than the schema's: we accept them; llama.cpp drops the call and everything after it, or throws",
  "unpadded-value":
    "Qwen3-Coder: a value without the newline padding the template writes: we accept it; llama.cpp drops the call and everything after it",
  "python-literal":
    "a value written with Python's str() as the template writes it (True/False/None, {'a': 1}, ['x']): we read it; llama.cpp drops the call and everything after it, or throws",
  "call-id":
    "Mistral Small 3.2 writes [CALL_ID]id between name and arguments: we do not read that form (it is content), and llama.cpp, given that template, throws on it and on the form without the id",
  "glm-spelling":
    "GLM: a call in the other GLM template's spelling (4.6's newlines after the name, key and value under 4.7's template, or 4.7's bare tags under 4.6's): we read both; llama.cpp's parser wants its template's spelling and throws",
  "minimax-several-invokes":
    "MiniMax-M2: several <invoke> blocks in one <minimax:tool_call> section (or a second one begun when the output ends), as its own template writes parallel calls: we read them all; llama.cpp's final parse throws",
  "text-after-call":
    "text after a call (before another, or at the end): we keep it as content and read on; llama.cpp drops it and everything after it, or throws",
} as const;

export type ParityClass = "same" | keyof typeof PARITY_CLASSES;

/** Proper prefixes of `marker` that `s` ends with: the longest, or "". */
function trailingPrefix(s: string, marker: string): string {
  for (let k = Math.min(marker.length - 1, s.length); k > 0; k--)
    if (s.endsWith(marker.slice(0, k))) return marker.slice(0, k);
  return "";
}

const sameCalls = (a: ShapeCall[], b: ShapeCall[]) => isDeepStrictEqual(a, b);
const shapeOf = (s: Shape): Shape => ({ content: s.content, reasoning: s.reasoning, calls: s.calls });

/** Our result with a named difference applied, or undefined where it does not apply. */
type Step = (ours: Shape, theirs: Shape, o: OurShape, f: OurFacts) => Shape | undefined;

// In priority order: a case is counted under the first step it needed.
const SHAPE_STEPS: Array<[ParityClass, Step]> = [
  [
    "cut-call",
    (ours, theirs, o) => {
      const named = o.cut.filter((c) => c.name !== null);
      if (named.length !== 1) return undefined;
      // llama.cpp returns the cut call after ours (under its name, whatever its arguments), or nothing.
      const extra = theirs.calls[ours.calls.length];
      if (theirs.calls.length === ours.calls.length + 1 && extra?.name === named[0]!.name)
        return { ...ours, calls: [...ours.calls, extra] };
      return undefined;
    },
  ],
  ["cut-call", (ours, _t, o) => (o.cut.some((c) => c.name !== null) ? ours : undefined)],
  [
    "cut-after-name",
    (ours, theirs, o, f) => {
      const extra = theirs.calls[ours.calls.length];
      if (o.cut.length !== 1 || o.cut[0]!.name !== null || theirs.calls.length !== ours.calls.length + 1 || !extra)
        return undefined;
      return endsAfterName(f, extra.name) ? { ...ours, calls: theirs.calls } : undefined;
    },
  ],
  ["cut-before-name", (ours, _t, o) => (o.cut.some((c) => c.name === null) ? ours : undefined)],
  [
    "parallel-off",
    (ours, theirs, o, f) => {
      const extra = o.invalid.filter((c) => c.reason.includes(PARALLEL_REASON)).map((c) => c.name);
      if (f.parallel || extra.length === 0 || !isDeepStrictEqual(theirs.calls.slice(0, ours.calls.length), ours.calls))
        return undefined;
      const more = theirs.calls.slice(ours.calls.length);
      return isDeepStrictEqual(
        more.map((c) => c.name),
        extra,
      )
        ? { ...ours, calls: theirs.calls }
        : undefined;
    },
  ],
  [
    "unclosed-scope-arguments",
    (ours, theirs, _o, f) => {
      const last = theirs.calls[theirs.calls.length - 1];
      const mine = ours.calls[theirs.calls.length - 1];
      if (f.dialect !== "seed-oss" || !last?.unfinished || mine?.name !== last.name || !/<\/function>$/.test(f.text))
        return undefined;
      // Their text is our arguments' JSON without its closing brace.
      if (`${last.unfinished}}` !== JSON.stringify(mine.arguments)) return undefined;
      return { ...ours, calls: [...ours.calls.slice(0, -1), last] };
    },
  ],
  [
    "trailing-marker-prefix",
    (ours, _t, _o, f) => {
      const spec = getDialect(f.dialect);
      const cut = [triggerOf(spec), callTriggerOf(spec)]
        .map((m) => trailingPrefix(ours.content, m))
        .sort((a, b) => b.length - a.length)[0]!;
      if (cut && f.text.endsWith(cut)) return { ...ours, content: ours.content.slice(0, -cut.length) };
      // A thought still open at the end: the first bytes of its close.
      const close = spec.reasoning?.close;
      const inThought =
        close && ours.content === "" && ours.calls.length === 0 ? trailingPrefix(ours.reasoning, close) : "";
      return inThought && f.text.endsWith(inThought)
        ? { ...ours, reasoning: ours.reasoning.slice(0, -inThought.length) }
        : undefined;
    },
  ],
  [
    "prompt-thought-in-content",
    (ours, theirs, _o, f) => {
      const open = getDialect(f.dialect).reasoning?.open;
      const at = open === undefined ? -1 : f.prompt.lastIndexOf(open);
      const thought = at < 0 ? "" : f.prompt.slice(at);
      return thought && theirs.content.startsWith(thought) && !ours.content.startsWith(thought)
        ? { ...ours, content: thought + ours.content }
        : undefined;
    },
  ],
  [
    "llama3-call-after-text",
    (ours, theirs, _o, f) => {
      if (f.dialect !== "llama3" || theirs.content.trim() === "" || !ours.content.startsWith(theirs.content))
        return undefined;
      return ours.content.slice(theirs.content.length).trimStart().startsWith("{")
        ? { ...ours, content: theirs.content, calls: [...ours.calls, ...theirs.calls.slice(ours.calls.length)] }
        : undefined;
    },
  ],
  [
    "raw-line-break-string",
    (ours, theirs, o, f) => {
      // Our invalid calls are theirs, in order, where a quoted value of theirs holds a raw line break.
      if (
        f.dialect !== "lfm2" ||
        o.invalid.length === 0 ||
        theirs.calls.length !== ours.calls.length + o.invalid.length
      )
        return undefined;
      const extra = theirs.calls.slice(ours.calls.length);
      const raw = (c: ShapeCall) => /"[^"]*\n/.test(c.unfinished ?? JSON.stringify(c.arguments));
      if (
        !o.invalid.every(
          (c, k) => c.reason.includes("not a Python literal") && extra[k]?.name === c.name && raw(extra[k]!),
        )
      )
        return undefined;
      return /'[^'\n]*\n/.test(f.text) ? { ...ours, calls: theirs.calls } : undefined;
    },
  ],
  [
    "whitespace-glue",
    (ours, theirs) =>
      ours.content === "" && theirs.content !== "" && theirs.content.trim() === "" && ours.calls.length > 0
        ? { ...ours, content: theirs.content }
        : undefined,
  ],
  [
    "leading-whitespace",
    (ours) => {
      const next = { ...ours, content: ours.content.trimStart(), reasoning: ours.reasoning.trimStart() };
      return isDeepStrictEqual(next, ours) ? undefined : next;
    },
  ],
];

/** Whether `theirs` is ours cut short: the same reasoning, and content and calls that are prefixes of ours. */
function truncated(ours: Shape, theirs: Shape): boolean {
  return (
    theirs.reasoning === ours.reasoning &&
    ours.content.startsWith(theirs.content) &&
    theirs.calls.length <= ours.calls.length &&
    sameCalls(theirs.calls, ours.calls.slice(0, theirs.calls.length))
  );
}

/** How our parser says a call came after the one parallelToolCalls: false allows. */
const PARALLEL_REASON = "parallelToolCalls is false";

/** Templates that write [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}: llama.cpp then requires the id. */
const CALL_ID_TEMPLATES = ["Mistral-Small-3.2-24B-Instruct-2506.jinja"];

/** Causes of llama.cpp stopping early, in priority order: each a fact about the output. */
const STOP_CAUSES: Array<[ParityClass, (o: OurShape, f: OurFacts) => boolean]> = [
  [
    "call-id",
    (_o, f) => f.dialect === "mistral" && (f.text.includes("[CALL_ID]") || CALL_ID_TEMPLATES.includes(f.template)),
  ],
  [
    "undeclared-call",
    (o, f) => {
      const spec = getDialect(f.dialect);
      return o.content.includes(callTriggerOf(spec)) || o.content.includes(triggerOf(spec));
    },
  ],
  [
    "parallel-off",
    (o, f) =>
      !f.parallel &&
      o.calls.length > 0 &&
      (o.cut.length > 0 || o.invalid.some((c) => c.reason.includes(PARALLEL_REASON))),
  ],
  ["invalid-call", (o) => o.invalid.length > 0],
  [
    "schema-order",
    (_o, f) => getDialect(f.dialect).call.kind === "xml" && xmlCalls(f.text).some((c) => !inSchemaOrder(c, f.tools)),
  ],
  ["unpadded-value", (_o, f) => f.dialect === "qwen3-coder" && /<parameter=[^>\n]*>(?!\n)/.test(f.text)],
  [
    "python-literal",
    (_o, f) =>
      getDialect(f.dialect).call.kind === "xml" && /<parameter=[^>\n]*>\n?(True|False|None|\{'|\[')/.test(f.text),
  ],
  ["glm-spelling", (o, f) => f.dialect === "glm-4.5" && o.calls.some((c) => !inTemplateSpelling(c, f))],
  [
    "minimax-several-invokes",
    (_o, f) =>
      f.dialect === "minimax-m2" &&
      f.text.split("<minimax:tool_call>").some((sec) => sec.split("<invoke ").length > 2 || secondInvokeBegun(sec)),
  ],
  [
    "text-after-call",
    (_o, f) => {
      let afterCall = false;
      for (const e of f.events) {
        if (e.type === "tool_call_end" || e.type === "tool_call_error") afterCall = true;
        else if (afterCall && e.type === "content" && e.delta.trim() !== "") return true;
      }
      return false;
    },
  ],
  // Last: a named call cut short after something llama.cpp refuses inside it.
  ["cut-call", (o) => o.cut.some((c) => c.name !== null)],
];

/**
 * Whether the output ends in `<open>NAME` and the first bytes of what may follow a name that no
 * fixed string closes (GLM: a parameter or the call's close).
 */
function endsAfterName(f: OurFacts, name: string): boolean {
  const call = getDialect(f.dialect).call;
  if (call.kind !== "xml" || call.nameClose !== null) return false;
  const head = `${call.open.map((g) => (typeof g === "string" ? g : g.optional)).join("")}${name}`;
  const at = f.text.lastIndexOf(head);
  const rest = at < 0 ? "" : f.text.slice(at + head.length);
  return rest !== "" && [call.paramOpen, call.close].some((g) => matchGlue(textOf(rest), 0, g, true) === NEED);
}

/** GLM templates and whether they write newlines inside a call (4.6 after the name, key and value; 4.7 none). */
const GLM_NEWLINES: Record<string, boolean> = { "GLM-4.6.jinja": true, "GLM-4.7-Flash.jinja": false };

/**
 * Whether a call we read is in the output as the template spells it (4.7's parser also takes a
 * newline after the name). Calls with non-string values are not judged: their text is not known here.
 */
function inTemplateSpelling(c: ShapeCall, f: OurFacts): boolean {
  const newlines = GLM_NEWLINES[f.template];
  const args = Object.entries((c.arguments ?? {}) as Record<string, unknown>);
  if (newlines === undefined || !args.every(([, v]) => typeof v === "string")) return true;
  const nl = newlines ? "\n" : "";
  const params = args
    .map(([k, v]) => `<arg_key>${k}</arg_key>${nl}<arg_value>${v as string}</arg_value>${nl}`)
    .join("");
  const spellings = newlines ? [`${c.name}\n`] : [c.name, `${c.name}\n`];
  return spellings.some((head) => f.text.includes(`<tool_call>${head}${params}</tool_call>`));
}

/** A MiniMax section whose text ends in a second `<invoke ` begun after a whole one (`</invoke>\n<in`). */
function secondInvokeBegun(sec: string): boolean {
  const tail = trailingPrefix(sec, "<invoke ");
  // "<" alone may as well begin the section's close.
  return tail.length > 1 && /<\/invoke>\s*$/.test(sec.slice(0, -tail.length));
}

/** XML calls as written: each `<function=NAME>` and the parameter names after it, finished or not. */
function xmlCalls(text: string): Array<{ name: string; params: string[] }> {
  return text
    .split("<function=")
    .slice(1)
    .map((s) => ({
      name: s.slice(0, s.indexOf(">")),
      params: [...s.matchAll(/<parameter=([^>\n]*)>/g)].map((m) => m[1]!),
    }));
}

/** Whether a call's parameters come in the order of its tool's schema properties. */
function inSchemaOrder(c: { name: string; params: string[] }, tools: unknown[]): boolean {
  const tool = (tools as Array<{ function?: { name?: string; parameters?: { properties?: object } } }>).find(
    (x) => x.function?.name === c.name,
  );
  const props = tool?.function?.parameters?.properties;
  if (!props) return true;
  const order = Object.keys(props);
  const idx = c.params.map((k) => order.indexOf(k));
  return idx.every((v, i) => i === 0 || v > idx[i - 1]!);
}

export interface Verdict {
  class: ParityClass | "unexplained";
  /** Every named difference the case needed (the first is `class`). */
  steps: string[];
}

export function classify(o: OurShape, t: TheirShape, f: OurFacts): Verdict {
  let ours = shapeOf(o);
  const steps: ParityClass[] = [];
  const settle = (): Verdict => ({ class: steps[0] ?? "same", steps });
  if (t.ok) {
    const theirs = shapeOf(t);
    if (isDeepStrictEqual(ours, theirs) && o.cut.length === 0) return settle();
    for (const [name, step] of SHAPE_STEPS) {
      const next = step(ours, theirs, o, f);
      if (!next) continue;
      if (!steps.includes(name)) steps.push(name);
      ours = next;
      if (isDeepStrictEqual(ours, theirs)) return settle();
    }
    if (!truncated(ours, theirs)) return { class: "unexplained", steps };
  }
  const cause = STOP_CAUSES.find(([, applies]) => applies(o, f));
  if (!cause) return { class: "unexplained", steps };
  return { class: cause[0], steps: [cause[0], ...steps] };
}

// Interpreter 1 for harmony (gpt-oss): the grammar of a turn's messages. The parser that reads
// the same messages is src/parser/read-harmony.ts; the decisions are in src/dialects/gpt-oss.ts.
import { alt, anyText, declaredCall, literal, marker, optional, seq, star, text, until } from "../grammar/builders.js";
import type { Grammar, GrammarNode } from "../grammar/ir.js";
import { responseFormatNode } from "./grammar-content.js";
import type { ResolvedResponseFormat } from "./response-format.js";
import type { ResolvedRequest } from "./options.js";
import type { Glue, HarmonyCallFormat } from "./spec.js";
import { jsonArguments } from "./call-grammar.js";
import type { ToolDef } from "./tools.js";

/** Every part of harmony glue is a marker, optional ones too (`<|constrain|>` is a special token). */
export function harmonyGlue(g: Glue): GrammarNode {
  return seq(...g.map((p) => (typeof p === "string" ? marker(p) : optional(marker(p.optional)))));
}

/** `<|channel|>NAME`. */
function channel(f: HarmonyCallFormat, name: string): GrammarNode {
  return seq(marker(f.channel), literal(name));
}

/** A message whose body ends at `<|end|>`: a thought or a preamble. */
function bodyToEnd(f: HarmonyCallFormat, name: string): GrammarNode {
  return seq(channel(f, name), marker(f.message), until(f.end, { marker: true }));
}

/**
 * The final message: the answer's text, then `<|return|>` or `<|end|>` and `after` (text), or the
 * output ends. Under a response format the text is the format's JSON, and nothing follows the end.
 */
function finalMessage(f: HarmonyCallFormat, after: GrammarNode, rf: ResolvedResponseFormat | undefined): GrammarNode {
  return seq(
    channel(f, f.channels.final),
    marker(f.message),
    rf ? responseFormatNode(rf) : text(f.end, { marker: true }),
    optional(seq(alt(marker(f.finalEnd), marker(f.end)), rf ? seq() : after)),
  );
}

/**
 * Text after the answer's end: it names no function (` to=functions.` is in every call header),
 * so a call message there is refused, as the parser reports one (an invalid entry).
 */
function afterEnd(f: HarmonyCallFormat): GrammarNode {
  return text(f.open.find((g): g is string => typeof g === "string")!);
}

/** A call message without its `<|call|>`: the recipient before or after the channel, then the arguments. */
function callMessage(f: HarmonyCallFormat, tools: ToolDef[], maxValueLength?: number): GrammarNode {
  const args = (t: ToolDef) => jsonArguments(t, maxValueLength);
  const type = optional(harmonyGlue(f.contentType));
  const calls = channel(f, f.channels.calls);
  const inRole = seq(
    harmonyGlue(f.open),
    alt(...tools.map((t) => seq(literal(t.name), calls, type, marker(f.message), args(t)))),
  );
  const inChannel = seq(
    calls,
    harmonyGlue(f.open),
    alt(...tools.map((t) => seq(literal(t.name), type, marker(f.message), args(t)))),
  );
  return declaredCall(alt(inRole, inChannel), true); // entered without a byte after a message's start
}

export function buildHarmonyGrammar(o: ResolvedRequest): Grammar {
  const f = o.spec.call as HarmonyCallFormat;
  const next = harmonyGlue(f.messageStart);
  const before = [bodyToEnd(f, f.channels.calls)];
  if (o.reasoning !== false) before.unshift(bodyToEnd(f, f.channels.reasoning));
  // Thoughts and preambles, each followed by the next message's start.
  const lead = star(seq(alt(...before), next));
  let answer: GrammarNode;
  if (o.tools.length === 0) {
    answer = seq(lead, finalMessage(f, anyText(), o.outputFormat));
  } else {
    const call = callMessage(f, o.tools, o.maxValueLength);
    // <|call|> ends the turn (it is the end of generation); text after it is content, as after
    // the calls of the other dialects, but no call message. So a turn has one call, whatever
    // parallelToolCalls says.
    const calls = seq(call, optional(seq(marker(f.callEnd), afterEnd(f))));
    answer = o.callRequired ? seq(lead, calls) : seq(lead, alt(finalMessage(f, afterEnd(f), o.outputFormat), calls));
  }
  // "forced-open": the prompt opened the thought; the output starts inside it.
  return { root: o.reasoning === "forced-open" ? seq(until(f.end, { marker: true }), next, answer) : answer };
}

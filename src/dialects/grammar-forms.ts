// Grammar forms of the dialects whose calls are not marker-delimited text: calls as a JSON array
// after a marker (Mistral Nemo), and a call that is the whole answer (Llama 3.x).
import {
  alt,
  anyText,
  charClass,
  filler,
  literal,
  marker,
  optional,
  repeat,
  seq,
  star,
  until,
} from "../grammar/builders.js";
import type { GrammarNode } from "../grammar/ir.js";
import { JSON_WS_MAX } from "../grammar/json-schema/syntax.js";
import type { ResolvedRequest } from "./options.js";

const WS = [" ", "\n", "\t", "\r"];
/** JSON whitespace, at most JSON_WS_MAX characters. */
export const jsonWs: GrammarNode = repeat(charClass(WS), 0, JSON_WS_MAX);

/** An id of `length` letters or digits. */
export function idChars(length: number): GrammarNode {
  return repeat(charClass(["a-z", "A-Z", "0-9"]), length, length);
}

/**
 * What leads to the answer's first call, through its `trigger` (a marker): under toolChoice auto any
 * text; under a choice that requires a call (required, a named tool) JSON whitespace only, so the
 * call opens the answer and a model is not let write prose to its token limit instead. Both are
 * filler there: the token budget takes them only where the call still fits after them.
 */
export function toFirstCall(o: ResolvedRequest, trigger: string): GrammarNode {
  return o.callRequired ? filler(seq(jsonWs, marker(trigger))) : until(trigger, { marker: true });
}

/** Text before the section (as toFirstCall), the section's open, `[`, calls separated by `,`, `]`; JSON whitespace inside. */
export function arraySection(o: ResolvedRequest, call: GrammarNode): GrammarNode {
  const sec = o.spec.section!;
  const more = o.parallelToolCalls ? star(seq(jsonWs, literal(","), jsonWs, call)) : seq();
  return seq(
    toFirstCall(o, sec.open),
    jsonWs,
    literal(sec.arrayOpen!),
    jsonWs,
    call,
    more,
    jsonWs,
    literal(sec.close),
    sec.end === undefined ? seq() : marker(sec.end),
  );
}

/**
 * A call that opens the answer (after whitespace), then `after`: by default any text, which is
 * content, as after the last call of other dialects. Content alone is any text whose first character after whitespace
 * is not "{", or a call the parser takes for text (`refused`: its name is none the call may have):
 * under toolChoice auto the two cannot be confused.
 */
export function answerCall(
  o: ResolvedRequest,
  call: GrammarNode,
  after: GrammarNode = anyText(),
  refused?: GrammarNode,
): GrammarNode {
  const calls = seq(jsonWs, call, after);
  if (o.callRequired) return calls;
  // Content: its first character after whitespace is not "{", or more whitespace leads it than a call may have.
  const content = alt(
    seq(jsonWs, optional(seq(charClass([...WS, "{"], true), anyText()))),
    seq(repeat(charClass(WS), JSON_WS_MAX + 1, JSON_WS_MAX + 1), anyText()),
    ...(refused === undefined ? [] : [seq(jsonWs, refused, anyText())]),
  );
  return alt(content, calls);
}

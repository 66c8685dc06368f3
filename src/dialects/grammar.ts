// Interpreter 1 of a dialect definition: the grammar that masks decoding.
import { alt, anyText, literal, marker, optional, ref, seq, star, text, until } from "../grammar/builders.js";
import type { Grammar, GrammarNode } from "../grammar/ir.js";
import { buildHarmonyGrammar } from "./grammar-harmony.js";
import { buildEnvelopeGrammar } from "./grammar-envelope.js";
import type { DialectOptions, ResolvedRequest } from "./options.js";
import { resolveRequest } from "./options.js";
import type { DialectSpec } from "./spec.js";
import { callTriggerOf, triggerOf } from "./spec.js";
import { answerCall, arraySection, toFirstCall } from "./grammar-forms.js";
import { callAfterTrigger, glue, refusedCall, splitScope } from "./call-grammar.js";
import { SCHEMA_LIMITS, limitError, toolCountError } from "../grammar/schema-limits.js";
import { openingAnswer, openingCall } from "./grammar-opening.js";
import { responseFormatNode } from "./grammar-content.js";

/**
 * The whole answer: optional thought, content, calls as toolChoice and parallelToolCalls allow.
 * What the grammar names in two places (the first call and the further ones, the answer with and
 * without a thought) is a rule both refer to, so the grammar holds every tool once.
 */
export function buildToolGrammar(options: DialectOptions | ResolvedRequest): Grammar {
  const o = resolveRequest(options);
  const { spec, tools } = o;
  if (o.declared.length > SCHEMA_LIMITS.tools) throw toolCountError(o.declared.length);
  if (o.maxValueLength !== undefined && o.maxValueLength > SCHEMA_LIMITS.stringLength)
    throw limitError(
      "stringLength",
      "maxValueLength",
      `maxValueLength ${o.maxValueLength} exceeds the limit of ${SCHEMA_LIMITS.stringLength} characters; lower it or leave it out`,
    );
  if (spec.call.kind === "harmony") return buildHarmonyGrammar(o);
  if (spec.call.kind === "envelope") return buildEnvelopeGrammar(o);
  const rules: Record<string, GrammarNode> = {};
  const rule = (name: string, node: GrammarNode): GrammarNode => {
    rules[name] = node;
    return ref(name);
  };
  const rf = o.outputFormat;
  let answer: GrammarNode;
  if (tools.length === 0) answer = rf ? responseFormatNode(rf, true, false) : anyText();
  // Under toolChoice auto with a response format the answer is calls (as a choice that requires
  // one has them) or the format's JSON content (options.ts checks that the two can be told apart).
  else if (rf && !o.callRequired)
    answer = alt(responseFormatNode(rf, false, false), toolAnswer({ ...o, callRequired: true }, rule));
  else answer = toolAnswer(o, rule);
  return withThought(spec, o, answer, rules);
}

/** The answer of a request with tools a call may name: calls and text as the dialect and the choice allow. */
function toolAnswer(o: ResolvedRequest, rule: (name: string, node: GrammarNode) => GrammarNode): GrammarNode {
  const { spec, tools } = o;
  const trigger = triggerOf(spec);
  // After the calls: `node` with parallel calls on; with them off the answer ends at its one call
  // (the mask offers only the end of the turn: no text in which a second call could be written).
  const afterCalls = (node: GrammarNode): GrammarNode => (o.parallelToolCalls ? node : seq());
  // Text may stand between and after calls (the parser keeps it), and before the first one
  // under toolChoice auto (toFirstCall); a trigger starts a declared call, or a call the parser
  // takes for text because its name is none the call may have (refusedCall), which is content.
  const refused = refusedCall(spec, tools);
  if (spec.openingCalls && spec.callOpensAnswer) {
    const call = rule("opening-call", openingCall(o, rule));
    return openingAnswer(o, { call, start: anyText(), after: afterCalls(anyText()), rule });
  }
  if (spec.callOpensAnswer)
    return answerCall(o, callAfterTrigger(spec, tools, o.maxValueLength), afterCalls(anyText()), refused);
  if (spec.section?.arrayOpen) {
    const section = seq(
      arraySection(o, rule("tool-call", callAfterTrigger(spec, tools, o.maxValueLength))),
      afterCalls(text(trigger, { marker: true })),
    );
    return o.callRequired ? section : alt(text(trigger, { marker: true }), section);
  }
  if (spec.section) {
    // One section holds every call: open, calls back to back, close.
    const gap = spec.section.gap === undefined ? seq() : optional(literal(spec.section.gap));
    const inSection = rule(
      "tool-call",
      seq(gap, marker(callTriggerOf(spec)), callAfterTrigger(spec, tools, o.maxValueLength)),
    );
    const section = seq(
      toFirstCall(o, trigger),
      inSection,
      o.parallelToolCalls ? star(inSection) : seq(),
      gap,
      marker(spec.section.close),
    );
    const sectioned = seq(section, afterCalls(text(trigger, { marker: true })));
    return o.callRequired ? sectioned : alt(text(trigger, { marker: true }), sectioned);
  }
  // Content: text in which every trigger starts a refused call.
  const gap =
    refused === undefined ? seq() : rule("refused-calls", star(seq(until(trigger, { marker: true }), refused)));
  const toCall = seq(gap, until(trigger, { marker: true }));
  const textOnly = seq(gap, text(trigger, { marker: true }));
  const rest = afterCalls(textOnly);
  const first = o.callRequired ? toFirstCall(o, trigger) : toCall;
  let calls: GrammarNode;
  if (spec.call.kind === "xml" && spec.call.scopeCloseOptionalAtEnd) {
    // The last call's scope close may be missing, but only when the output ends there.
    const open = rule("tool-call", callAfterTrigger(spec, tools, o.maxValueLength, false));
    const scope = glue(splitScope(spec.call.close)[1]);
    const more = seq(scope, toCall, open);
    calls = seq(first, open, o.parallelToolCalls ? star(more) : seq(), optional(seq(scope, rest)));
  } else {
    const call = rule("tool-call", callAfterTrigger(spec, tools, o.maxValueLength));
    const afterCall = seq(o.parallelToolCalls ? star(seq(toCall, call)) : seq(), rest);
    calls = seq(first, call, afterCall);
    if (spec.openingCalls) {
      // The dialect's own calls, and calls opening the answer without its trigger (fencedCalls).
      const own = { trigger, call, ...(refused ? { refused } : {}) };
      const start = alt(textOnly, seq(toCall, call, afterCall));
      const opening = rule("opening-call", openingCall(o, rule));
      return openingAnswer(o, { call: opening, start, after: afterCall, own, rule });
    }
  }
  return o.callRequired ? calls : alt(textOnly, calls);
}

function withThought(
  spec: DialectSpec,
  o: ResolvedRequest,
  answer: GrammarNode,
  rules: Record<string, GrammarNode>,
): Grammar {
  const r = spec.reasoning;
  const grammar = (root: GrammarNode): Grammar => (Object.keys(rules).length ? { root, rules } : { root });
  if (!r || o.reasoning === false) return grammar(answer);
  const thought = until(r.close, { marker: true });
  if (o.reasoning === "forced-open") return grammar(seq(thought, answer));
  const lead = r.lead === undefined ? seq() : optional(literal(r.lead));
  rules.answer = answer;
  return grammar(alt(ref("answer"), seq(lead, marker(r.open), thought, ref("answer"))));
}

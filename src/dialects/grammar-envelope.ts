// The grammar of an answer that is one JSON object holding the calls or the text (the generic
// dialect, src/dialects/generic.ts): {"tool_calls": [call, …]} or {"tool_call": call}, and under
// toolChoice auto {"response": "…"} or text that does not open with "{"; JSON whitespace between
// tokens and around the object, nothing after it (as llama.cpp's generic grammar, which ends with
// the object: a model stops once the object closes). With parallel calls off "tool_calls" holds
// exactly one call and the answer ends at the object's "}". The parser keeps text after the object as content (nothing is lost), but for
// the calls of another object there (invalid entries); an answer with such text is not one the
// mask lets a model write.
import { alt, anyText, declaredCall, filler, literal, ref, seq, star } from "../grammar/builders.js";
import type { Grammar, GrammarNode } from "../grammar/ir.js";
import { jsonCallObjects, schemaValue } from "./call-grammar.js";
import { answerCall, jsonWs } from "./grammar-forms.js";
import { responseFormatNode } from "./grammar-content.js";
import type { ResolvedRequest } from "./options.js";
import type { EnvelopeCallFormat, JsonCallFormat } from "./spec.js";

/** A call inside the envelope: `{"name": …, "arguments": {…}}`, as a JSON dialect's call object. */
export function envelopeCallFormat(f: EnvelopeCallFormat): JsonCallFormat {
  return { kind: "json", open: [], nameKey: f.nameKey, argsKey: f.argsKey, close: [] };
}

export function buildEnvelopeGrammar(o: ResolvedRequest): Grammar {
  const f = o.spec.call as EnvelopeCallFormat;
  if (o.tools.length === 0) return { root: o.outputFormat ? responseFormatNode(o.outputFormat) : anyText() };
  const key = (k: string): GrammarNode => seq(literal(JSON.stringify(k)), jsonWs, literal(":"), jsonWs);
  const cf = envelopeCallFormat(f);
  const rules: Record<string, GrammarNode> = {
    "tool-call": declaredCall(jsonCallObjects(cf, o.tools, o.maxValueLength)),
  };
  const call = ref("tool-call");
  const more = o.parallelToolCalls ? star(seq(jsonWs, literal(","), jsonWs, call)) : seq();
  // Under a choice that requires a call, what stands before the first one is filler: the token
  // budget takes it only where the call still fits after it.
  const lead = (node: GrammarNode): GrammarNode => (o.callRequired ? filler(node) : node);
  const calls = alt(
    seq(lead(seq(key(f.callsKey), literal("["), jsonWs)), call, more, jsonWs, literal("]")),
    seq(lead(key(f.callKey)), call),
  );
  const response = seq(key(f.responseKey), schemaValue({ type: "string" }, undefined, "json", f.responseKey));
  // Under auto text that does not open with "{" is an answer too (content, as the parser reads it).
  // After the object only JSON whitespace, then the end: a model is not let ramble on past it.
  // With parallel calls off the answer ends at the object's "}" (as it does in every dialect).
  const after = o.parallelToolCalls ? jsonWs : seq();
  if (o.callRequired)
    return { root: seq(filler(seq(jsonWs, literal("{"), jsonWs)), calls, jsonWs, literal("}"), after), rules };
  return { root: answerCall(o, seq(literal("{"), jsonWs, alt(calls, response), jsonWs, literal("}")), after), rules };
}

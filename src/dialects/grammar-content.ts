// The grammar of an answer's content under a response format (response-format.ts).
import { declaredCall, jsonSchema, seq } from "../grammar/builders.js";
import type { GrammarNode } from "../grammar/ir.js";
import { jsonWs } from "./grammar-forms.js";
import type { ResolvedResponseFormat } from "./response-format.js";

/**
 * The content the format allows: JSON whitespace, the value, JSON whitespace. The value is lowered
 * as a tool's arguments are (src/grammar/json-schema/), its errors naming paths from `f.path`; to
 * the token budget it is a declared call (SeqNode.call): it is not opened where it cannot close in
 * the tokens left, and once open it is never shortened to fit.
 */
export function responseFormatNode(f: ResolvedResponseFormat): GrammarNode {
  return seq(jsonWs, declaredCall(jsonSchema(f.schema, { whitespace: "any" }, f.path)), jsonWs);
}

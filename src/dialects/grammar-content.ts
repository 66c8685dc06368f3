// The grammar of an answer's content under a response format (response-format.ts).
import { declaredCall, jsonSchema, seq } from "../grammar/builders.js";
import type { GrammarNode } from "../grammar/ir.js";
import { jsonWs } from "./grammar-forms.js";
import type { ResolvedResponseFormat } from "./response-format.js";

/**
 * The content the format allows: JSON whitespace, the value, JSON whitespace. The value is lowered
 * as a tool's arguments are (src/grammar/json-schema/), its errors naming paths from `f.path`.
 * `after` false (the mask, src/dialects/grammar.ts): no whitespace after the value, so the answer
 * ends as the value closes — whitespace there is text the budget never leaves out, and it could
 * take the last tokens from the end (a complete value then cut, "length"). The parser's verdict
 * (src/parser/structured.ts) still takes whitespace after it (an upstream's or an unmasked answer).
 *
 * With `budget` (the answer holds no calls) the value is a declared call to the token budget
 * (SeqNode.call): once open it is never shortened to fit, and a token that leads into it from
 * outside (a thought's close) is held back where it cannot close in the tokens left. Where the
 * answer starts (or a thought ends) the value is entered without a byte; marked budgetAtEntry, the
 * budget acts there too, so leading JSON whitespace is not taken where the value could no longer
 * close after it. Beside calls it is left unmarked, so that the answer's start stays outside every
 * call and the budget keeps a call from opening there that cannot close (docs/reliability.md).
 */
export function responseFormatNode(f: ResolvedResponseFormat, budget = true, after = true): GrammarNode {
  const value = jsonSchema(f.schema, { whitespace: "any" }, f.path);
  return seq(jsonWs, budget ? declaredCall(value, true, true) : value, ...(after ? [jsonWs] : []));
}

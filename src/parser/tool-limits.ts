// A parser refuses tools (or a response format) past a schema limit, or with a schema that cannot
// be lowered or matches no value, when it is made, with the error that compiling the options' grammar gives
// (GrammarLimitError, UnsupportedSchemaError, InvalidSchemaError, EmptyGrammarError): the tools are
// wrong whatever the model writes, so the answer must not depend on whether a call to such a tool
// appears in the output. The check is done once per resolved request and remembered on it.
import { buildToolGrammar } from "../dialects/grammar.js";
import { resolveRequest, type DialectOptions, type ResolvedRequest } from "../dialects/options.js";
import { EmptyGrammarError, GrammarLimitError } from "../grammar/errors.js";
import type { Grammar } from "../grammar/ir.js";
import { InvalidSchemaError, UnsupportedSchemaError, lowerJsonSchemas } from "../grammar/json-schema/index.js";
import { assertAcceptsSomething } from "../grammar/productive.js";

/** Records that this request's grammar was lowered without passing a limit (the engine calls it after compiling it). */
export function markToolLimitsChecked(r: ResolvedRequest): void {
  r.checked.toolLimits = true;
}

/** The errors lowering a tool grammar throws for what the tools' schemas ask. */
const SCHEMA_ERRORS = [GrammarLimitError, UnsupportedSchemaError, InvalidSchemaError, EmptyGrammarError];

/**
 * Throws the error that lowering the request's grammar (`grammar`, when already built) throws for
 * its schemas (a limit passed, a keyword not supported, a schema that matches no value, a grammar
 * that accepts nothing), if any; other errors are left to the parser's own checks. Lowering is
 * linear in the schemas and done once per resolved request (plain options are resolved first: checked
 * each time).
 */
export function checkToolLimits(o: DialectOptions | ResolvedRequest, grammar?: Grammar): void {
  const r = resolveRequest(o);
  // No tools and no response format: no schema to lower.
  if ((r.declared.length === 0 && !r.outputFormat) || r.checked.toolLimits) return;
  try {
    assertAcceptsSomething(lowerJsonSchemas(grammar ?? buildToolGrammar(r)));
  } catch (e) {
    if (SCHEMA_ERRORS.some((c) => e instanceof c)) throw e;
    return;
  }
  markToolLimitsChecked(r);
}

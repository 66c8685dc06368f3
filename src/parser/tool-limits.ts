// A parser refuses tools past a schema limit, or with a schema that cannot be lowered or matches
// no value, when it is made, with the error that compiling the options' grammar gives
// (GrammarLimitError, UnsupportedSchemaError, InvalidSchemaError, EmptyGrammarError): the tools are
// wrong whatever the model writes, so the answer must not depend on whether a call to such a tool
// appears in the output.
import { buildToolGrammar } from "../dialects/grammar.js";
import type { DialectOptions } from "../dialects/options.js";
import { EmptyGrammarError, GrammarLimitError } from "../grammar/errors.js";
import { InvalidSchemaError, UnsupportedSchemaError, lowerJsonSchemas } from "../grammar/json-schema/index.js";
import { assertAcceptsSomething } from "../grammar/productive.js";

/** Options already checked: tools array → dialect (name or definition) → the other options. */
const checked = new WeakMap<object, Map<unknown, Set<string>>>();

const restKey = (o: DialectOptions) =>
  JSON.stringify([
    o.toolChoice ?? null,
    o.parallelToolCalls ?? null,
    o.reasoning ?? null,
    o.maxValueLength ?? null,
    o.strictFormats ?? null,
  ]);

function seen(o: DialectOptions): boolean {
  return Array.isArray(o.tools) && checked.get(o.tools)?.get(o.dialect)?.has(restKey(o)) === true;
}

/** Records that these options' grammar was lowered without passing a limit (the engine calls it after compiling it). */
export function markToolLimitsChecked(o: DialectOptions): void {
  if (!Array.isArray(o.tools)) return;
  const byDialect = checked.get(o.tools) ?? new Map<unknown, Set<string>>();
  const keys = byDialect.get(o.dialect) ?? new Set<string>();
  keys.add(restKey(o));
  byDialect.set(o.dialect, keys);
  checked.set(o.tools, byDialect);
}

/** The errors lowering a tool grammar throws for what the tools' schemas ask. */
const SCHEMA_ERRORS = [GrammarLimitError, UnsupportedSchemaError, InvalidSchemaError, EmptyGrammarError];

/**
 * Throws the error that lowering the options' grammar throws for its schemas (a limit passed, a
 * keyword not supported, a schema that matches no value, a grammar that accepts nothing), if any;
 * other errors are left to the parser's own checks. Lowering is linear in the schemas and done
 * once per tools array and options.
 */
export function checkToolLimits(o: DialectOptions): void {
  if (!Array.isArray(o.tools) || o.tools.length === 0 || seen(o)) return;
  try {
    assertAcceptsSomething(lowerJsonSchemas(buildToolGrammar(o)));
  } catch (e) {
    if (SCHEMA_ERRORS.some((c) => e instanceof c)) throw e;
    return;
  }
  markToolLimitsChecked(o);
}

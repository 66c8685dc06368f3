// A parser refuses tools past a schema limit when it is made, with the GrammarLimitError that
// compiling the options' grammar gives: the tools are wrong whatever the model writes, so the
// answer must not depend on whether a call to an over-limit tool appears in the output.
import { buildToolGrammar } from "../dialects/grammar.js";
import type { DialectOptions } from "../dialects/options.js";
import { GrammarLimitError } from "../grammar/errors.js";
import { lowerJsonSchemas } from "../grammar/json-schema/index.js";

/** Options already checked: tools array → dialect (name or definition) → the other options. */
const checked = new WeakMap<object, Map<unknown, Set<string>>>();

const restKey = (o: DialectOptions) =>
  JSON.stringify([o.toolChoice ?? null, o.parallelToolCalls ?? null, o.reasoning ?? null, o.maxValueLength ?? null]);

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

/**
 * Throws the GrammarLimitError that lowering the options' grammar throws, if any; other errors
 * are left to the parser's own checks. Lowering is linear in the schemas and done once per tools
 * array and options.
 */
export function checkToolLimits(o: DialectOptions): void {
  if (!Array.isArray(o.tools) || o.tools.length === 0 || seen(o)) return;
  try {
    lowerJsonSchemas(buildToolGrammar(o));
  } catch (e) {
    if (e instanceof GrammarLimitError) throw e;
    return;
  }
  markToolLimitsChecked(o);
}

// Where toolmask's verdict on a keyword-matrix value (scripts/lib/keyword-matrix.mjs) differs from
// ajv's, by `case / value`: each with its reason. test/no-model/keyword-matrix.test.ts holds the
// parser and the grammar to exactly these in every dialect that can write the value: a new
// difference fails, and so does a listed one that agrees again (then remove it here).
import { REASONS } from "./json-schema-suite-expected.mjs";

const SPELLING = {
  integerSpelling:
    'an integer is written without a fraction or exponent: 1.0 and 1e2 are refused where "type": "integer" (ajv reads them as 1 and 100)',
  constSpelling:
    "a number in enum/const is written as JSON.stringify writes it: 1.50 and 15e-1 are refused where the value is 1.5",
  boundedSpelling: "a number with bounds is written as a plain decimal: 0.2e1 is refused where a bound applies",
};

/** Reasons by key: the suite's documented deviations and the spellings a grammar fixes. */
export const DIFFERENCE_REASONS = { ...REASONS, ...SPELLING };

const known = (reason, names) => Object.fromEntries(names.map((n) => [n, reason]));

/** `case / value` → reason key (the value's label as the matrix names it). */
export const KNOWN_DIFFERENCES = {
  ...known("impliedType", [
    "suite: additionalItems / additionalItems as false without items / ignores non-arrays",
    "suite: items / a schema given for items / ignores non-arrays",
    "suite: maxItems / maxItems validation / ignores non-arrays",
    "suite: maxLength / maxLength validation / ignores non-strings",
    "suite: maximum / maximum validation / ignores non-numbers",
    "suite: minItems / minItems validation / ignores non-arrays",
    "suite: minLength / minLength validation / ignores non-strings",
    "suite: minimum / minimum validation / ignores non-numbers",
    "suite: pattern / pattern validation / ignores non-strings",
    "suite: properties / object properties validation / ignores non-objects",
    "suite: ref / root pointer ref / match",
    "suite: ref / root pointer ref / recursive match",
    "own: format date-time, untyped / 1",
  ]),
  ...known("closedObjects", [
    "suite: additionalProperties / additionalProperties are allowed by default / additional properties are allowed",
    "suite: properties / object properties validation / doesn't invalidate other properties",
    'own: object with a string property / {"a":"xy","b":1}',
  ]),
  ...known("oneOfAsAnyOf", [
    "suite: oneOf / oneOf / both oneOf valid",
    "suite: oneOf / oneOf with base schema / both oneOf valid",
  ]),
  ...known("integerSpelling", [
    "suite: optional/zeroTerminatedFloats / some languages do not distinguish between different types of numeric value / a float is not an integer even without fractional part",
    "own: integer spellings / 1 as 1.0",
    "own: integer spellings / 100 as 1e2",
  ]),
  ...known("constSpelling", ["own: const number / 1.5 as 1.50", "own: const number / 1.5 as 15e-1"]),
  ...known("boundedSpelling", ["own: exclusiveMinimum and maximum, decimals / 2 as 0.2e1"]),
};

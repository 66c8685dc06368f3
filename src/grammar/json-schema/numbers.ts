// JSON numbers whose value is a finite double: every spelling the grammar admits parses to a
// finite number, and every finite double's usual spellings (JavaScript's String and JSON.stringify,
// Python's repr, C's %g and %e, Java's toString) are admitted. The exact language, unsigned
// (a leading "-" is separate), with D a digit:
//   - plain: an integer part of at most 308 digits (no leading zeros), then any fraction
//     (every such number is below 10^308);
//   - one integer digit with an exponent: the exponent is -9999..307 (so below 10^308), or 308
//     when the mantissa is 1 followed by fraction digits at most .7976931348623158, i.e. up to
//     1.7976931348623158e308, which parses to the largest double;
//   - 2 to 20 integer digits with an exponent: the exponent is -9999..288 (below 10^308 again).
// Exponents have 1 to 4 digits, leading zeros allowed (1e+05, 1e-0005); so 1e309, 1.8e308,
// 12e300 and 1e10000 are refused, and values below the smallest double may still be written
// (they parse to 0: an underflow changes no sign and gives no Infinity).
import { literal, optional, repeat } from "../builders.js";
import { choice, cls, decDigit, digitRun, fixedRange, sequence, type Node } from "./nodes.js";

/** Most digits of a number's integer part: integers are below 10^308. */
export const INTEGER_DIGITS = 308;
/** The largest integer the grammar writes, 10^308 - 1 (integers above it have no spelling). */
export const INTEGER_MAX = 10n ** BigInt(INTEGER_DIGITS) - 1n;

const EXP_DIGITS = 4;
const MANTISSA_DIGITS = 20;
/** Fraction digits of 1.x at exponent 308 that still parse to a finite double (the largest is 1.7976931348623157e308). */
const TOP_FRACTION = "7976931348623158";

const D = cls([[0x30, 0x39]]);
const NZ = cls([[0x31, 0x39]]);
const FRAC = sequence(literal("."), repeat(D, 1, null));
const E = cls([
  [0x45, 0x45],
  [0x65, 0x65],
]);

/** [eE], then a negative exponent, or a non-negative one up to `max`; 1–4 digits. */
function exponent(max: number): Node {
  const widths: Node[] = [];
  for (let w = 1; w <= EXP_DIGITS; w++)
    widths.push(fixedRange(0n, BigInt(Math.min(max, 10 ** w - 1)), w, 10, decDigit));
  return sequence(
    E,
    choice([sequence(literal("-"), repeat(D, 1, EXP_DIGITS)), sequence(optional(literal("+")), choice(widths))]),
  );
}

/** Digit strings whose value as a fraction 0.d… is at most 0.`c` (at least one digit). */
function fractionAtMost(c: string): Node {
  const parts: Node[] = [];
  for (let i = 0; i < c.length; i++) {
    const d = c.charCodeAt(i) - 0x30;
    if (d > 0) parts.push(sequence(literal(c.slice(0, i)), decDigit(0, d - 1), repeat(D, 0, null)));
  }
  parts.push(sequence(literal(c), repeat(literal("0"), 0, null)));
  return choice(parts)!;
}

const EXP_307 = exponent(307);
const ZERO_MANTISSA = sequence(literal("0"), optional(sequence(literal("."), repeat(literal("0"), 1, null))));
const SMALL_MANTISSA = sequence(literal("0."), repeat(literal("0"), 0, null), NZ, repeat(D, 0, null));

/** Unsigned spellings of zero: 0, 0.000, 0e5, 0.0E-3, … */
export const MAG_ZERO: Node = sequence(ZERO_MANTISSA, optional(EXP_307));

/** Unsigned spellings of finite non-zero values. */
export const MAG_NONZERO: Node = choice([
  sequence(SMALL_MANTISSA, optional(EXP_307)),
  sequence(NZ, digitRun(0, INTEGER_DIGITS - 1), optional(FRAC)),
  sequence(NZ, optional(FRAC), EXP_307),
  sequence(
    literal("1"),
    optional(sequence(literal("."), fractionAtMost(TOP_FRACTION))),
    E,
    optional(literal("+")),
    optional(literal("0")),
    literal("308"),
  ),
  sequence(NZ, repeat(D, 1, MANTISSA_DIGITS - 1), optional(FRAC), exponent(308 - MANTISSA_DIGITS)),
])!;

/** Unsigned spellings of finite values. */
export const MAG_ANY: Node = choice([MAG_ZERO, MAG_NONZERO])!;

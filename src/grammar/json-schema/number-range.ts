// Numbers between bounds: the plain decimal spellings (no exponent) whose value lies within a
// "number" schema's minimum / maximum / exclusiveMinimum / exclusiveMaximum. Comparison is exact
// between decimals: an instance is its value as written, a bound the decimal JSON.stringify
// writes for the schema's double (`1.1` is 1.1, not the double's 1.100000000000000088…).
// The integer part has at most INTEGER_DIGITS digits, as for every number (json-numbers.ts).
import { literal, repeat } from "../builders.js";
import { choice, cls, EMPTY_STRING, nonNegIntRange, NOTHING, sequence, type Lowered, type Node } from "./nodes.js";
import { INTEGER_MAX } from "./numbers.js";

/** A decimal: sign, integer part and fraction digits (no trailing zeros). */
export interface Decimal {
  neg: boolean;
  int: bigint;
  frac: string;
}
/** A bound on a magnitude (a non-negative decimal), `strict` for an exclusive one. */
interface MagBound {
  int: bigint;
  frac: string;
  strict: boolean;
}
/** A bound on a signed value. */
export interface NumberBound {
  value: Decimal;
  strict: boolean;
}

const D = cls([[0x30, 0x39]]);
const NZ = cls([[0x31, 0x39]]);
const digit = (a: number, b: number): Node => (a === b ? literal(String(a)) : cls([[0x30 + a, 0x30 + b]]));

/** The decimal JSON.stringify writes for a finite double (`1e+21` → 10^21, `5e-324` → 0.000…5). */
export function decimalOf(x: number): Decimal {
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:e([+-][0-9]+))?$/.exec(String(x));
  if (!m) throw new RangeError(`not a finite number: ${x}`);
  const digits = `${m[2]}${m[3] ?? ""}`;
  const point = m[2]!.length + Number(m[4] ?? 0); // digits before the decimal point
  const intDigits = point <= 0 ? "0" : digits.slice(0, point).padEnd(point, "0");
  const frac = (point < 0 ? "0".repeat(-point) + digits : digits.slice(Math.max(point, 0))).replace(/0+$/, "");
  const int = BigInt(intDigits);
  return { neg: m[1] === "-" && (int !== 0n || frac !== ""), int, frac };
}

const isZero = (d: Decimal) => d.int === 0n && d.frac === "";

/** -1, 0 or 1 as a < b, a = b, a > b. */
export function compareDecimals(a: Decimal, b: Decimal): number {
  if (a.neg !== b.neg) return a.neg ? -1 : 1;
  const mag =
    a.int !== b.int
      ? a.int < b.int
        ? -1
        : 1
      : a.frac === b.frac
        ? 0
        : a.frac.padEnd(b.frac.length, "0") < b.frac.padEnd(a.frac.length, "0")
          ? -1
          : 1;
  return a.neg ? -mag : mag;
}

/**
 * Plain spellings (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`) of the values v with lo ≤ v ≤ hi (`<` for a
 * strict bound; null = unbounded); `-0` counts as 0. Null when no spelling fits.
 */
export function numberRange(lo: NumberBound | null, hi: NumberBound | null): Lowered {
  // v ≥ 0, written unsigned: bounds on v itself
  const posLo: MagBound | null = lo && !lo.value.neg ? { ...lo.value, strict: lo.strict } : null;
  const posHi: MagBound | null | "none" =
    hi === null ? null : hi.value.neg ? "none" : { ...hi.value, strict: hi.strict };
  // v = -m ≤ 0, written "-" m: lo ≤ -m ≤ hi is -hi ≤ m ≤ -lo
  const negLo: MagBound | null =
    hi && (hi.value.neg || (isZero(hi.value) && hi.strict)) ? { ...hi.value, strict: hi.strict } : null;
  const negHi: MagBound | null | "none" =
    lo === null ? null : lo.value.neg || isZero(lo.value) ? { ...lo.value, strict: lo.strict } : "none";
  const pos = posHi === "none" ? null : magnitudeRange(posLo, posHi);
  const neg = negHi === "none" ? null : magnitudeRange(negLo, negHi);
  return choice([pos, neg && sequence(literal("-"), neg)]);
}

/** Unsigned plain spellings of magnitudes m with lo ≤ m ≤ hi (strict: <). */
function magnitudeRange(lo: MagBound | null, hi: MagBound | null): Lowered {
  if (hi && hi.int > INTEGER_MAX) hi = null; // every written magnitude is below 10^308 ≤ hi
  if (lo && lo.int > INTEGER_MAX) return null;
  const loInt = lo?.int ?? 0n;
  const anyFrac = fraction(null, null);
  if (hi && hi.int === loInt) return seqOrNothing(literal(loInt.toString()), fraction(lo, hi));
  if (hi && hi.int < loInt) return null;
  const hiInt = hi ? hi.int : INTEGER_MAX + 1n;
  return choice([
    seqOrNothing(literal(loInt.toString()), fraction(lo, null)),
    seqOrNothing(nonNegIntRange(loInt + 1n, hiInt - 1n), anyFrac),
    hi ? seqOrNothing(literal(hi.int.toString()), fraction(null, hi)) : null,
  ]);
}

/** Both in sequence; NOTHING when either is. */
const seqOrNothing = (a: Lowered, b: Lowered): Lowered => (a && b ? sequence(a, b) : NOTHING);

/**
 * The fraction after an integer part, "" or "." digits, whose value f (0 ≤ f < 1) satisfies
 * lo.frac ≤ f ≤ hi.frac (strict: <) for the bounds given; null when none does.
 */
function fraction(lo: MagBound | null, hi: MagBound | null): Lowered {
  const l = lo?.frac ?? "",
    h = hi?.frac ?? "";
  const loStrict = lo?.strict ?? false,
    hiStrict = hi?.strict ?? false;
  const at = (s: string, i: number) => (i < s.length ? s.charCodeAt(i) - 0x30 : 0);
  /** Digits from position i on, `first` when one is still needed; lt / ht: equal to lo / hi so far. */
  const tail = (i: number, lt: boolean, ht: boolean, first: boolean): Lowered => {
    const some = repeat(D, first ? 1 : 0, null),
      zeros = repeat(literal("0"), first ? 1 : 0, null);
    const loDone = lt && i >= l.length,
      hiDone = ht && i >= h.length;
    if (!lt && !ht) return some;
    // equal to a bound so far and past its digits: what follows is ≥ it, = it only when all zeros
    if (loDone && !ht) return loStrict ? sequence(repeat(literal("0"), 0, null), NZ, repeat(D, 0, null)) : some;
    if (hiDone && !lt) return hiStrict ? null : zeros;
    if (loDone && hiDone) return loStrict || hiStrict ? null : zeros;
    const a = lt ? at(l, i) : 0,
      b = ht ? at(h, i) : 9;
    if (a > b) return null;
    // ending here: the value is the prefix; below lo while lo has digits left, below hi while hi has
    const endOk = !first && (!lt || (i >= l.length && !loStrict)) && (!ht || i < h.length || !hiStrict);
    const parts: Array<Lowered> = [endOk ? EMPTY_STRING : NOTHING];
    if (a === b) parts.push(seqOrNothing(literal(String(a)), tail(i + 1, lt, ht, false)));
    else {
      parts.push(lt ? seqOrNothing(literal(String(a)), tail(i + 1, true, false, false)) : null);
      const from = lt ? a + 1 : a,
        to = ht ? b - 1 : b;
      if (from <= to) parts.push(sequence(digit(from, to), repeat(D, 0, null)));
      parts.push(ht ? seqOrNothing(literal(String(b)), tail(i + 1, false, true, false)) : null);
    }
    return choice(parts);
  };
  // no fraction written: f = 0
  const noneOk = l === "" && !loStrict && (!hi || h !== "" || !hiStrict);
  return choice([noneOk ? literal("") : null, seqOrNothing(literal("."), tail(0, lo !== null, hi !== null, true))]);
}

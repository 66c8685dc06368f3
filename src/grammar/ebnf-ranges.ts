// Sets of code points as sorted, merged [lo, hi] ranges: the class algebra the EBNF export uses.
import type { Ranges } from "./ebnf-text.js";
import { MAX_CP, mergeRanges } from "./json-ir.js";

export { MAX_CP };
/** Sorted, overlapping and adjacent ranges joined (the JSON lowering's own merge). */
export const merge = mergeRanges;

export function complement(set: Ranges, max: number): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of merge(set)) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= max) out.push([next, max]);
  return out;
}

export function intersect(a: Ranges, b: Ranges): Ranges {
  const out: Ranges = [];
  for (const [lo, hi] of a) for (const [lo2, hi2] of b) {
    const l = Math.max(lo, lo2), h = Math.min(hi, hi2);
    if (l <= h) out.push([l, h]);
  }
  return merge(out);
}

export function subtract(a: Ranges, b: Ranges): Ranges {
  return intersect(a, complement(b, Math.max(MAX_CP, ...a.map((r) => r[1]))));
}

export function sameRanges(a: Ranges, b: Ranges): boolean {
  return a.length === b.length && a.every((r, i) => r[0] === b[i]![0] && r[1] === b[i]![1]);
}

// Sets of code points as sorted, merged [lo, hi] ranges: the class algebra the EBNF export uses.
import type { Ranges } from "./ebnf-text.js";

/** The largest code point. */
export const MAX_CP = 0x10ffff;


export function merge(ranges: Ranges): Ranges {
  const sorted = ranges.map((r): [number, number] => [r[0], r[1]]).sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

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

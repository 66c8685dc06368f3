// Sets of code points (or bytes) as sorted, merged, inclusive [lo, hi] ranges: the one range
// algebra of the JSON-schema lowering, the pattern parser and the EBNF export.

export type Ranges = Array<[number, number]>;

export const MAX_CP = 0x10ffff;
/** Code points a JSON string can hold in this grammar (no lone surrogates). */
export const ENCODABLE: Ranges = [
  [0, 0xd7ff],
  [0xe000, MAX_CP],
];

/** Sorted; overlapping and adjacent ranges joined. The input is not changed; the output is new. */
export function mergeRanges(ranges: Ranges): Ranges {
  // Already sorted (most sets are: the output of this, complement and intersect): no sort.
  let sorted = true;
  for (let i = 1; i < ranges.length && sorted; i++) sorted = ranges[i - 1]![0] <= ranges[i]![0];
  const input = sorted ? ranges : [...ranges].sort((x, y) => x[0] - y[0]);
  const out: Ranges = [];
  let last: [number, number] | undefined;
  for (const [a, b] of input) {
    if (last && a <= last[1] + 1) {
      if (b > last[1]) last[1] = b;
    } else out.push((last = [a, b]));
  }
  return out;
}

/** Everything in 0..max that `set` does not hold. */
export function complement(set: Ranges, max = MAX_CP): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of mergeRanges(set)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= max) out.push([next, max]);
  return out;
}

export function intersect(a: Ranges, b: Ranges): Ranges {
  // Both merged, one pass over the two sorted lists; the pieces are disjoint and sorted, and
  // mergeRanges joins the adjacent ones.
  const x = mergeRanges(a),
    y = mergeRanges(b);
  const out: Ranges = [];
  let i = 0,
    j = 0;
  while (i < x.length && j < y.length) {
    const lo = Math.max(x[i]![0], y[j]![0]),
      hi = Math.min(x[i]![1], y[j]![1]);
    if (lo <= hi) out.push([lo, hi]);
    if (x[i]![1] < y[j]![1]) i++;
    else j++;
  }
  return mergeRanges(out);
}

/** `a` without what `b` holds. */
export function subtract(a: Ranges, b: Ranges): Ranges {
  return intersect(a, complement(b, Math.max(MAX_CP, ...a.map((r) => r[1]))));
}

/** Ranges minus the given points. */
export function subtractPoints(ranges: Ranges, points: Iterable<number>): Ranges {
  const pts = [...new Set(points)].sort((a, b) => a - b);
  const out: Ranges = [];
  for (const [a, b] of ranges) {
    let start = a;
    for (const p of pts) {
      if (p < start || p > b) continue;
      if (p > start) out.push([start, p - 1]);
      start = p + 1;
    }
    if (start <= b) out.push([start, b]);
  }
  return out;
}

export const inRanges = (r: Ranges, cp: number) => r.some(([a, b]) => cp >= a && cp <= b);

export function sameRanges(a: Ranges, b: Ranges): boolean {
  return a.length === b.length && a.every((r, i) => r[0] === b[i]![0] && r[1] === b[i]![1]);
}

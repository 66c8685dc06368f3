// The range algebra (src/grammar/code-ranges.ts) against sets of points, on random range lists
// over 0..63: merged output is sorted, disjoint, non-adjacent and holds exactly the points.
import { describe, expect, it } from "vitest";
import { intersect, mergeRanges, type Ranges } from "../../src/grammar/code-ranges.js";

function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}
const randomRanges = (next: (n: number) => number): Ranges =>
  Array.from({ length: next(6) }, () => {
    const a = next(64);
    return [a, a + next(8)] as [number, number];
  });
const points = (r: Ranges) => {
  const s = new Set<number>();
  for (const [a, b] of r) for (let x = a; x <= b; x++) s.add(x);
  return [...s].sort((x, y) => x - y);
};
const isMerged = (r: Ranges) => r.every(([a, b], i) => a <= b && (i === 0 || a > r[i - 1]![1] + 1));

describe("code ranges", () => {
  it("mergeRanges and intersect hold the same points as the sets, merged, inputs unchanged", () => {
    const next = rng(7);
    for (let i = 0; i < 5000; i++) {
      const a = randomRanges(next),
        b = randomRanges(next);
      const [a0, b0] = [JSON.stringify(a), JSON.stringify(b)];
      const m = mergeRanges(a);
      expect(isMerged(m)).toBe(true);
      expect(points(m)).toEqual(points(a));
      const x = intersect(a, b);
      expect(isMerged(x)).toBe(true);
      const pb = new Set(points(b));
      expect(points(x)).toEqual(points(a).filter((p) => pb.has(p)));
      expect([JSON.stringify(a), JSON.stringify(b)]).toEqual([a0, b0]);
      // a fresh array: changing the output leaves the input as it was
      if (m.length) m[0]![1] = 999;
      expect(JSON.stringify(a)).toBe(a0);
    }
  });
});

// Order statistics for timings (nearest rank: a reported p99 is a time that was measured).

export function quantile(xs: readonly number[], q: number): number | null {
  if (xs.length === 0) return null;
  const a = Float64Array.from(xs).sort();
  return a[Math.min(a.length - 1, Math.max(0, Math.ceil(q * a.length) - 1))]!;
}

export const median = (xs: readonly number[]) => quantile(xs, 0.5);
export const p99 = (xs: readonly number[]) => quantile(xs, 0.99);

export const round = (x: number | null, digits = 2): number | null =>
  x === null || !Number.isFinite(x) ? null : Math.round(x * 10 ** digits) / 10 ** digits;

// Copy-on-change over the grammar IR: a pass that rewrites some nodes returns every node it left
// alone as it is, so a grammar is copied only along the paths to what changed.

/** `xs` with `f` applied to each element: `xs` itself when `f` returned every element unchanged. */
export function mapChanged<T>(xs: readonly T[], f: (x: T, i: number) => T): T[] {
  let out: T[] | undefined;
  for (let i = 0; i < xs.length; i++) {
    const x = f(xs[i]!, i);
    if (x !== xs[i]) (out ??= xs.slice())[i] = x;
  }
  return out ?? (xs as T[]);
}

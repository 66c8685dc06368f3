/** A small, fast, seedable generator: numbers in [0, 1). */
export function rng(seed: number): () => number;

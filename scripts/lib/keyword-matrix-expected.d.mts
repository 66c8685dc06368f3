// Types of keyword-matrix-expected.mjs.
export const DIFFERENCE_REASONS: Record<string, string>;
export const KNOWN_DIFFERENCES: Record<string, string>;

// The allocation count the parser's growth checks rely on (test/support/allocated.ts): it sees an
// allocation of known size, and it is never below zero, also right after other work left garbage.
import { describe, expect, it } from "vitest";
import { allocatedBytes } from "../support/allocated.js";

describe("allocatedBytes", () => {
  it("counts what a function allocates, through the collections it causes", () => {
    let kept: number[][] = [];
    const n = allocatedBytes(() => {
      for (let i = 0; i < 64; i++) kept.push(new Array(16_384).fill(i)); // 64 × 16,384 × 8 bytes at least
    });
    expect(kept.length).toBe(64);
    expect(n).toBeGreaterThanOrEqual(64 * 16_384 * 8);
    kept = [];
  });

  it("is never negative when earlier work left garbage to sweep", () => {
    let garbage: Array<{ s: string; a: number[] }> = [];
    for (let r = 0; r < 30; r++) {
      for (let i = 0; i < 20_000; i++) garbage.push({ s: `x${i}`.repeat(8), a: [i, r] });
      if (garbage.length > 100_000) garbage = [];
      const n = allocatedBytes(() => {
        const small: string[] = [];
        for (let i = 0; i < 1_000; i++) small.push(`y${i}`);
      });
      expect(n).toBeGreaterThanOrEqual(0);
    }
  });
});

// matchesSomething decides a single run of one class (what merged pattern runs leave) without an
// automaton: its answers equal the automaton walk's on the same runs written so that the walk has
// to build them (a run followed by an empty sequence is not a run any more).
import { describe, expect, it } from "vitest";
import type { Rx } from "../../src/grammar/json-schema/pattern.js";
import { matchesSomething } from "../../src/grammar/json-schema/rx-automaton.js";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const CLASSES: Array<Array<[number, number]>> = [
  [[0x0a, 0x0a]],
  [
    [0x00, 0x09],
    [0x0b, 0x10ffff],
  ],
  [[0xd800, 0xdfff]], // surrogates only: no string spells one
  [[0x61, 0x7a]],
  [],
  [
    [0x20, 0x20],
    [0xd800, 0xd8ff],
  ],
];

describe("matchesSomething on one run", () => {
  it("equals the automaton walk on 400 random runs and length bounds", () => {
    const r = rng(7);
    const pick = (n: number) => Math.floor(r() * n);
    for (let i = 0; i < 400; i++) {
      const min = pick(6);
      const max = r() < 0.3 ? null : min + pick(4);
      const run: Rx = { k: "rep", item: { k: "set", r: CLASSES[pick(CLASSES.length)]! }, min, max };
      const lengths: Rx[] = [];
      if (r() < 0.6) {
        const lo = pick(6);
        lengths.push({
          k: "rep",
          item: { k: "set", r: [[0, 0x10ffff]] },
          min: lo,
          max: r() < 0.5 ? null : lo + pick(4),
        });
      }
      const walked: Rx = { k: "seq", items: [run, { k: "seq", items: [] }] };
      const label = JSON.stringify({ run, lengths });
      expect(matchesSomething([run, ...lengths]), label).toBe(matchesSomething([walked, ...lengths]));
    }
  });
});

// rx-source.ts writes an Rx (pattern.ts's expression over code points) as a pattern: on random
// expressions over a few characters (sets, sequences, alternations, bounded and unbounded
// repetitions nested in one another, the empty sequence), the RegExp of the written pattern and a
// direct matcher of the expression agree on every string of up to 6 characters, and parsePattern
// reads the pattern back.
import { describe, expect, it } from "vitest";
import { parsePattern, type Rx } from "../../src/grammar/json-schema/pattern.js";
import { rxSource } from "../../src/grammar/json-schema/rx-source.js";
import { rng } from "../../scripts/lib/rng.mjs";

const A = "a".codePointAt(0)!;
const ALPHABET = ["a", "b", "c", "-", "\n", "]"];

/** Every end position in `s` that `rx` can reach from `at`. */
function ends(rx: Rx, s: number[], at: number): Set<number> {
  switch (rx.k) {
    case "set":
      return at < s.length && rx.r.some(([lo, hi]) => s[at]! >= lo && s[at]! <= hi) ? new Set([at + 1]) : new Set();
    case "seq": {
      let from = new Set([at]);
      for (const x of rx.items) {
        const next = new Set<number>();
        for (const p of from) for (const e of ends(x, s, p)) next.add(e);
        from = next;
      }
      return from;
    }
    case "alt":
      return new Set(rx.items.flatMap((x) => [...ends(x, s, at)]));
    case "rep": {
      const out = new Set<number>();
      let frontier = new Set([at]);
      for (let n = 0; frontier.size > 0 && (rx.max === null || n <= rx.max) && n <= rx.min + s.length + 1; n++) {
        if (n >= rx.min) for (const p of frontier) out.add(p);
        frontier = new Set([...frontier].flatMap((p) => [...ends(rx.item, s, p)]));
      }
      return out;
    }
    case "and":
      throw new Error("not generated");
  }
}

function randomRx(r: () => number, depth: number): Rx {
  const pick = Math.floor(r() * (depth <= 0 ? 1 : 4));
  if (pick === 0) {
    const cps = ALPHABET.map((c) => c.codePointAt(0)!).filter(() => r() < 0.4);
    if (r() < 0.1)
      return {
        k: "set",
        r: [
          [0, A],
          [A + 2, 0x10ffff],
        ],
      }; // all but "b"
    return { k: "set", r: (cps.length ? cps : [A]).sort((x, y) => x - y).map((c) => [c, c] as [number, number]) };
  }
  const items = Array.from({ length: Math.floor(r() * 3) + (pick === 2 ? 1 : 0) }, () => randomRx(r, depth - 1));
  if (pick === 1) return { k: "seq", items };
  if (pick === 2) return { k: "alt", items };
  const min = Math.floor(r() * 3);
  return { k: "rep", item: randomRx(r, depth - 1), min, max: r() < 0.4 ? null : min + Math.floor(r() * 3) };
}

function* strings(n: number): Generator<string> {
  yield "";
  if (n === 0) return;
  for (const s of strings(n - 1)) if (s.length === n - 1) for (const c of ALPHABET) yield s + c;
}
const ALL = [...new Set(strings(4))];

describe("random expressions", () => {
  const r = rng(36);
  it.each(Array.from({ length: 200 }, (_, i) => i))("expression %i", () => {
    const rx = randomRx(r, 4);
    const src = rxSource(rx);
    expect(() => parsePattern(src, "$")).not.toThrow();
    const re = new RegExp(src, "u");
    for (const s of ALL) {
      const cps = Array.from(s, (c) => c.codePointAt(0)!);
      expect({ s, src, matches: re.test(s) }).toEqual({ s, src, matches: ends(rx, cps, 0).has(cps.length) });
    }
  });
});

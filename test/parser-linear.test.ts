// Streaming stays linear in the output and its heap bounded, in every dialect, whole and in small
// chunks: a huge value, unclosed nesting, plain text, opener floods and repeated call prefixes
// (scripts/lib/parse-stress.mjs). Time for 4x the input must stay under 8x the time (a quadratic
// parser takes ~16x; the best of a few runs, plus a 25 ms allowance, keeps a noisy machine out).
import { describe, expect, it } from "vitest";
import { dialects, getDialect, ToolCallStreamParser } from "../src/index.js";
import { STRESS_KINDS, STRESS_TOOLS, stressText } from "../scripts/lib/parse-stress.mjs";

const SMALL = 64 * 1024;
const CHUNKS = [0, 4, 16];  // 0: whole

/** Milliseconds to feed `text` in `chunk`-character pieces (best of `reps`), and the peak heap growth in bytes. */
function feed(text: string, dialect: string, chunk: number, reps: number): { ms: number; heap: number } {
  let ms = Infinity, heap = 0;
  for (let k = 0; k < reps; k++) {
    const base = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const p = new ToolCallStreamParser({ dialect, tools: STRESS_TOOLS });
    const step = chunk || text.length;
    for (let i = 0, n = 0; i < text.length; i += step) {
      p.feed(text.slice(i, i + step));
      if (++n % 1024 === 0) heap = Math.max(heap, process.memoryUsage().heapUsed - base);
    }
    p.end();
    ms = Math.min(ms, performance.now() - t0);
    heap = Math.max(heap, process.memoryUsage().heapUsed - base);
  }
  return { ms, heap };
}

describe.each(dialects)("%s", (dialect) => {
  const spec = getDialect(dialect);
  it.each(STRESS_KINDS)("%s: 4x the input takes under 8x the time, whole and in 4- and 16-character chunks; the heap stays bounded", (kind) => {
    const small = stressText(kind, spec, SMALL), large = stressText(kind, spec, 4 * SMALL);
    for (const chunk of CHUNKS) {
      feed(small, dialect, chunk, 1);  // warm-up
      const s = feed(small, dialect, chunk, 3), l = feed(large, dialect, chunk, 2);
      const at = { chunk, small: s, large: l };
      expect(l.ms, JSON.stringify(at)).toBeLessThan(8 * s.ms + 25);
      // The output held (its content) plus garbage between collections; quadratic copies take gigabytes.
      expect(l.heap, JSON.stringify(at)).toBeLessThan(96 * 2 ** 20);
    }
  }, 300_000);
});

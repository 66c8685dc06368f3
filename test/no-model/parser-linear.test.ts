// Streaming stays linear in the output and its heap bounded, in every dialect, whole and in small
// chunks: a huge value, unclosed nesting, plain text, opener floods and repeated call prefixes
// (scripts/lib/parse-stress.mjs). Work is counted as the characters the parser reads from its
// buffer (every slice, search, comparison and scan): for 4x the input it must stay under 5x, a
// count that does not depend on the machine. Time for 4x the input must stay under 8x (a quadratic
// parser takes ~16x; the best of two runs plus a 1 s allowance keeps a busy machine's pauses out: it
// catches what copies the whole buffer per feed, 32 K feeds of 128 K characters taking seconds).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialects, getDialect, ToolCallStreamParser } from "../../src/index.js";
import { JsonExtent, OPEN } from "../../src/parser/json-extent.js";
import { TextBuffer } from "../../src/parser/text.js";
import { STRESS_KINDS, STRESS_TOOLS, stressText } from "../../scripts/lib/parse-stress.mjs";
import { countReads, type ReadCounter } from "../../scripts/lib/parser-reads.mjs";

let counter: ReadCounter;
beforeAll(() => {
  counter = countReads({ TextBuffer, JsonExtent, OPEN });
});
afterAll(() => counter.restore());

const SMALL = 32 * 1024;
const CHUNKS = [0, 4, 16]; // 0: whole

/** Milliseconds to feed `text` in `chunk`-character pieces (best of `reps`), the peak heap growth in bytes, the characters read. */
function feed(text: string, dialect: string, chunk: number, reps: number): { ms: number; heap: number; reads: number } {
  let ms = Infinity,
    heap = 0;
  counter.reset();
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
  return { ms, heap, reads: counter.reads / reps };
}

describe.each(dialects)("%s", (dialect) => {
  const spec = getDialect(dialect);
  it.each(STRESS_KINDS)(
    "%s: 4x the input takes under 5x the reads and 8x the time, whole and in 4- and 16-character chunks; the heap stays bounded",
    (kind) => {
      const small = stressText(kind, spec, SMALL),
        large = stressText(kind, spec, 4 * SMALL);
      for (const chunk of CHUNKS) {
        feed(small, dialect, chunk, 1); // warm-up
        const s = feed(small, dialect, chunk, 2),
          l = feed(large, dialect, chunk, 2);
        const at = { chunk, small: s, large: l };
        expect(l.reads, JSON.stringify(at)).toBeLessThan(5 * s.reads + 4096);
        expect(l.ms, JSON.stringify(at)).toBeLessThan(8 * s.ms + 1000);
        // The output held (its content) plus garbage between collections; quadratic copies take gigabytes.
        expect(l.heap, JSON.stringify(at)).toBeLessThan(96 * 2 ** 20);
      }
    },
    300_000,
  );
});

// Streaming stays linear in the output and its heap bounded, in every dialect, whole and in small
// chunks: a huge value, unclosed nesting, plain text, opener floods and repeated call prefixes
// (scripts/lib/parse-stress.mjs). Work is counted as the characters the parser reads from its
// buffer (every slice, search, comparison and scan): for 4x the input it must stay under 5x, a
// count that does not depend on the machine. Time for 4x the input must stay under 8x (a quadratic
// parser takes ~16x; the best of two runs plus a 250 ms allowance keeps a busy machine's pauses out).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialects, getDialect, ToolCallStreamParser } from "../src/index.js";
import { JsonExtent, OPEN } from "../src/parser/json-extent.js";
import { TextBuffer } from "../src/parser/text.js";
import { STRESS_KINDS, STRESS_TOOLS, stressText } from "../scripts/lib/parse-stress.mjs";

let reads = 0;
const proto = TextBuffer.prototype;
const original = { slice: proto.slice, indexOf: proto.indexOf, startsWith: proto.startsWith, charCodeAt: proto.charCodeAt, charAt: proto.charAt };
const extentEnd = JsonExtent.prototype.end;
// A JSON extent reads its text piece by piece: counted as the characters it got past.
const seen = new WeakMap<JsonExtent, { start: number; upTo: number }>();
beforeAll(() => {
  JsonExtent.prototype.end = function (text, start) {
    const e = extentEnd.call(this, text, start);
    const was = seen.get(this);
    const from = was && was.start === start ? was.upTo : start;
    const upTo = e === OPEN ? text.length : e;
    reads += Math.max(0, upTo - from);
    seen.set(this, { start, upTo: Math.max(from, upTo) });
    return e;
  };
  proto.slice = function (this: TextBuffer, a: number, b?: number, end = this.length) { reads += Math.max(0, Math.min(b ?? end, end) - a); return original.slice.call(this, a, b, end); };
  proto.indexOf = function (this: TextBuffer, s: string, from: number, end = this.length) { const i = original.indexOf.call(this, s, from, end); reads += Math.max(0, (i >= 0 ? i + s.length : end) - from); return i; };
  proto.startsWith = function (this: TextBuffer, s: string, i: number, end?: number) { reads += s.length; return original.startsWith.call(this, s, i, end); };
  proto.charCodeAt = function (this: TextBuffer, i: number, end?: number) { reads++; return original.charCodeAt.call(this, i, end); };
  proto.charAt = function (this: TextBuffer, i: number, end?: number) { reads++; return original.charAt.call(this, i, end); };
});
afterAll(() => { Object.assign(proto, original); JsonExtent.prototype.end = extentEnd; });

const SMALL = 32 * 1024;
const CHUNKS = [0, 4, 16];  // 0: whole

/** Milliseconds to feed `text` in `chunk`-character pieces (best of `reps`), the peak heap growth in bytes, the characters read. */
function feed(text: string, dialect: string, chunk: number, reps: number): { ms: number; heap: number; reads: number } {
  let ms = Infinity, heap = 0;
  reads = 0;
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
  return { ms, heap, reads: reads / reps };
}

describe.each(dialects)("%s", (dialect) => {
  const spec = getDialect(dialect);
  it.each(STRESS_KINDS)("%s: 4x the input takes under 5x the reads and 8x the time, whole and in 4- and 16-character chunks; the heap stays bounded", (kind) => {
    const small = stressText(kind, spec, SMALL), large = stressText(kind, spec, 4 * SMALL);
    for (const chunk of CHUNKS) {
      feed(small, dialect, chunk, 1);  // warm-up
      const s = feed(small, dialect, chunk, 2), l = feed(large, dialect, chunk, 2);
      const at = { chunk, small: s, large: l };
      expect(l.reads, JSON.stringify(at)).toBeLessThan(5 * s.reads + 4096);
      expect(l.ms, JSON.stringify(at)).toBeLessThan(8 * s.ms + 250);
      // The output held (its content) plus garbage between collections; quadratic copies take gigabytes.
      expect(l.heap, JSON.stringify(at)).toBeLessThan(96 * 2 ** 20);
    }
  }, 300_000);
});

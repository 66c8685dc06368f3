// Streaming stays linear in the output and its heap bounded, in every dialect, whole and in small
// chunks: a huge value, unclosed nesting, plain text, opener floods and repeated call prefixes
// (scripts/lib/parse-stress.mjs). Work is counted as the characters the parser reads from its
// buffer (every slice, search, comparison and scan): for 4x the input it must stay under 5x, a
// count that does not depend on the machine. So must the bytes it allocates (v8's own account at each
// garbage collection, test/support/allocated.ts), which catches what reads do not count: a copy of
// the whole buffer per feed, 32 K feeds of 128 K characters allocating gigabytes (~16x for 4x the
// input). Neither is a time: a busy machine changes neither.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialects, getDialect, ToolCallStreamParser } from "../../src/index.js";
import { JsonExtent, OPEN } from "../../src/parser/json-extent.js";
import { JsonPrefix } from "../../src/parser/json-prefix.js";
import { PythonExtent } from "../../src/parser/python-extent.js";
import { TextBuffer } from "../../src/parser/text.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { STRESS_KINDS, STRESS_TOOLS, stressText } from "../../scripts/lib/parse-stress.mjs";
import { countReads, type ReadCounter } from "../../scripts/lib/parser-reads.mjs";
import { allocatedBytes } from "../support/allocated.js";

let counter: ReadCounter;
beforeAll(() => {
  counter = countReads({ TextBuffer, JsonExtent, OPEN, PythonExtent, JsonPrefix });
});
afterAll(() => counter.restore());

const SMALL = 32 * 1024;
/** Bytes a parser allocates whatever its input (its tables, the first events): measured, with room. */
const ALLOWANCE = 2 ** 20;
const CHUNKS = [0, 4, 16]; // 0: whole

/** Feeding `text` in `chunk`-character pieces (`reps` times): the characters read and the bytes allocated (each the least of the reps), and the peak heap growth. */
function feed(
  text: string,
  dialect: string,
  chunk: number,
  reps: number,
): { allocated: number; heap: number; reads: number } {
  let allocated = Infinity,
    reads = Infinity,
    heap = 0;
  for (let k = 0; k < reps; k++) {
    const base = process.memoryUsage().heapUsed;
    counter.reset();
    allocated = Math.min(
      allocated,
      allocatedBytes(() => {
        const p = new ToolCallStreamParser({ dialect, tools: STRESS_TOOLS });
        const step = chunk || text.length;
        for (let i = 0, n = 0; i < text.length; i += step) {
          p.feed(text.slice(i, i + step));
          if (++n % 1024 === 0) heap = Math.max(heap, process.memoryUsage().heapUsed - base);
        }
        p.end();
      }),
    );
    reads = Math.min(reads, counter.reads);
    heap = Math.max(heap, process.memoryUsage().heapUsed - base);
  }
  return { allocated, heap, reads };
}

describe.each(dialects)("%s", (dialect) => {
  const spec = getDialect(dialect);
  it.each(STRESS_KINDS)(
    "%s: 4x the input takes under 5x the reads and 5x the allocations, whole and in 4- and 16-character chunks; the heap stays bounded",
    (kind) => {
      const small = stressText(kind, spec, SMALL),
        large = stressText(kind, spec, 4 * SMALL);
      for (const chunk of CHUNKS) {
        feed(small, dialect, chunk, 1); // warm-up
        const s = feed(small, dialect, chunk, 2),
          l = feed(large, dialect, chunk, 2);
        const at = { chunk, small: s, large: l };
        expect(l.reads, JSON.stringify(at)).toBeLessThan(5 * s.reads + 4096);
        expect(l.allocated, JSON.stringify(at)).toBeLessThan(5 * s.allocated + ALLOWANCE);
        // The output held (its content) plus garbage between collections; quadratic copies take gigabytes.
        expect(l.heap, JSON.stringify(at)).toBeLessThan(96 * 2 ** 20);
      }
    },
    300_000,
  );
});

// lfm2 (fuzz seed 31, input 367,000): a Python call list left open by a run of "[", then a segment
// of calls, strings and markers repeated, each closing a bracket or two. Past the run the call ends
// (closed by "]": reported invalid, its section refused) and is read ~3 times per character where
// a cut one is read once: 4x the input must take under 5x the reads on each side of that jump.
describe("lfm2: a Python call list left open by a run of brackets, then calls and markers repeated", () => {
  const SEGMENT = `ead(path="")]<|tool_call_end|>xt'), read(path="")]<|t`;
  const text = (brackets: number, chars: number) =>
    `<|tool_call_start|>[write(path=${"[".repeat(brackets)}t='a', path='b'), r${SEGMENT.repeat(Math.ceil(chars / SEGMENT.length))}`;
  it.each([
    ["left open at both sizes", 8 * SMALL],
    ["closed by the repeats at both sizes", 100],
  ])(
    "%s: 4x the input takes under 5x the reads, whole and in 4- and 16-character chunks",
    (_, brackets) => {
      const small = text(brackets, SMALL),
        large = text(brackets, 4 * SMALL);
      for (const chunk of CHUNKS) {
        const s = feed(small, "lfm2", chunk, 1),
          l = feed(large, "lfm2", chunk, 1);
        expect(l.reads, JSON.stringify({ chunk, small: s, large: l })).toBeLessThan(5 * s.reads + 4096);
      }
    },
    60_000,
  );
});

// A call's name is decided once: the scans that follow each feed start from it. Fed a token at a
// time (a character here), a call of a 64-character tool reads as much as one of a 1-character
// tool but for the name as it arrives (each feed reads what there is of it: under 64 x 64 more
// characters) — not the name again on every feed after it (~64 more per character: 190,000 more
// for this 3,000-character value in lfm2, mistral, deepseek-v3.1 and kimi-k2 before the name was
// kept in the call's memo).
describe.each(["lfm2", "mistral", "deepseek-v3.1", "kimi-k2", "hermes", "qwen3-coder"])("%s", (dialect) => {
  it("a call's name is read once, not once per feed: 1-character chunks of a 64-character tool's call", () => {
    const spec = getDialect(dialect);
    const reads = (name: string) => {
      const v = "a".repeat(3000);
      const whole = writeOutput(spec, [writeCall(spec, name, [["path", JSON.stringify(v), v]])]);
      const text = whole.slice(0, whole.indexOf(v) + v.length - 10); // the call still open
      const parameters = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
      const tools = [{ type: "function" as const, function: { name, parameters } }];
      counter.reset();
      const p = new ToolCallStreamParser({ dialect, tools });
      for (const c of text) p.feed(c);
      return counter.reads;
    };
    const short = reads("f"),
      long = reads("f".repeat(64));
    expect(long - short, JSON.stringify({ short, long })).toBeLessThan(2 * 64 * 64);
  });
});

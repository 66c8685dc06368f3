// The measure the linear-growth checks use (scripts/lib/parser-reads.mjs: characters the stream
// parser reads from its buffer) and the fuzz's decision on it (scripts/lib/parser-fuzz.mjs
// superlinearReads). The count includes the scanners that read the buffer's pieces themselves,
// so a rescan inside them shows; a growth check reports a rescan and not an input that crosses a
// threshold once (lfm2, seed 31, input 367,000: a Python call left open by a run of "[" that the
// repeats close between 151 and 604 of them, read at ~1 character per character while cut and
// ~3 once ended, reported and its section refused — linear on both sides).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolCallStreamParser } from "../../src/index.js";
import { JsonExtent, OPEN } from "../../src/parser/json-extent.js";
import { JsonPrefix } from "../../src/parser/json-prefix.js";
import { PythonExtent } from "../../src/parser/python-extent.js";
import { TextBuffer } from "../../src/parser/text.js";
import { superlinearReads } from "../../scripts/lib/parser-fuzz.mjs";
import { countReads, type ReadCounter } from "../../scripts/lib/parser-reads.mjs";

let counter: ReadCounter;
beforeAll(() => {
  counter = countReads({ TextBuffer, JsonExtent, OPEN, PythonExtent, JsonPrefix });
});
afterAll(() => counter.restore());

const fn = (name: string) => ({
  type: "function" as const,
  function: { name, parameters: { type: "object", properties: { x: { type: "string" } } } },
});

/** Characters read feeding `text` in `chunk`-character pieces, without ending the output. */
function readsOpen(dialect: string, text: string, chunk: number): number {
  counter.reset();
  const p = new ToolCallStreamParser({ dialect, tools: [fn("f")] });
  for (let i = 0; i < text.length; i += chunk) p.feed(text.slice(i, i + chunk));
  return counter.reads;
}

describe("the count of characters read", () => {
  const N = 20_000;
  it("includes what PythonExtent reads: an lfm2 call left open by a run of brackets, fed in 64-character chunks", () => {
    const text = `<|tool_call_start|>[f(x=${"[".repeat(N)}`;
    expect(readsOpen("lfm2", text, 64)).toBeGreaterThanOrEqual(N);
  });
  it("includes what JsonPrefix reads: a hermes call object that names no tool, left open", () => {
    const text = `<tool_call>\n{"x": ${"[".repeat(N)}`;
    expect(readsOpen("hermes", text, 64)).toBeGreaterThanOrEqual(N);
  });
});

describe("superlinearReads: a rescan, not one jump between linear stretches", () => {
  const k = 1000;
  it("reports reads that grow as the square of the input", () => {
    expect(superlinearReads((n) => n * n, k)).toEqual({ 1000: 1e6, 2000: 4e6, 4000: 16e6, 8000: 64e6, 16000: 256e6 });
  });
  it("reports a rescan that begins at a threshold on the way", () => {
    for (const at of [1500, 3000])
      expect(
        superlinearReads((n) => (n < at ? 10 * n : 10 * n + (n - at) ** 2), k),
        String(at),
      ).toBeDefined();
  });
  it("lets through linear reads, and one jump in either half, past which each character may cost more", () => {
    expect(superlinearReads((n) => 3 * n + 100, k)).toBeUndefined();
    for (const at of [1500, 3000]) {
      // Cut before `at` (2 reads a character); ended past it: the call read 4 times, then content at 6.
      const reads = (n: number) => (n < at ? 2 * n : 4 * at + 6 * (n - at));
      expect(superlinearReads(reads, k), String(at)).toBeUndefined();
      expect(
        superlinearReads((n) => (n < at ? n : 30 * n), k),
        String(at),
      ).toBeUndefined();
    }
  });
});

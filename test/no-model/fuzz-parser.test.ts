// The parser's fuzz suite as a standing guard (scripts/lib/parser-fuzz.mjs, on src/): for every
// dialect, 300 mutated outputs of fixed seed 2026, each parsed whole and at random splits with no
// exception, one result and one event stream for every split, events (and generateStream's OpenAI
// deltas made of them: a call only once complete and valid) that tell the result; every
// 10th checked against the grammar, every 60th for linear growth of the characters read. Long runs:
// `npm run fuzz -- --inputs N` (scripts/bench/fuzz.mjs).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls, ToolCallStreamParser } from "../../src/index.js";
import { callTriggerOf, triggerOf } from "../../src/dialects/spec.js";
import { resolveRequest } from "../../src/dialects/options.js";
import { StreamDeltas } from "../../src/engine/stream.js";
import { JsonExtent, OPEN } from "../../src/parser/json-extent.js";
import { JsonPrefix } from "../../src/parser/json-prefix.js";
import { PythonExtent } from "../../src/parser/python-extent.js";
import { TextBuffer } from "../../src/parser/text.js";
import { grammarAcceptor, grammarAccepts } from "../../src/parser/validate.js";
import { describeFailure, fuzzDialect } from "../../scripts/lib/parser-fuzz.mjs";
import { countReads, type ReadCounter } from "../../scripts/lib/parser-reads.mjs";

const SEED = 2026;
const INPUTS = 300;
const lib = {
  ToolCallStreamParser,
  parseToolCalls,
  buildToolGrammar,
  getDialect,
  grammarAccepts,
  grammarAcceptor,
  triggerOf,
  callTriggerOf,
  StreamDeltas,
  resolveRequest,
};

let counter: ReadCounter;
beforeAll(() => {
  counter = countReads({ TextBuffer, JsonExtent, OPEN, PythonExtent, JsonPrefix });
});
afterAll(() => counter.restore());

describe.each(dialects)("%s", (dialect) => {
  it(`${INPUTS} mutated outputs: no exception, one verdict for every split, the grammar agrees, reads grow linearly`, () => {
    const r = fuzzDialect(lib, counter, dialect, {
      seed: SEED,
      count: INPUTS,
      maxSize: 20_000,
      growthEvery: 60,
      grammarEvery: 10,
    });
    expect(r.failures.map(describeFailure)).toEqual([]);
    expect(r.tried).toBe(INPUTS);
    expect(r.growth).toBe(INPUTS / 60);
  }, 120_000);
});

// Inputs long runs found, checked on every run with the grammar: [dialect, seed, index, verdicts];
// verdicts: false for runs made before the verdict classes were added (it keeps them the same inputs).
const FOUND: Array<[string, number, number, boolean]> = [
  ["qwen3-coder", 14, 820, false], // a U+2028 before the call, taken for glue under toolChoice required
  ["hermes", 14, 2870, false], // an undeclared name decided by what followed it in the same chunk
  ["hermes", 16, 325, false], // argument events: a raw lone surrogate, valid by the call's grammar, told alike for every split
  ["lfm2", 16, 1323, false], // argument events of a Python call: each value's verdict is its own value grammar's
  ["lfm2", 31, 367000, true], // growth: a run of "[" the repeats close between 151 and 604 of them (one jump, linear both sides)
  ["llama3", 33, 1700, true], // text after the one call with parallel calls off: content the parser reads, the grammar's answer ends at the call
  ["hermes", 34, 22203, true], // fenced calls: a stray fence line between calls, the call after it content, no entry owed for it
  ["glm-4.5", 35, 63140, true], // a tab after the one call with parallel calls off: nothing for the parser, past the grammar's end
];
describe("inputs long runs found", () => {
  it.each(FOUND)("%s, seed %i, input %i", (dialect, seed, index, verdicts) => {
    const r = fuzzDialect(lib, counter, dialect, {
      seed,
      from: index,
      count: 1,
      maxSize: 4000,
      growthEvery: 1,
      grammarEvery: 1,
      verdicts,
    });
    expect(r.failures.map(describeFailure)).toEqual([]);
  });
});

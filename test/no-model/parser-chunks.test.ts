// Chunk invariance: for every output of the corpus, every split in two, 1-byte feeding and
// random multi-splits give the identical result and the identical concatenated events.
// And agreement: an output the parser calls complete is one the grammar accepts, complete.
import { describe, expect, it } from "vitest";
import { getDialect, parseToolCalls, resolveRequest } from "../../src/index.js";
import { callTriggerOf, triggerOf } from "../../src/dialects/spec.js";
import { buildCorpus } from "../support/corpus.js";
import { toolGrammarAccepts } from "../support/tool-grammar.js";
import { runChunks } from "../support/stream-run.js";
import { rng } from "../support/tokenize.js";
import { FILE_TOOLS } from "../support/tools.js";

const corpus = buildCorpus(240);
// Reasoning on wherever the dialect has a thought block (Nemo and Llama 3.x have none).
const opts = (dialect: string) => ({
  dialect,
  tools: FILE_TOOLS,
  reasoning: getDialect(dialect).reasoning !== undefined,
});

describe("chunk invariance", () => {
  it(`holds for ${corpus.length} outputs: every 2-split, 1-byte feeding, 1,000 random multi-splits each`, () => {
    const r = rng(2026);
    for (const c of corpus) {
      // Resolved once for the output's ~1,300 runs (plain options are resolved by each parser).
      const o = resolveRequest(opts(c.dialect));
      const ref = runChunks(c.text, o, []);
      expect(ref.result).toEqual(parseToolCalls(c.text, opts(c.dialect)));
      const chars = Array.from({ length: c.text.length - 1 }, (_, i) => i + 1);
      const variants: number[][] = [chars]; // 1-byte (code unit) feeding
      for (const i of chars) variants.push([i]);
      for (let k = 0; k < 1000; k++) variants.push(chars.filter(() => r() < 0.15));
      for (const cuts of variants) {
        const got = runChunks(c.text, o, cuts);
        if (JSON.stringify(got) !== JSON.stringify(ref)) {
          expect({ case: c.name, cuts, ...got }).toEqual({ case: c.name, cuts, ...ref });
        }
      }
    }
  }, 300_000);
});

describe("grammar/parser agreement", () => {
  it("every output the parser calls complete is accepted by the grammar and complete", () => {
    let complete = 0;
    for (const c of corpus) {
      const r = parseToolCalls(c.text, opts(c.dialect));
      // A refused (undeclared) call's text is content, which the grammar never lets a model write.
      const spec = getDialect(c.dialect);
      const refusedText = [triggerOf(spec), callTriggerOf(spec)].some((x) => (r.content ?? "").includes(x));
      if (r.toolCalls.length === 0 || r.incomplete.length > 0 || refusedText) continue;
      complete++;
      expect(toolGrammarAccepts(opts(c.dialect), c.text), c.name).toBe(true);
    }
    expect(complete).toBeGreaterThan(20);
  });

  it("an output the grammar accepts complete has no incomplete calls", () => {
    let accepted = 0;
    for (const c of corpus) {
      if (!toolGrammarAccepts(opts(c.dialect), c.text)) continue;
      accepted++;
      expect(parseToolCalls(c.text, opts(c.dialect)).incomplete, c.name).toEqual([]);
    }
    expect(accepted).toBeGreaterThan(20);
  });
});

describe("a JSON call's head decides alike for every split (found by the fuzz suite)", () => {
  const heads = [
    '{": "ge', // a key that is no key, then what looks like a name
    '{"name": "xyz", "name": "read", "arguments": {"path": "a"}}', // an undeclared name first, a declared one repeated after
    '{"name": "re', // a declared name's beginning: a cut call
    '{"name": "rex", "arguments": {}}', // a name no tool has
    '{"arguments": {"path": "a"}, "name": "read"}', // the name after the arguments: an invalid call
  ];
  it.each(["hermes", "llama3", "mistral-nemo"])("%s", (dialect) => {
    const wrap = (h: string) =>
      dialect === "hermes" ? `<tool_call>\n${h}` : dialect === "mistral-nemo" ? `[TOOL_CALLS][${h}` : h;
    for (const head of heads) {
      const text = wrap(head);
      const ref = runChunks(text, opts(dialect), []);
      for (let i = 1; i < text.length; i++)
        expect(runChunks(text, opts(dialect), [i]), `${text} split at ${i}`).toEqual(ref);
    }
  });
});

// The departure node (src/grammar/ir.ts DepartureNode): the call whose name leaves every declared
// name, built natively from the names' trie. It masks as its expansion does (the tree of classes
// and alternatives src/grammar/departure.ts writes, the form the dialects used before), on random
// walks of both, for words of one to four UTF-8 bytes per character, shared prefixes and excluded
// ranges; in every dialect's tool grammar; its exports are its expansion's; a malformed one is
// refused with its path.
import { describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  compileGrammar,
  dialects,
  type Grammar,
  type GrammarMatcher,
  type GrammarNode,
  literal,
  seq,
  toGbnf,
  toLark,
  Vocabulary,
} from "../../src/index.js";
import { departure, expandDeparture } from "../../src/grammar/departure.js";
import { rewriteGrammar } from "../../src/grammar/export/rewrite.js";
import type { DepartureNode } from "../../src/grammar/ir.js";
import { masksAlong } from "../support/masks-along.js";
import { QWEN3_TOKENIZER } from "../support/vocabs.js";

const vocab = Vocabulary.fromTokenizerJson(QWEN3_TOKENIZER);

/** The grammar with every departure node replaced by its expansion. */
const expanded = (g: Grammar): Grammar =>
  rewriteGrammar(g, "x", (n) => (n.type === "departure" ? expandDeparture(n) : undefined));

const departures = (g: Grammar): number => JSON.stringify(g).split('"type":"departure"').length - 1;

/**
 * `g` and `g` with its departures expanded mask alike on the random walks of each, every walk from
 * `enter` (by default the grammar's start); `minSteps`: masks each side compares at least.
 */
function expectSameMasks(
  g: Grammar,
  walks: { count: number; seed: number; maxTokens: number; specialProbability?: number; endProbability?: number },
  enter: (m: GrammarMatcher) => GrammarMatcher = (m) => m,
  minSteps = walks.count,
) {
  const a = compileGrammar(g, vocab);
  const b = compileGrammar(expanded(g), vocab);
  // Walks of each grammar, masked by both: a departure the other lacks, or one it has in excess, shows.
  for (const [walker, other] of [
    [a, b],
    [b, a],
  ] as const) {
    const mine = masksAlong(walker, walks, walker, enter);
    const theirs = masksAlong(other, walks, walker, enter);
    expect(mine.length).toBeGreaterThan(minSteps);
    expect(theirs.length).toBe(mine.length);
    mine.forEach((m, i) => expect(m.equals(theirs[i]!), `mask ${i}`).toBe(true));
  }
  a.dispose();
  b.dispose();
}

const around = (d: DepartureNode): Grammar => ({ root: seq(literal("<"), d, literal(">")) });

describe("the departure node", () => {
  it.each([
    [
      "names with shared prefixes and a closing quote",
      ['Read"', 'ReadMany"', 'Write"', 'WebFetch"', 'W"'],
      ["\\", [0, 0x1f]],
    ],
    ["words of two-, three- and four-byte characters", ["héllo", "hé", "日本語", "日本", "😀x", "😀"], []],
    [
      "excluded ranges above ASCII",
      ["aé", "b"],
      [[0xe0, 0xff] as [number, number], [0x4e00, 0x9fff] as [number, number]],
    ],
    ["one word of one character", ["x"], []],
  ] as const)("masks as its expansion: %s", (_, words, outside) => {
    for (const onward of [false, true]) {
      const d = departure([...words], [...outside] as Array<[number, number] | string>, onward);
      if (onward && words.every((w) => Array.from(w).length === 1)) continue; // no first character goes on
      expectSameMasks(around(d), { count: 40, seed: 7, maxTokens: 12 });
    }
  });

  it("many words at one position: 20,000 one-character words, each a whole word, every other character a way out", () => {
    const words = Array.from({ length: 20000 }, (_, i) => String.fromCodePoint(0x4e00 + i));
    const g = compileGrammar(around(departure(words, [])), vocab);
    expect(g.createMatcher().acceptString("<a>")).toBe(true);
    const x = g.createMatcher();
    expect(x.acceptString("<\u4e00>")).toBe(false); // a whole word is no departure
    g.dispose();
  });

  it("onward: the first character continues a word", () => {
    const g = compileGrammar(around(departure(['Read"', 'Write"'], ['"'], true)), vocab);
    expect(g.createMatcher().acceptString("<Rx>")).toBe(true);
    const x = g.createMatcher();
    expect(x.acceptString("<x>") && x.isComplete()).toBe(false);
    g.dispose();
  });

  it("a whole word is not a departure, nor anything past it; a word's proper prefix and one other character is", () => {
    const g = compileGrammar(around(departure(['Read"', 'ReadMany"', 'Write"'], ['"'])), vocab);
    const m = () => g.createMatcher();
    for (const ok of ["<Rx>", "<Reax>", "<x>", "<Wro>", "<ReadMx>"]) expect(m().acceptString(ok), ok).toBe(true);
    for (const no of ['<Read">', '<Read"x>', '<">', "<Read>", "<>", "<Wrote>", '<ReadMany">']) {
      const x = m();
      expect(x.acceptString(no) && x.isComplete(), no).toBe(false);
    }
    g.dispose();
  });

  it.each(Object.entries(NAME_AT))(
    "%s: the tool grammar masks as with the departure expanded, from where a name starts",
    (dialect, prefix) => {
      const g = buildToolGrammar({ dialect, tools: TOOLS, toolChoice: "auto" });
      expect(departures(g)).toBeGreaterThan(0);
      const walks = { count: 30, seed: 11, maxTokens: 8, specialProbability: 0, endProbability: 0 };
      expectSameMasks(g, walks, (m) => enter(m, prefix), 60);
    },
  );

  it("the dialects that refuse calls to undeclared names use it", () => {
    const using = dialects.filter(
      (d) => departures(buildToolGrammar({ dialect: d, tools: TOOLS, toolChoice: "auto" })) > 0,
    );
    expect(using).toEqual(expect.arrayContaining(["hermes", "qwen3-coder", "seed-oss", "mistral", "llama3"]));
  });

  it("exports as its expansion", () => {
    const g = buildToolGrammar({ dialect: "hermes", tools: TOOLS, toolChoice: "auto" });
    expect(departures(g)).toBeGreaterThan(0);
    expect(toGbnf(g, vocab)).toBe(toGbnf(expanded(g), vocab));
    expect(toLark(g, vocab)).toBe(toLark(expanded(g), vocab));
  });

  it.each([
    [{ type: "departure", words: [] }, /words: must be a non-empty array/],
    [{ type: "departure" }, /missing "words"/],
    [{ type: "departure", words: ["a", 3] }, /words\[1\]: must be a non-empty string/],
    [{ type: "departure", words: ["a", ""] }, /words\[1\]: must be a non-empty string/],
    [{ type: "departure", words: ["a"], outside: [[5, 1]] }, /outside\[0\]: must be \[lo, hi\]/],
    [{ type: "departure", words: ["a"], outside: "x" }, /outside: must be an array/],
    [{ type: "departure", words: ["a"], outside: [[0, 0x10ffff]] }, /accepts nothing/],
    [{ type: "departure", words: ["a"], onward: 1 }, /onward: must be true or false/],
    [{ type: "departure", words: ["a"], onward: true }, /accepts nothing/],
    // 6,000 positions, each with 400 excluded ranges: more edges than the automaton may have states
    [
      {
        type: "departure",
        words: ["a".repeat(6000)],
        outside: Array.from({ length: 400 }, (_, i) => [1000 + 2 * i, 1000 + 2 * i]),
      },
      /departure of 1 words and 400 excluded ranges needs more than 2000000 automaton edges/,
    ],
  ])("malformed or oversized node %# is refused with its reason", (node, err) => {
    expect(() => compileGrammar({ root: node as GrammarNode }, vocab)).toThrow(err);
  });
});

/** Where each dialect that uses the node reads a call's name: its markers (a special token where
 * Qwen3's vocabulary has one, else text) and the text before the name. */
const NAME_AT: Record<string, string[]> = {
  hermes: ["<tool_call>", '\n{"name": "'],
  "qwen3-coder": ["<tool_call>", "\n<function="],
  "seed-oss": ["<seed:tool_call>", "\n<function="],
  mistral: ["[TOOL_CALLS]"],
  llama3: ['{"name": "'],
  // its calls open the answer, bare or fenced: the heads' departures are at the start
  "qwen2.5-coder": [],
};

function enter(m: GrammarMatcher, parts: string[]): GrammarMatcher {
  for (const part of parts) {
    const id = vocab.idOfPiece(part);
    const ok = id !== undefined && vocab.kind(id) !== 0 ? m.acceptToken(id) : m.acceptString(part);
    if (!ok) throw new Error(`the grammar refuses ${JSON.stringify(part)}`);
  }
  return m;
}

const TOOLS = ["get_weather", "get_time", "search", "search_web", "sé"].map((name) => ({
  type: "function" as const,
  function: {
    name,
    parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  },
}));

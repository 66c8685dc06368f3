// Properties of the matcher that must hold for any grammar and any vocabulary:
// the mask never strands a walk, the mask and acceptToken agree, and every way of
// tokenizing a valid string is accepted token by token.
import { describe, expect, it } from "vitest";
import {
  alt,
  anyText,
  charClass,
  compileGrammar,
  literal,
  perm,
  plus,
  repeat,
  seq,
  star,
  until,
  type CompiledGrammar,
  type Grammar,
  type GrammarNode,
  type Vocabulary,
} from "../../src/index.js";
import { FILE_TOOLS, xmlToolCalls } from "../support/grammars.js";
import { Tokenizations, rng } from "../support/tokenize.js";
import { allowedIds, llama2, qwen3 } from "../support/vocabs.js";

const jsonish: GrammarNode = seq(
  literal("{"),
  perm(
    [
      {
        node: seq(
          literal('"path": "'),
          star(alt(charClass(['"', "\\", [0, 0x1f]], true), seq(literal("\\"), charClass(['"', "\\", "n", "t"])))),
          literal('"'),
        ),
        required: true,
      },
      { node: seq(literal('"n": '), plus(charClass(["0-9"]))), required: false },
    ],
    literal(", "),
  ),
  literal("}"),
);

// Bounded repetitions: every count is its own state, masks come from the item's loop less
// the tokens that would need more items than are left (or that leave the repetition).
const bounded: GrammarNode = seq(
  literal('"'),
  repeat(alt(charClass(['"', "\\", [0, 0x1f]], true), seq(literal("\\"), charClass(['"', "\\", "n", "t"]))), 2, 12),
  literal('"'),
  repeat(charClass(["a-z"]), 0, 3),
  literal("abc!"),
);

// Free text beside a marked call, as the dialects whose calls may follow text have it: a subtree of
// the vocabulary entered mid-character is accepted whole where every way to finish the character
// reaches one state that loops over the rest; here 中 and 一-乏 finish into other states than the
// rest of their lead bytes' characters, so those are walked byte by byte. A BEL ends it, so the random
// walks go on (the end of generation is allowed only after it).
const textOrCall: GrammarNode = seq(
  alt(
    seq(star(charClass([" ", "\n"])), literal("<c>"), star(charClass(["<"], true)), literal("</c>")),
    seq(charClass(["<", " ", "\n"], true), anyText()),
    seq(literal("中"), literal("!")),
    seq(charClass([[0x4e00, 0x4e8f]]), literal("?"), star(charClass([[0x80, 0x10ffff]]))),
  ),
  literal("\u0007"),
);

const grammars: Array<[string, Grammar | GrammarNode]> = [
  ["text or a marked call", textOrCall],
  ["xml tool calls", xmlToolCalls(FILE_TOOLS)],
  ["json-ish object", jsonish],
  ["until with a multi-byte terminator", seq(until("»»"), literal("."))],
  ["bounded repetitions", bounded],
  // Items with several parses ("abc" or "ab"+"c") put copies of different counts in one state.
  [
    "ambiguous bounded items",
    seq(literal("<z>"), repeat(alt(literal("ab"), literal("abc"), literal("c")), 1, 6), literal("</z>")),
  ],
];

const validStrings: Record<string, string[]> = {
  "text or a marked call": ["你好, world", "<c>x y</c>", " \n<c>中文 😀</c>", "中!", "中?", "丁?中文", "é<c>"].map(
    (t) => `${t}\u0007`,
  ),
  "xml tool calls": [
    "<tool_call>\n<function=read>\n<parameter=path>\n/etc/hosts\n</parameter>\n</function>\n</tool_call>",
    "<tool_call>\n<function=edit>\n<parameter=new_string>\n\n</parameter>\n<parameter=path>\n/a.ts\n</parameter>\n<parameter=old_string>\nlet x = <T>(a: T) => a; // </param\n</parameter>\n</function>\n</tool_call>",
    "<tool_call>\n<function=write>\n<parameter=path>/tmp/中文.txt</parameter><parameter=content>\n你好，世界 😀\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read>\n<parameter=path>x</parameter></function>\n</tool_call>",
  ],
  "json-ish object": ['{"path": "a\\"b\\\\c"}', '{"n": 42, "path": "é✓ 😀 \\n"}', '{"path": "", "n": 0}'],
  "until with a multi-byte terminator": ["»».", "a»b»c»».", "»a»».", "中文»»."],
  "ambiguous bounded items": ["<z>c</z>", "<z>cabccababcab</z>", "<z>abcabcabcabcabcabc</z>"],
  "bounded repetitions": ['"ab"abc!', '"0123456789ab"xyzabc!', '"\\n\\té😀中文"abc!', '"a\\"b"qabc!'],
};

function isSet(mask: Uint32Array, id: number) {
  return ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;
}

function randomWalks(
  vocab: Vocabulary,
  g: CompiledGrammar,
  seed: number,
  walks: number,
  maxSteps: number,
  fullCheckEvery: number,
) {
  const rand = rng(seed);
  const m = g.createMatcher();
  const mask = m.allocateBitmask();
  let steps = 0;
  for (let w = 0; w < walks; w++) {
    m.reset();
    for (let i = 0; i < maxSteps; i++) {
      m.fillNextTokenBitmask(mask);
      const allowed = allowedIds(mask);
      // Never stranded: an empty mask only where the grammar is complete.
      if (allowed.length === 0) {
        expect(m.isComplete()).toBe(true);
        break;
      }
      expect(m.hasAllowedToken()).toBe(true);
      // Mask ⟺ acceptToken, on every token at some steps and on a sample at the others.
      const probe =
        steps % fullCheckEvery === 0
          ? Array.from({ length: vocab.size }, (_, id) => id)
          : Array.from({ length: 300 }, () => Math.floor(rand() * vocab.size)).concat(allowed.slice(0, 100));
      for (const id of probe) {
        const ok = m.acceptToken(id);
        if (ok !== isSet(mask, id))
          throw new Error(
            `step ${i}: token ${id} (${JSON.stringify(vocab.piece(id))}) mask=${isSet(mask, id)} accept=${ok}`,
          );
        if (ok) m.rollback(1);
      }
      // Prefer finishing: end-of-generation when allowed half the time, else any allowed token.
      const eog = allowed.filter((id) => vocab.endOfGenerationIds.includes(id));
      const pick = eog.length && rand() < 0.5 ? eog[0]! : allowed[Math.floor(rand() * allowed.length)]!;
      expect(m.acceptToken(pick)).toBe(true);
      steps++;
      if (m.isTerminated()) break;
    }
  }
  return steps;
}

describe.each([
  ["Qwen3", qwen3],
  ["Llama 2 (SentencePiece)", llama2],
])("matcher properties on %s", (_n, vocab) => {
  for (const [name, grammar] of grammars) {
    it(`${name}: random walks are never stranded and the mask equals acceptToken`, () => {
      const v = vocab();
      const g = compileGrammar(grammar, v);
      const steps = randomWalks(v, g, 1234, 6, 60, 25);
      expect(steps).toBeGreaterThan(20);
    });

    it(`${name}: every sampled tokenization of a valid string is accepted token by token`, () => {
      const v = vocab();
      const g = compileGrammar(grammar, v);
      const tk = tokenizers.get(v) ?? new Tokenizations(v);
      tokenizers.set(v, tk);
      const rand = rng(99);
      for (const text of validStrings[name]!) {
        expect(g.createMatcher().acceptString(text) && true).toBe(true);
        for (let k = 0; k < 25; k++) {
          const ids = tk.random(text, rand);
          const m = g.createMatcher();
          ids.forEach((id, i) => {
            if (!m.acceptToken(id))
              throw new Error(
                `${JSON.stringify(text)}: token ${i} (${JSON.stringify(v.piece(id))}) refused in tokenization ${ids.join(",")}`,
              );
          });
          expect(m.isComplete()).toBe(true);
          // Rollback then replay reaches the same verdicts.
          m.rollback(ids.length);
          expect(m.steps).toBe(0);
          for (const id of ids) expect(m.acceptToken(id)).toBe(true);
          expect(m.isComplete()).toBe(true);
        }
      }
    });
  }
});

const tokenizers = new Map<Vocabulary, Tokenizations>();

describe("a character read byte by byte", () => {
  // After "<d>": 中 (E4 B8 AD) finishes into a state that takes only "!", the rest of E4 B8's
  // characters into free text, and of E4 B9's only 80–9F live on. A token under E4 B8 or E4 B9 can
  // be accepted with its subtree only where every finish agrees; here the walk must go on to the end
  // of the character, and the mask must still equal acceptToken on every token.
  const midChar = seq(
    literal("<d>"),
    alt(
      seq(literal("中"), literal("!")),
      seq(
        charClass([
          [0x4e00, 0x4e2c],
          [0x4e2e, 0x4e3f],
        ]),
        star(charClass(["<"], true)),
      ),
      seq(charClass([[0x4e40, 0x4e5f]]), star(charClass(["<"], true))),
    ),
    literal("</d>"),
  );
  it.each([
    ["Qwen3", qwen3],
    ["Llama 2 (SentencePiece)", llama2],
  ])("the mask equals acceptToken on every token where finishes differ (%s)", (_n, vocab) => {
    const v = vocab();
    const m = compileGrammar(midChar, v).createMatcher();
    expect(m.acceptString("<d>")).toBe(true);
    const mask = m.allocateBitmask();
    m.fillNextTokenBitmask(mask);
    const text = new TextDecoder();
    let refusedUnder = 0; // tokens under a lead byte pair that some finishes allow: the case is met
    for (let id = 0; id < v.size; id++) {
      const ok = m.acceptToken(id);
      if (ok) m.rollback(1);
      if (ok !== isSet(mask, id))
        throw new Error(`token ${id} (${JSON.stringify(v.piece(id))}) mask=${isSet(mask, id)} accept=${ok}`);
      if (!ok && /^[\u4e00-\u4e7f]/.test(text.decode(v.tokenBytes(id)))) refusedUnder++;
    }
    expect(refusedUnder).toBeGreaterThan(0);
  });
});

describe("bounded repetition counts", () => {
  it("an exit in reach does not lend an extra item (found by the XGrammar differential test)", () => {
    const v = qwen3();
    const g = compileGrammar(
      seq(literal("<z>"), repeat(alt(literal("ab"), literal("abc"), literal("c")), 1, 6), literal("</z>")),
      v,
    );
    const m = g.createMatcher();
    expect(m.acceptString("<z>cabccababcab")).toBe(true); // six items at most: c|abc|c|ab|abc|ab
    const mask = m.allocateBitmask();
    m.fillNextTokenBitmask(mask);
    const a = v.idOfPiece("a")!;
    expect(isSet(mask, a)).toBe(false);
    expect(m.acceptToken(a)).toBe(false);
    expect(m.acceptString("</z>")).toBe(true);
  });
});

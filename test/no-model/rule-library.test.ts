// The JSON-schema lowering's kept rules (a string's characters, numbers, integer ranges, formats) are
// read by the native compile once per vocabulary and named by later grammars instead of written out
// (src/grammar/rule-library.ts, native/core/rule_library.hpp). A grammar that names them masks as it
// does with every rule written out; a library that lost them (cleared, or over its byte limit) is
// sent them again; a grammar's IR cannot put rules into the library.
import { describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  compileGrammar,
  compileGrammarAsync,
  grammarCache,
  type Grammar,
  Vocabulary,
} from "../../src/index.js";
import { resolveForVocabulary } from "../../src/grammar/compile.js";
import { libraryForm } from "../../src/grammar/rule-library.js";
import { masksAlong } from "../support/masks-along.js";
import { QWEN3_TOKENIZER } from "../support/vocabs.js";

const WALKS = { count: 6, seed: 5, maxTokens: 160 };

const fn = (name: string, properties: Record<string, object>) => ({
  type: "function" as const,
  function: { name, parameters: { type: "object", properties, required: Object.keys(properties) } },
});
/** Tools whose schemas lower onto kept rules: strings, a format, bounded and unbounded integers, numbers. */
const tools = (prefix: string) => [
  fn(`${prefix}_fetch`, { url: { type: "string", format: "uri" }, tries: { type: "integer", minimum: 1, maximum: 9 } }),
  fn(`${prefix}_write`, { path: { type: "string" }, size: { type: "integer" }, ratio: { type: "number" } }),
];
const grammarOf = (prefix: string, dialect = "hermes") =>
  buildToolGrammar({ dialect, tools: tools(prefix), toolChoice: "required" });

/** The same grammar on a vocabulary of its own (same tokenizer, empty library): every kept rule written out. */
function aloneMasks(grammar: Grammar): Buffer[] {
  const g = compileGrammar(grammar, Vocabulary.fromTokenizerJson(QWEN3_TOKENIZER));
  const out = masksAlong(g, WALKS);
  g.dispose();
  return out;
}

const expectSame = (a: Buffer[], b: Buffer[]) => {
  expect(a.length).toBe(b.length);
  expect(a.length).toBeGreaterThan(40);
  a.forEach((m, i) => expect(m.equals(b[i]!)).toBe(true));
};

describe("the per-vocabulary rule library", () => {
  it("keeps the kept rules after the first grammar; a later grammar names them and masks the same", () => {
    const vocab = Vocabulary.fromTokenizerJson(QWEN3_TOKENIZER);
    expect(vocab.ruleLibrary.rules).toBe(0);
    grammarCache.clear();
    compileGrammar(grammarOf("first"), vocab).dispose();
    const held = vocab.ruleLibrary;
    expect(held.rules).toBeGreaterThan(3);
    expect(held.bytes).toBeGreaterThan(1000);
    // The second tool set's IR carries none of them: what crosses to the native compile is its own rules.
    const second = grammarOf("second");
    const form = libraryForm(resolveForVocabulary(second, vocab), vocab);
    expect(form.irJson()).toBe(form.named);
    expect(form.irJson(true).length).toBeGreaterThan(form.named.length + 2000);
    const g = compileGrammar(second, vocab);
    expect(vocab.ruleLibrary.rules).toBe(held.rules);
    expectSame(masksAlong(g, WALKS), aloneMasks(second));
    g.dispose();
  });

  for (const how of ["compileGrammar", "compileGrammarAsync"] as const) {
    const compile = (grammar: Grammar, vocab: Vocabulary) =>
      how === "compileGrammar" ? Promise.resolve(compileGrammar(grammar, vocab)) : compileGrammarAsync(grammar, vocab);

    it(`${how}: after the library was cleared, the next grammar sends the rules again`, async () => {
      const vocab = Vocabulary.fromTokenizerJson(QWEN3_TOKENIZER);
      grammarCache.clear();
      compileGrammar(grammarOf("before"), vocab).dispose();
      const { generation } = vocab.ruleLibrary;
      vocab.clearRuleLibrary();
      expect(vocab.ruleLibrary).toEqual({ rules: 0, bytes: 0, generation: generation + 1 });
      const grammar = grammarOf(`after_${how}`, "qwen3-coder");
      const form = libraryForm(resolveForVocabulary(grammar, vocab), vocab);
      expect(form.irJson()).toBe(form.irJson(true));
      const g = await compile(grammar, vocab);
      expect(vocab.ruleLibrary.rules).toBeGreaterThan(3);
      expectSame(masksAlong(g, WALKS), aloneMasks(grammar));
      g.dispose();
    });

    it(`${how}: a grammar naming a rule the library lacks is compiled again with the rule`, async () => {
      const vocab = Vocabulary.fromTokenizerJson(QWEN3_TOKENIZER);
      grammarCache.clear();
      const grammar = grammarOf(`missed_${how}`, "glm-4.5");
      // Taken for given, never sent: the native compile finds the library without them.
      const form = libraryForm(resolveForVocabulary(grammar, vocab), vocab);
      form.given();
      expect(form.irJson()).toBe(form.named);
      const g = await compile(grammar, vocab);
      expect(vocab.ruleLibrary.rules).toBeGreaterThan(3);
      expectSame(masksAlong(g, WALKS), aloneMasks(grammar));
      g.dispose();
    });
  }

  it("takes no library rule from a grammar's own IR", () => {
    const vocab = Vocabulary.fromTokenizerJson(QWEN3_TOKENIZER);
    grammarCache.clear();
    // A caller's grammar with the library's own fields: they are not read.
    const poison = {
      root: { type: "literal", text: "ok" },
      library: ["json.string"],
      libraryAdd: { "json.string": { type: "literal", text: "x" }, "json.char": { type: "literal", text: "x" } },
    } as unknown as Grammar;
    const p = compileGrammar(poison, vocab);
    expect(vocab.ruleLibrary.rules).toBe(0);
    const m = p.createMatcher();
    expect(m.acceptString("ok")).toBe(true);
    m.dispose();
    p.dispose();
    expect(() =>
      compileGrammar({ root: { type: "ref", name: "json.string" }, libraryAdd: {} } as Grammar, vocab),
    ).toThrow(/undefined rule "json.string"/);
    // A tool grammar compiled after them masks as on a vocabulary of its own.
    const grammar = grammarOf("later");
    const g = compileGrammar(grammar, vocab);
    expectSame(masksAlong(g, WALKS), aloneMasks(grammar));
    g.dispose();
  });

  it("caches a grammar by its text with the kept rules named, whatever the library holds", () => {
    const vocab = Vocabulary.fromTokenizerJson(QWEN3_TOKENIZER);
    grammarCache.clear();
    const grammar = grammarOf("cached");
    const a = compileGrammar(grammar, vocab);
    vocab.clearRuleLibrary();
    const b = compileGrammar(grammar, vocab);
    expect(vocab.ruleLibrary.rules).toBe(0); // found in the grammar cache: nothing compiled, nothing sent
    a.dispose();
    b.dispose();
  });
});

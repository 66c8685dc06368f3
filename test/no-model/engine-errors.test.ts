// Bad input gets a clear error and never a crash.
import { describe, expect, it } from "vitest";
import { compileGrammar, literal, until, Vocabulary } from "../../src/index.js";
import { llama2, qwen3 } from "../support/vocabs.js";

describe("matcher input", () => {
  const m = () => compileGrammar(literal("ab"), qwen3()).createMatcher();

  it("invalid token ids throw", () => {
    expect(() => m().acceptToken(-1)).toThrow(/non-negative integer/);
    expect(() => m().acceptToken(1.5)).toThrow(/non-negative integer/);
    expect(() => m().acceptToken(Number.NaN)).toThrow(/non-negative integer/);
    expect(() => m().acceptToken(151669)).toThrow(/outside the vocabulary \(size 151669\)/);
    expect(() => m().acceptToken("3" as unknown as number)).toThrow(/must be a number/);
  });

  it("a bitmask of the wrong size or type throws and says the right size", () => {
    expect(() => m().fillNextTokenBitmask(new Uint32Array(10))).toThrow(/needs 4740 \(ceil\(vocabSize \/ 32\)\)/);
    expect(() => m().fillNextTokenBitmask(new Float32Array(4740) as unknown as Uint32Array)).toThrow(
      /Uint32Array or Int32Array/,
    );
    expect(() => m().fillNextTokenBitmask(null as unknown as Uint32Array)).toThrow();
    const i32 = new Int32Array(4740);
    m().fillNextTokenBitmask(i32); // the XGrammar layout works too
    expect(i32.some((w) => w !== 0)).toBe(true);
    for (const bad of [undefined, [0, 1], new DataView(new ArrayBuffer(4 * 4740)), new Uint8Array(4 * 4740), {}])
      expect(() => m().fillNextTokenBitmask(bad as unknown as Uint32Array)).toThrow(/Uint32Array or Int32Array/);
  });

  it("a bitmask that is a view into a larger buffer is filled where it starts, the buffer around it untouched", () => {
    const whole = new Uint32Array(4740);
    m().fillNextTokenBitmask(whole);
    const buffer = new ArrayBuffer(4 * (4740 + 8));
    new Uint32Array(buffer).fill(0xdeadbeef);
    const view = new Uint32Array(buffer, 16, 4740);
    m().fillNextTokenBitmask(view);
    expect([...view]).toEqual([...whole]);
    const all = new Uint32Array(buffer);
    expect([...all.subarray(0, 4), ...all.subarray(4 + 4740)]).toEqual(Array(8).fill(0xdeadbeef));
    const rows = new Int32Array(3 * 4740); // a batch of rows, as XGrammar's users keep them
    m().fillNextTokenBitmask(rows.subarray(4740, 2 * 4740));
    expect([...rows.subarray(4740, 2 * 4740)]).toEqual([...new Int32Array(whole.buffer)]);
    expect(rows.subarray(0, 4740).every((w) => w === 0) && rows.subarray(2 * 4740).every((w) => w === 0)).toBe(true);
  });

  it("rollback past the start throws and changes nothing", () => {
    const x = m();
    expect(x.acceptString("a")).toBe(true);
    expect(() => x.rollback(2)).toThrow(/only 1 were accepted/);
    expect(x.steps).toBe(1);
    expect(x.acceptString("b")).toBe(true);
    expect(x.isComplete()).toBe(true);
  });

  it("a refused token leaves the state unchanged", () => {
    const x = m();
    const z = qwen3().idOfPiece("z")!;
    expect(x.acceptToken(z)).toBe(false);
    expect(x.steps).toBe(0);
    expect(x.acceptString("ab")).toBe(true);
  });
});

describe("grammar input", () => {
  const v = () => qwen3();
  it.each([
    [{ type: "nope" }, /unknown node type "nope"/],
    [{ type: "literal" }, /missing "text"/],
    [{ type: "seq", items: "x" }, /"items" must be an array/],
    [{ type: "charClass", ranges: [[5, 1]] }, /range must satisfy/],
    [{ type: "repeat", item: { type: "literal", text: "a" }, min: 3, max: 1 }, /0 <= min <= max/],
    [{ type: "until", terminator: "" }, /non-empty "terminator"/],
    [{ type: "ref", name: "x" }, /undefined rule "x"/],
    [{ type: "seq", items: [{ type: "literal", text: "a" }, { type: "bogus" }] }, /items\[1\]: unknown node type/],
    [{ type: "alt", items: [] }, /accepts nothing/],
  ])("%j → %s", (node, err) => {
    expect(() => compileGrammar(node as never, v())).toThrow(err);
  });

  it("non-objects and wrong vocabularies are refused", () => {
    expect(() => compileGrammar(null as never, v())).toThrow(/grammar must be/);
    expect(() => compileGrammar(literal("a"), {} as never)).toThrow(/must be a Vocabulary/);
  });

  it("a grammar refuses a vocabulary it was not compiled for", () => {
    const g = compileGrammar(until("x"), v());
    expect(() => g.assertVocabulary(v())).not.toThrow();
    expect(() => g.assertVocabulary(llama2())).toThrow(/compiled for another vocabulary/);
  });
});

describe("vocabulary input", () => {
  it("missing or malformed sources throw with the path", () => {
    expect(() => Vocabulary.fromTokenizerJson("/nonexistent/tokenizer.json")).toThrow(/nonexistent/);
    expect(() => Vocabulary.fromTokenizerJson(42 as never)).toThrow(/path to tokenizer.json/);
    expect(() => Vocabulary.fromGguf("/nonexistent.gguf")).toThrow(/nonexistent/);
  });
  it("inconsistent data is refused", () => {
    expect(() => Vocabulary.fromData({ tokenBytes: [], kinds: new Uint8Array(), pieces: [], source: "t" })).toThrow(
      /no tokens/,
    );
    expect(() =>
      Vocabulary.fromData({
        tokenBytes: [new Uint8Array([1])],
        kinds: new Uint8Array([9]),
        pieces: ["a"],
        source: "t",
      }),
    ).toThrow(/kind must be 0..3/);
  });
});

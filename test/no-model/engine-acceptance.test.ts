// Acceptance tables for every IR construct, on a byte-level BPE vocabulary (Qwen3)
// and a SentencePiece one with byte fallback (Llama 2).
import { describe, expect, it } from "vitest";
import {
  alt,
  byteClass,
  charClass,
  compileGrammar,
  literal,
  marker,
  optional,
  perm,
  plus,
  ref,
  repeat,
  seq,
  star,
  text,
  token,
  until,
  type Grammar,
  type GrammarNode,
  type Vocabulary,
} from "../../src/index.js";
import { beforeAll } from "vitest";
import { llama2, llamaSpmGguf, qwen3 } from "../support/vocabs.js";

let spmGguf: Vocabulary;
beforeAll(async () => {
  spmGguf = await llamaSpmGguf();
});

interface Case {
  name: string;
  grammar: Grammar | GrammarNode;
  accept: string[]; // whole string accepted and complete
  incomplete?: string[]; // accepted as a prefix, not complete
  reject: string[]; // refused somewhere
}

const cases: Case[] = [
  {
    name: "literal",
    grammar: literal("<tool_call>\n"),
    accept: ["<tool_call>\n"],
    incomplete: ["", "<tool_", "<tool_call>"],
    reject: ["<tool_call> ", "<Tool", "x"],
  },
  {
    name: "literal with multi-byte text",
    grammar: literal("héllo ✓ 😀"),
    accept: ["héllo ✓ 😀"],
    incomplete: ["hé"],
    reject: ["hello", "héllo ✗"],
  },
  {
    name: "charClass ranges",
    grammar: charClass(["a-z", "_"]),
    accept: ["a", "q", "z", "_"],
    incomplete: [""],
    reject: ["A", "0", "ab", "é"],
  },
  {
    name: "charClass negated (any code point but quote)",
    grammar: charClass(['"'], true),
    accept: ["a", "é", "✓", "😀", "\n", "\u0000"],
    reject: ['"', "ab"],
  },
  {
    name: "charClass non-ASCII ranges",
    grammar: charClass([[0x4e00, 0x9fff]]),
    accept: ["中", "文"],
    reject: ["a", "é", "😀"],
  },
  {
    name: "byteClass",
    grammar: seq(byteClass([[0x30, 0x39]]), byteClass([[0x30, 0x39]], true)),
    accept: ["1a", "9-"],
    incomplete: ["5"],
    reject: ["a", "11"],
  },
  {
    name: "seq",
    grammar: seq(literal("a"), literal("b"), literal("c")),
    accept: ["abc"],
    incomplete: ["ab"],
    reject: ["abd", "abcc", "b"],
  },
  {
    name: "alt",
    grammar: alt(literal("read"), literal("write"), literal("re")),
    accept: ["read", "write", "re"],
    incomplete: ["wr", "rea"],
    reject: ["red", "writer", "x"],
  },
  {
    name: "alt with no items accepts nothing beyond its siblings",
    grammar: alt(literal("x"), alt()),
    accept: ["x"],
    reject: ["y"],
  },
  {
    name: "optional",
    grammar: seq(literal("a"), optional(literal("b")), literal("c")),
    accept: ["ac", "abc"],
    reject: ["abbc", "bc"],
  },
  {
    name: "star",
    grammar: seq(star(literal("ab")), literal(".")),
    accept: [".", "ab.", "ababab."],
    incomplete: ["aba"],
    reject: ["a.", "abb"],
  },
  {
    name: "plus",
    grammar: seq(plus(charClass(["0-9"])), literal(";")),
    accept: ["0;", "123;"],
    incomplete: ["12"],
    reject: [";", "1a;"],
  },
  {
    name: "bounded repeat {2,4}",
    grammar: repeat(charClass(["x"]), 2, 4),
    accept: ["xx", "xxx", "xxxx"],
    incomplete: ["x"],
    reject: ["xxxxx", "y"],
  },
  {
    name: "exact repeat {3}",
    grammar: repeat(literal("ab"), 3, 3),
    accept: ["ababab"],
    incomplete: ["abab"],
    reject: ["abababab"],
  },
  {
    name: "until: first terminator closes",
    grammar: seq(until("</parameter>"), literal("!")),
    accept: [
      "</parameter>!",
      "abc</parameter>!",
      "</param</parameter>!",
      "<</parameter>!",
      "a\nb <p> </parameter>!",
      "é✓😀</parameter>!",
      "</parameter</parameter>!",
    ],
    incomplete: ["abc", "abc</param", "x</parameter>"],
    reject: ["abc</parameter>x", "</parameter></parameter>!"],
  },
  {
    name: "until: self-overlapping terminator (KMP fallback)",
    grammar: until("aab"),
    accept: ["aab", "aaab", "aaaab", "abaab", "xyaab"],
    incomplete: ["aa", "aaa", "aba"],
    reject: ["aabx", "aabaab"],
  },
  {
    name: "until: multi-byte terminator",
    grammar: until("→end"),
    accept: ["x→end", "→→end", "é→end"],
    incomplete: ["→en"],
    reject: ["→endx"],
  },
  {
    name: "until: maxLength counts code points before the terminator",
    grammar: until("]", { maxLength: 3 }),
    accept: ["]", "abc]", "é✓😀]"],
    incomplete: ["ab"],
    reject: ["abcd", "abcd]"],
  },
  {
    name: "until: maxLength 0",
    grammar: until("</x>", { maxLength: 0 }),
    accept: ["</x>"],
    incomplete: ["</"],
    reject: ["a", " </x>"],
  },
  {
    name: "text: any text without the excluded string, ending anywhere",
    grammar: text("<tool_call>"),
    accept: ["", "hello", "a <tool_ call", "<tool_cal", "x<tool_callx", "é✓😀\n"],
    reject: ["<tool_call>", "say <tool_call> now"],
  },
  {
    name: "text then a trigger: content before a call",
    grammar: alt(text("<call>"), seq(until("<call>"), literal("f()"))),
    accept: ["just text", "", "text <call>f()", "<call>f()"],
    incomplete: ["text <call>", "text <call>f("],
    reject: ["text <call>g()", "<call>f()<call>"],
  },
  {
    name: "text with maxLength",
    grammar: text("]]", { maxLength: 3 }),
    accept: ["", "a]b", "]]".slice(0, 1), "é✓😀"],
    reject: ["abcd", "a]]"],
  },
  {
    name: "perm: any order, no duplicates, required items",
    grammar: seq(
      literal("{"),
      perm(
        [
          { node: literal("a"), required: true },
          { node: literal("b"), required: true },
          { node: literal("c"), required: false },
        ],
        literal(","),
      ),
      literal("}"),
    ),
    accept: ["{a,b}", "{b,a}", "{a,b,c}", "{c,b,a}", "{b,c,a}"],
    incomplete: ["{a", "{a,b,"],
    reject: ["{a}", "{c}", "{a,a}", "{a,b,b}", "{a,c,c}", "{}", "{ab}", "{a,b,c,a}"],
  },
  {
    name: "perm: all optional, empty allowed",
    grammar: seq(
      literal("("),
      perm(
        [
          { node: literal("x"), required: false },
          { node: literal("y"), required: false },
        ],
        literal(" "),
      ),
      literal(")"),
    ),
    accept: ["()", "(x)", "(y)", "(x y)", "(y x)"],
    reject: ["(x x)", "(xy)", "( )"],
  },
  {
    name: "ref: recursion expanded to maxRecursionDepth",
    grammar: {
      root: ref("v"),
      rules: { v: alt(literal("0"), seq(literal("["), ref("v"), literal("]"))) },
      maxRecursionDepth: 3,
    },
    accept: ["0", "[0]", "[[0]]", "[[[0]]]"],
    incomplete: ["[[["],
    reject: ["[[[[", "[[[[0]]]]", "[0]]", "1"],
  },
];

function check(v: Vocabulary, c: Case) {
  const g = compileGrammar(c.grammar, v);
  for (const s of c.accept) {
    const m = g.createMatcher();
    expect(m.acceptString(s), `accepts ${JSON.stringify(s)}`).toBe(true);
    expect(m.isComplete(), `${JSON.stringify(s)} is complete`).toBe(true);
  }
  for (const s of c.incomplete ?? []) {
    const m = g.createMatcher();
    expect(m.acceptString(s), `accepts prefix ${JSON.stringify(s)}`).toBe(true);
    expect(m.isComplete(), `${JSON.stringify(s)} is not complete`).toBe(false);
  }
  for (const s of c.reject) {
    const m = g.createMatcher();
    const ok = m.acceptString(s) && m.isComplete();
    expect(ok, `rejects ${JSON.stringify(s)}`).toBe(false);
    // Refused strings that are not prefixes are refused outright, leaving the state unchanged.
    if (!m.acceptString("")) throw new Error("empty string must always be accepted");
  }
}

describe.each([
  ["Qwen3 (byte-level BPE, 151,669 tokens)", qwen3],
  ["Llama 2 tokenizer.json (SentencePiece + byte fallback, 32,000 tokens)", llama2],
  ["llama-spm GGUF from the bundled llama.cpp (SentencePiece, read from tokenizer.ggml.*)", () => spmGguf],
])("IR acceptance on %s", (_name, vocab) => {
  for (const c of cases) it(c.name, () => check(vocab(), c));
});

describe("special-token terminals are atomic", () => {
  it("a token terminal matches only that token, never its text", () => {
    const v = qwen3();
    const imStart = v.idOfPiece("<|im_start|>")!;
    const g = compileGrammar(seq(token("<|im_start|>"), literal("x")), v);
    const m = g.createMatcher();
    expect(m.acceptString("<|im_start|>")).toBe(false);
    expect(m.acceptToken(imStart)).toBe(true);
    expect(m.acceptString("x")).toBe(true);
    expect(m.isComplete()).toBe(true);
  });

  it("special tokens never appear inside free text or values; their text spelled by ordinary tokens does", () => {
    const v = qwen3();
    const g = compileGrammar(until("</v>"), v);
    const m = g.createMatcher();
    const mask = m.allocateBitmask();
    m.fillNextTokenBitmask(mask);
    const bit = (id: number) => (mask[id >>> 5]! >>> (id & 31)) & 1;
    expect(bit(v.idOfPiece("<|im_start|>")!)).toBe(0);
    expect(bit(v.idOfPiece("<|im_end|>")!)).toBe(0);
    expect(m.acceptToken(v.idOfPiece("<|im_start|>")!)).toBe(false);
    expect(m.acceptString("<|im_start|> is just text here")).toBe(true);
  });

  it("a marker is its special token where the vocabulary has one, else its text", () => {
    const v = qwen3();
    const imStart = v.idOfPiece("<|im_start|>")!;
    const special = compileGrammar(seq(marker("<|im_start|>"), literal("x")), v).createMatcher();
    expect(special.acceptString("<|im_start|>")).toBe(false);
    expect(special.acceptToken(imStart)).toBe(true);
    // <tool_call> is an added but ordinary token in Qwen3: the marker is text, the single token matches by its bytes.
    const plain = compileGrammar(marker("<tool_call>"), v);
    expect(plain.createMatcher().acceptString("<tool_call>")).toBe(true);
    expect(plain.createMatcher().acceptToken(v.idOfPiece("<tool_call>")!)).toBe(true);
    // Text up to a special marker: any text, then only the token closes it.
    const upTo = compileGrammar(seq(until("<|im_end|>", { marker: true }), literal("!")), v).createMatcher();
    expect(upTo.acceptString("say <|im_end|> as text")).toBe(true);
    expect(upTo.acceptToken(v.idOfPiece("<|im_end|>")!)).toBe(true);
    expect(upTo.acceptString("!")).toBe(true);
    expect(upTo.isComplete()).toBe(true);
  });

  it("token by id works and unknown pieces or ordinary tokens are refused with a clear error", () => {
    const v = qwen3();
    expect(() => compileGrammar(token("<|no such token|>"), v)).toThrow(/no token "<\|no such token\|>"/);
    expect(() => compileGrammar(token("hello"), v)).toThrow(/ordinary text token; use a literal/);
    expect(() => compileGrammar(token(v.size + 5), v)).toThrow(/outside the vocabulary/);
  });
});

describe("end of generation", () => {
  it("is allowed exactly where the grammar may end", () => {
    const v = qwen3();
    const eos = v.idOfPiece("<|im_end|>")!;
    const g = compileGrammar(seq(literal("ok"), optional(literal("!"))), v);
    const m = g.createMatcher();
    const mask = m.allocateBitmask();
    const bit = (id: number) => (mask[id >>> 5]! >>> (id & 31)) & 1;
    m.fillNextTokenBitmask(mask);
    expect(bit(eos)).toBe(0);
    expect(m.acceptToken(eos)).toBe(false);
    expect(m.acceptString("ok")).toBe(true);
    m.fillNextTokenBitmask(mask);
    expect(bit(eos)).toBe(1);
    expect(m.acceptToken(eos)).toBe(true);
    expect(m.isTerminated()).toBe(true);
    expect(m.isComplete()).toBe(true);
    m.fillNextTokenBitmask(mask);
    expect(mask.every((w) => w === 0)).toBe(true);
    expect(m.acceptString("!")).toBe(false);
  });

  it("is impossible inside a value", () => {
    const v = qwen3();
    const g = compileGrammar(seq(literal("<parameter=content>\n"), until("</parameter>")), v);
    const m = g.createMatcher();
    expect(m.acceptString("<parameter=content>\n")).toBe(true);
    for (const id of v.endOfGenerationIds) expect(m.acceptToken(id)).toBe(false);
  });
});

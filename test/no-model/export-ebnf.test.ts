// toEbnf must define the same language as our IR. Oracle: XGrammar 0.1.27 (WASM) parses the
// exported EBNF and decides acceptance; expected answers come from tables and from direct JS
// definitions of the IR semantics (until = first occurrence of the terminator closes it).
import { describe, it, expect, beforeAll } from "vitest";
import { toEbnf, EbnfExportError, utf8Sequences } from "../../src/grammar/export/ebnf.js";
import type { Grammar, GrammarNode } from "../../src/grammar/ir.js";
import { EmptyGrammarError } from "../../src/grammar/errors.js";
import { lowerJsonSchemas } from "../../src/grammar/json-schema/index.js";
import {
  literal,
  seq,
  alt,
  repeat,
  optional,
  star,
  plus,
  charClass,
  byteClass,
  until,
  token,
  perm,
  ref,
  jsonSchema,
} from "../../src/grammar/builders.js";
// @ts-expect-error plain ESM helper without type declarations
import { loadXGrammar } from "../../scripts/lib/xgrammar.mjs";

// Second oracle: llama.cpp's own GBNF parser and matcher (node-llama-cpp's prebuilt CPU binary,
// LlamaGrammar's internal _testText = AddonGrammar.isTextCompatible; no model needed).
type Dialect = "xgrammar" | "gbnf";
interface Opts {
  dialect?: Dialect;
  tokenText?: (id: number) => string | undefined;
  tokenId?: (p: string) => number | undefined;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let xg: any, llama: any, LlamaGrammar: any;
beforeAll(async () => {
  xg = await loadXGrammar();
  try {
    const nlc = await import("node-llama-cpp");
    llama = await nlc.getLlama({ gpu: false, build: "never", logLevel: "error" as never });
    LlamaGrammar = nlc.LlamaGrammar;
  } catch (e) {
    console.warn(`llama.cpp unavailable, GBNF checks skipped: ${String(e)}`);
  }
});

/** Parse once, then ask the engine about each string. */
async function acceptor(g: Grammar | GrammarNode, opts: Opts = {}) {
  const ebnf = toEbnf(g, opts);
  if (opts.dialect === "gbnf") {
    const grammar = new LlamaGrammar(llama, { grammar: ebnf });
    return async (text: string): Promise<boolean> => grammar._testText(text);
  }
  const grammar = await xg.Grammar.fromEBNF(ebnf);
  return async (text: string): Promise<boolean> => xg.Testings.isGrammarAcceptString(grammar, text);
}

/** Check a table in both syntaxes (or only the listed ones). */
async function checkTable(
  g: Grammar | GrammarNode,
  accept: string[],
  reject: string[],
  opts: Opts = {},
  dialects: Dialect[] = ["xgrammar", "gbnf"],
) {
  for (const dialect of dialects) {
    if (dialect === "gbnf" && !llama) continue;
    const o = { ...opts, dialect };
    const acc = await acceptor(g, o);
    const wrong: string[] = [];
    for (const s of accept) if (!(await acc(s))) wrong.push(`${dialect} should accept ${JSON.stringify(s)}`);
    for (const s of reject) if (await acc(s)) wrong.push(`${dialect} should reject ${JSON.stringify(s)}`);
    expect(wrong, toEbnf(g, o)).toEqual([]);
  }
}

/** The IR meaning of until: text without T, then T (first occurrence closes). */
function untilRef(T: string, s: string, maxLength?: number): boolean {
  if (!s.endsWith(T) || s.indexOf(T) !== s.length - T.length) return false;
  return maxLength === undefined || Array.from(s).length - Array.from(T).length <= maxLength;
}

/** Deterministic pseudo-random strings over a small alphabet (so terminators occur often). */
function* randomStrings(alphabet: string[], count: number, maxLen: number, seed = 1) {
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
  for (let i = 0; i < count; i++) {
    const n = Math.floor(rnd() * (maxLen + 1));
    let s = "";
    for (let k = 0; k < n; k++) s += alphabet[Math.floor(rnd() * alphabet.length)]!;
    yield s;
  }
}

describe("toEbnf → XGrammar: until", () => {
  it("exact </parameter> terminator", async () => {
    await checkTable(
      until("</parameter>"),
      [
        "abc</parameter>",
        "</parameter>",
        "</param</parameter>",
        "<</parameter>",
        "</parameter</parameter>",
        "</</parameter>",
        "line1\nline2\t</parameter>",
        "héllo 中文 😀</parameter>",
        "a<b>c</p></parameter>",
      ],
      ["a</parameter>b", "abc", "", "</parameter></parameter>", "x</parameter>\n", "</parameter", "</PARAMETER>"],
    );
  });

  it("matches the IR semantics on random strings (self-overlapping terminators)", async () => {
    for (const [T, dialect] of ["aab", "abab", "aa", "<//a", "é<é", "a"].flatMap(
      (t) =>
        [
          [t, "xgrammar"],
          [t, "gbnf"],
        ] as const,
    )) {
      if (dialect === "gbnf" && !llama) continue;
      const acc = await acceptor(until(T), { dialect });
      const alphabet = Array.from(new Set([...T, "x"]));
      for (const s of randomStrings(alphabet, 120, 9, T.length)) {
        expect(await acc(s), `${dialect}: until(${JSON.stringify(T)}) on ${JSON.stringify(s)}`).toBe(untilRef(T, s));
      }
    }
  });

  it("maxLength bounds the text before the terminator, in code points", async () => {
    await checkTable(
      until("ab", { maxLength: 3 }),
      ["ab", "xab", "xxxab", "aaab", "ééé" + "ab", "bab"],
      ["xxxxab", "abab", "b", "aaaaab"],
    );
    await checkTable(until("</p>", { maxLength: 0 }), ["</p>"], ["x</p>", ""]);
    for (const [T, m, dialect] of [
      ["aab", 4],
      ["abab", 5],
      ["é<", 2],
    ].flatMap(
      ([t, m]) =>
        [
          [t, m, "xgrammar"],
          [t, m, "gbnf"],
        ] as const,
    )) {
      if (dialect === "gbnf" && !llama) continue;
      const acc = await acceptor(until(T as string, { maxLength: m as number }), { dialect });
      const alphabet = Array.from(new Set([...(T as string), "x"]));
      for (const s of randomStrings(alphabet, 120, 10, 7)) {
        expect(await acc(s), `${dialect}: until(${JSON.stringify(T)}, max ${m}) on ${JSON.stringify(s)}`).toBe(
          untilRef(T as string, s, m as number),
        );
      }
    }
  });

  it("refuses a bounded until that would need too many rules", () => {
    expect(() => toEbnf(until("</parameter>", { maxLength: 10_000 }))).toThrow(/not exportable/);
    expect(() => toEbnf(until(""))).toThrow(EbnfExportError);
  });
});

describe("toEbnf → XGrammar: perm", () => {
  const items = (req: [boolean, boolean, boolean]) =>
    [literal("a"), literal("b"), literal("c")].map((node, i) => ({ node, required: req[i]! }));

  it("any order, each at most once, required present, separator between", async () => {
    await checkTable(
      perm(items([true, false, false]), literal(",")),
      ["a", "a,b", "b,a", "c,a,b", "b,c,a", "a,c"],
      ["", "b", "b,c", "a,a", "a,b,", ",a", "ab", "a,b,a", "a,b,c,a"],
    );
  });

  it("all optional without separator; all required", async () => {
    await checkTable(perm(items([false, false, false])), ["", "a", "cb", "abc", "cab"], ["aa", "abca", "d"]);
    await checkTable(
      perm(items([true, true, true]), literal(" ")),
      ["a b c", "c a b", "b c a"],
      ["a b", "a b c c", "abc"],
    );
  });

  it("refuses large sets", () => {
    const many = Array.from({ length: 9 }, (_, i) => ({ node: literal(String(i)), required: false }));
    expect(() => toEbnf(perm(many))).toThrow(/export limit/);
    expect(() => toEbnf(perm(many), { maxPermItems: 10 })).not.toThrow();
  });
});

describe("toEbnf → XGrammar: characters and escapes", () => {
  it("literals with quotes, backslashes, controls and non-ASCII", async () => {
    const text = 'a"b\\c\n\t\r\u0001\u007f é中😀';
    await checkTable(literal(text), [text], [text.slice(0, -2), text + "x", 'a"b\\c']);
    await checkTable(seq(literal("x"), literal(""), literal("\u0000"), literal("y")), ["x\u0000y"], ["xy"]);
  });

  it("classes with special characters", async () => {
    const specials = ["]", "-", "^", "\\", '"', "[", "\n", "\t", "\u0001", "\u007f"];
    const cls = charClass(specials);
    await checkTable(plus(cls), [specials.join(""), "]", "^^", "-"], ["a", "]a", ""]);
    await checkTable(charClass(specials, true), ["a", "é", "😀", " "], specials);
    await checkTable(charClass(["a-c", "x", "0-9"]), ["a", "b", "c", "x", "5"], ["d", "w", "A", "é"]);
  });

  it("non-ASCII ranges (XGrammar 0.1.27 needs them as UTF-8 byte sequences)", async () => {
    await checkTable(charClass(["é-ë"]), ["é", "ê", "ë"], ["è", "ì", "e", "ée"]);
    await checkTable(charClass(["é"]), ["é"], ["è", "e"]);
    await checkTable(charClass(["é", "😀"]), ["é", "😀"], ["è", "😁"]);
    await checkTable(charClass(["a-z", "\u00e0-\u00ff"]), ["a", "é", "ÿ"], ["A", "Ā", "中"]);
    await checkTable(charClass(["\u4e00-\u9fff"]), ["中", "文"], ["a", "é", "😀", "\u3000"]);
    await checkTable(charClass([[0x1f600, 0x1f64f]]), ["😀", "🙏"], ["🚀", "a", "中"]);
    await checkTable(charClass([[0x80, 0x10ffff]]), ["é", "中", "😀", "\u0080", "\u{10ffff}"], ["a", "\u007f"]);
    await checkTable(charClass(["é"], true), ["e", "è", "中", "😀", "a"], ["é"]);
    await checkTable(charClass(["a", "中"], true), ["b", "文", "😀"], ["a", "中"]);
    await checkTable(charClass([[0, 0x10ffff]]), ["a", "\u0000", "é", "😀"], ["", "ab"]);
    await checkTable(charClass([[0, 0x7f]], true), ["é", "😀"], ["a", "\u0000"]);
  });

  it("byte classes spell UTF-8 byte by byte", async () => {
    await checkTable(seq(byteClass([[0xc3, 0xc3]]), byteClass([[0xa9, 0xaa]])), ["é", "ê"], ["è", "e"], {}, [
      "xgrammar",
    ]);
    await checkTable(plus(byteClass([[0x61, 0x63]])), ["abc", "a"], ["d", ""]);
    expect(() => toEbnf(byteClass([[0x80, 0xff]]), { target: "gbnf" })).toThrow(/not exportable to GBNF/);
  });

  it("utf8Sequences covers exactly the range", () => {
    const seqs = utf8Sequences([[0x7f, 0x10ffff]]);
    const matches = (cp: number) => {
      const b = Array.from(new TextEncoder().encode(String.fromCodePoint(cp)));
      return seqs.some((s) => s.length === b.length && s.every(([lo, hi], i) => b[i]! >= lo && b[i]! <= hi));
    };
    for (const cp of [0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xffff, 0x10000, 0x10ffff, 0x3456, 0x1f600])
      expect(matches(cp)).toBe(true);
    expect(matches(0x7e)).toBe(false);
  });
});

describe("toEbnf → XGrammar: structure", () => {
  it("repeat bounds", async () => {
    await checkTable(repeat(literal("ab"), 2, 3), ["abab", "ababab"], ["ab", "abababab", ""]);
    await checkTable(repeat(literal("a"), 3, 3), ["aaa"], ["aa", "aaaa"]);
    await checkTable(repeat(literal("a"), 2, null), ["aa", "aaaaaa"], ["a"]);
    await checkTable(seq(star(literal("a")), optional(literal("b"))), ["", "aaa", "aab", "b"], ["bb", "ba"]);
    await checkTable(seq(literal("x"), repeat(literal("a"), 0, 0)), ["x"], ["xa"]);
    // A starred sub-rule followed by more items (written as a right-recursive loop for XGrammar).
    const str = (min: number) =>
      seq(
        literal('"'),
        repeat(alt(charClass(['"', "\\"], true), seq(literal("\\"), charClass(['"', "n"]))), min, null),
        literal('"'),
        literal("!"),
      );
    await checkTable(str(0), ['""!', '"ab"!', '"a\\"b\\n"!'], ['"a"', '"a\\x"!', '"a""!', '"a"!!']);
    await checkTable(str(1), ['"a"!', '"\\n"!'], ['""!']);
    await checkTable(str(2), ['"ab"!', '"a\\nb"!'], ['""!', '"a"!']);
  });

  it("alternatives, including empty ones that match nothing", async () => {
    await checkTable(alt(literal("yes"), literal("no"), alt()), ["yes", "no"], ["", "yesno"]);
    await checkTable(seq(literal("a"), optional(alt()), literal("b")), ["ab"], ["a", "b"]);
    expect(() => toEbnf(seq(literal("a"), alt()))).toThrow(EmptyGrammarError);
  });

  it("recursion unrolled to maxRecursionDepth like the native builder", async () => {
    const g: Grammar = {
      root: ref("list"),
      rules: { list: alt(literal("x"), seq(literal("["), ref("list"), literal("]"))) },
      maxRecursionDepth: 2,
    };
    await checkTable(g, ["x", "[x]", "[[x]]"], ["[[[x]]]", "[x", ""]);
    // Mutual recursion: value -> array -> value.
    const m: Grammar = {
      root: ref("value"),
      rules: {
        value: alt(literal("1"), ref("array")),
        array: seq(literal("["), optional(seq(ref("value"), star(seq(literal(","), ref("value"))))), literal("]")),
      },
      maxRecursionDepth: 1,
    };
    // value may be open at most twice: the inner array can only be empty.
    await checkTable(m, ["1", "[]", "[1]", "[1,[]]", "[[],1]"], ["[1,[1]]", "[[[1]]]", "[1,]"]);
  });

  it("token terminals: text for XGrammar, <[id]> for GBNF", async () => {
    const g = seq(token("<tool_call>"), literal("\n"), token(151658));
    const tokenText = (id: number) => (id === 151658 ? "</tool_call>" : undefined);
    await checkTable(g, ["<tool_call>\n</tool_call>"], ["<tool_call>\n"], { tokenText }, ["xgrammar"]);
    expect(() => toEbnf(token(5))).toThrow(/tokenText/);
    const gbnf = toEbnf(g, { target: "gbnf", tokenId: (p: string) => (p === "<tool_call>" ? 151657 : undefined) });
    expect(gbnf).toContain("<[151657]>");
    expect(gbnf).toContain("<[151658]>");
  });

  it("jsonSchema nodes must be lowered first", () => {
    expect(() => toEbnf(seq(literal("x"), jsonSchema({ type: "string" })))).toThrow(/jsonSchema/);
  });

  it("JSON-schema values in Python literal syntax (Seed-OSS) export after lowering", async () => {
    const schema = {
      type: "object",
      properties: {
        lang: { type: "string", maxLength: 2 },
        n: { type: "array", items: { type: "integer" } },
        ok: { type: "boolean" },
      },
      required: ["lang"],
    };
    const g = lowerJsonSchemas({
      root: seq(literal("<p>"), jsonSchema(schema, { whitespace: "any", syntax: "python" }), literal("</p>")),
    });
    await checkTable(
      g,
      [
        "<p>{'lang': 'ts', 'n': [1, 2], 'ok': True}</p>",
        '<p>{"lang": "\\x74s"}</p>',
        "<p>{'lang': '\\U0001F600'}</p>",
        "<p>{ 'ok' : False , 'lang' : '\\'' }</p>",
      ],
      [
        "<p>{'lang': 'ts', 'ok': true}</p>",
        "<p>{'lang': 'tsx'}</p>",
        "<p>{'n': [1]}</p>",
        "<p>{'lang': '\\ud83d'}</p>",
        '<p>{"lang": "ts"\'}</p>',
        "<p>{'lang': 'ts', 'n': (1,)}</p>",
      ],
    );
  });

  it("a Qwen3-Coder XML tool call grammar", async () => {
    const param = (name: string) => seq(literal(`<parameter=${name}>\n`), until("</parameter>"), literal("\n"));
    const fn = (name: string, params: Array<[string, boolean]>) =>
      seq(
        literal(`<function=${name}>\n`),
        perm(params.map(([p, required]) => ({ node: param(p), required }))),
        literal("</function>\n"),
      );
    // GBNF keeps <tool_call> a token terminal, which text cannot spell: use literals there.
    const make = (tc: (p: string) => GrammarNode) =>
      seq(
        tc("<tool_call>"),
        literal("\n"),
        alt(
          fn("read", [["path", true]]),
          fn("write", [
            ["path", true],
            ["content", true],
          ]),
          fn("edit", [
            ["path", true],
            ["old_string", true],
            ["new_string", true],
          ]),
        ),
        tc("</tool_call>"),
      );
    const call = (body: string) => `<tool_call>\n${body}</tool_call>`;
    for (const [g, dialects] of [
      [make(token), ["xgrammar"]],
      [make(literal), ["xgrammar", "gbnf"]],
    ] as const)
      await checkTable(
        g,
        [
          call("<function=read>\n<parameter=path>\n/etc/hosts\n</parameter>\n</function>\n"),
          call(
            "<function=write>\n<parameter=content>\nx </param> y\n</parameter>\n<parameter=path>\na.txt\n</parameter>\n</function>\n",
          ),
        ],
        [
          call("<function=read>\n</function>\n"),
          call("<function=read>\n<parameter=path>\na</parameter>b\n</parameter>\n</function>\n"),
          call("<function=write>\n<parameter=path>\na\n</parameter>\n<parameter=path>\nb\n</parameter>\n</function>\n"),
          call("<function=delete>\n<parameter=path>\na\n</parameter>\n</function>\n"),
        ],
        {},
        [...dialects],
      );
  });
});

describe("toEbnf → XGrammar and llama.cpp: text", () => {
  it("text without <ab: may end anywhere, never contains it (state 0 is a star loop)", async () => {
    await checkTable(
      { type: "text", exclude: "<ab" },
      ["", "x", "<", "<a", "<<a", "a<b", "<a<a", "é<a", "<a<<a", "x".repeat(300)],
      ["<ab", "x<abx", "<<ab", "<a<ab", "é<ab"],
    );
  });
});

describe("toEbnf: GBNF text", () => {
  it("uses llama.cpp escapes and names", () => {
    const out = toEbnf(
      {
        root: seq(charClass(["^", "]", "-", "\\"]), charClass(['"'], true), ref("my_rule")),
        rules: { my_rule: literal("é\n") },
      },
      { target: "gbnf" },
    );
    expect(out).toContain("[\\-\\\\-\\u005e]"); // '-' and the range '\\'..'^'
    // Negated classes come out positive (llama.cpp refuses partial characters against `[^…]`).
    expect(out).toContain("[\\u0000-!#-\\ud7ff\\ue000-\\U0010ffff]");
    expect(out).toMatch(/^my-rule ::= "\\u00e9\\n"$/m);
    for (const line of out.trim().split("\n")) expect(line).toMatch(/^[A-Za-z][A-Za-z0-9-]* ::= /);
    expect(() => toEbnf(repeat(literal("a"), 0, 5000), { target: "gbnf" })).toThrow(/GBNF/);
    if (llama) expect(() => new LlamaGrammar(llama, { grammar: out })).not.toThrow();
  });
});

describe("toEbnf: options", () => {
  it("target picks the notation's rules; the former name dialect still works; anything else is refused by name", () => {
    const g = charClass(['"'], true);
    expect(toEbnf(g, { target: "gbnf" })).toBe(toEbnf(g, { dialect: "gbnf" }));
    expect(toEbnf(g, { target: "gbnf" })).not.toBe(toEbnf(g, { target: "xgrammar" }));
    expect(() => toEbnf(g, { target: "lark" as never })).toThrow(/target must be "xgrammar" or "gbnf".*toLark/);
    expect(() => toEbnf(g, { target: "GBNF" as never })).toThrow(EbnfExportError);
  });
});

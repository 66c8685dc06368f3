// Differential test: our token masks against XGrammar 0.1.27's, on the Qwen3 vocabulary
// (151,669 tokens), at every step of many walks. XGrammar gets the SAME language: our IR exported
// with toEbnf (JSON schemas after our lowering), or — in the last group — XGrammar's own JSON-schema
// compiler on schemas and options where its language and ours coincide up to named differences.
//
// Walks (both engines advance on the same tokens):
//   - along random tokenizations of valid strings of the grammar (every cut into ordinary tokens);
//   - random walks choosing among the tokens BOTH masks allow (so a walk stays in the intersection
//     of the languages), biased toward the tokens of the valid strings and toward stopping.
// At every step the two masks are compared bit by bit over the whole vocabulary (plus the padding
// bits of the last word). Every differing token must be explained by a classifier that names and
// checks the reason (test/support/xgrammar-diff.ts, `Category`); anything else fails the test with
// the token ids and pieces. acceptToken verdicts are compared too: on the walk's tokens, on the
// differing tokens (each engine against its own mask) and on samples of agreed tokens.
//
// XGrammar's TokenizerInfo gets our end-of-generation ids as its stop tokens (what a Qwen3 chat
// user passes: <|im_end|> etc.), so the stop sets coincide; one test keeps XGrammar's detected
// defaults to show that difference. The explained differences, by category, are asserted exactly
// per case (which ids), so a case cannot pass by comparing nothing. The categories (each a checked
// claim about the token, see xgrammar-diff.ts): padding bits past the vocabulary; control tokens
// XGrammar matches as their text (checked: our grammar accepts that text there); the stop-token set
// (default-stops test only); bytes that never occur in UTF-8 (C0, C1, F5-F7 pass XGrammar's negated
// classes) and ill-formed continuation bytes after a lead byte; XGrammar 0.1.27's non-ASCII class
// bug (one test, hand-written EBNF, checked against a byte-class model); and, against XGrammar's own
// JSON-schema compiler only, `-0`, lone surrogate \u escapes and \r as whitespace.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  TokenKind,
  alt,
  byteClass,
  charClass,
  compileGrammar,
  jsonSchema,
  literal,
  optional,
  perm,
  plus,
  ref,
  repeat,
  seq,
  star,
  until,
  type CompiledGrammar,
  type Grammar,
  type GrammarNode,
  type JsonSchemaOptions,
  type Vocabulary,
} from "../../src/index.js";
import { toEbnf, type ToEbnfOptions } from "../../src/grammar/export/ebnf.js";
import { lowerJsonSchemas } from "../../src/grammar/json-schema/index.js";
import { FILE_TOOLS, xmlToolCalls } from "../support/grammars.js";
import { Tokenizations, rng } from "../support/tokenize.js";
import { qwen3 } from "../support/vocabs.js";
import {
  CATEGORIES,
  DiffStats,
  baseClassifier,
  byteModelClassifier,
  crOnlyOutsideStrings,
  hasLoneSurrogateEscape,
  isInvalidUtf8Byte,
  isWellFormedUtf8Prefix,
  loadXgLib,
  runCase,
  xgJsonSchemaClassifier,
  type Category,
  type Classifier,
  type Engines,
  type XgCompiled,
  type XgCompiler,
  type XgLib,
  type XgTokenizerInfo,
} from "../support/xgrammar-diff.js";

let vocab: Vocabulary;
let xg: XgLib;
let encoded: string[];
let tokenInfo: XgTokenizerInfo;
let compiler: XgCompiler;
let engines: Engines;
const totals = new DiffStats();
const report: string[] = [];

// Token sets the expectations are written in.
let SPECIAL_IDS: number[]; // control tokens (kind Special): never text to us, text to XGrammar
let EOG_IDS: number[];
let INVALID_UTF8_IDS: number[]; // tokens holding a byte that never occurs in UTF-8
let PADDING_IDS: number[];

beforeAll(async () => {
  vocab = qwen3();
  xg = await loadXgLib();
  encoded = xg.readEncodedVocab();
  EOG_IDS = [...vocab.endOfGenerationIds];
  tokenInfo = await xg.createTokenizerInfo(encoded, { stopTokenIds: EOG_IDS });
  expect(tokenInfo.getVocabSize()).toBe(vocab.size);
  compiler = await xg.createCompiler(tokenInfo);
  engines = { vocab, tokenizations: new Tokenizations(vocab), xgStops: new Set(EOG_IDS) };
  SPECIAL_IDS = [];
  INVALID_UTF8_IDS = [];
  for (let id = 0; id < vocab.size; id++) {
    if (vocab.kind(id) === TokenKind.Special) SPECIAL_IDS.push(id);
    if (vocab.tokenBytes(id).some(isInvalidUtf8Byte)) INVALID_UTF8_IDS.push(id);
  }
  PADDING_IDS = Array.from({ length: vocab.bitmaskWords * 32 - vocab.size }, (_, i) => vocab.size + i);
});

afterAll(() => {
  if (report.length === 0) return;
  const cats = CATEGORIES.filter((c) => totals.stepsWith(c) > 0).map(
    (c) => `  ${c}: ${totals.stepsWith(c)} steps, ${totals.ids(c).length} distinct ids`,
  );
  console.log(
    [
      "XGrammar differential summary:",
      ...report.map((r) => `  ${r}`),
      `TOTAL: ${totals.walks} walks, ${totals.steps} steps, ${totals.bitsCompared} token bits compared, ` +
        `${totals.identicalSteps} steps bit-identical, ${totals.verdictChecks} acceptToken comparisons`,
      "explained differences by category (a step counts once per category):",
      ...cats,
    ].join("\n"),
  );
  compiler?.dispose();
  tokenInfo?.dispose();
});

// ---- case plumbing ---------------------------------------------------------------------------

/**
 * Expected explained differences of one category: exactly these ids, or a check on the ids; an
 * `opt(…)` one may also not occur (its check applies when it does). "padding-bits" is optional
 * in every case unless listed: XGrammar sets those bits only on some of its mask representations.
 */
type Check = number[] | ((ids: number[]) => void);
type Expectation = Check | { optional: true; check: Check };
const opt = (check: Check): Expectation => ({ optional: true, check });

interface CaseSpec {
  name: string;
  /** Our grammar (compiled with compileGrammar). */
  grammar: Grammar | GrammarNode;
  /** What XGrammar compiles: default toEbnf of the (lowered) grammar. */
  xgrammar?:
    | { ebnf: string }
    | { jsonSchema: unknown; anyWhitespace: boolean; maxWhitespaceCnt?: number }
    | { exportOptions: ToEbnfOptions };
  model?: Grammar | GrammarNode;
  valid: string[];
  /** Token sequences walked as given (e.g. characters split into single-byte tokens). */
  fixedWalks?: () => number[][];
  classifiers?: Classifier[];
  expect: Partial<Record<Category, Expectation>>;
  randomWalks?: number;
  tokenizationWalks?: number;
  maxSteps?: number;
  engines?: () => Engines;
  xgCompiler?: () => XgCompiler;
}

async function runSpec(spec: CaseSpec, seed: number): Promise<DiffStats> {
  const ours: CompiledGrammar = compileGrammar(spec.grammar, vocab);
  const g: Grammar = "root" in spec.grammar ? spec.grammar : { root: spec.grammar as GrammarNode };
  const comp = spec.xgCompiler?.() ?? compiler;
  let xgCompiled: XgCompiled;
  const x = spec.xgrammar;
  if (x && "ebnf" in x) xgCompiled = await xg.compileEbnf(x.ebnf, { compiler: comp });
  else if (x && "jsonSchema" in x)
    xgCompiled = await xg.compileJsonSchema(x.jsonSchema, {
      compiler: comp,
      anyWhitespace: x.anyWhitespace,
      indent: -1,
      separators: [",", ":"],
      strictMode: true,
      ...(x.maxWhitespaceCnt !== undefined ? { maxWhitespaceCnt: x.maxWhitespaceCnt } : {}),
    });
  else
    xgCompiled = await xg.compileEbnf(
      toEbnf(lowerJsonSchemas(g), { target: "xgrammar", ...(x && "exportOptions" in x ? x.exportOptions : {}) }),
      { compiler: comp },
    );

  // The valid strings must be valid for us (and tokenizable), or the walks would prove nothing.
  for (const s of spec.valid) {
    const m = ours.createMatcher();
    if (!m.acceptString(s) || !m.isComplete())
      throw new Error(`${spec.name}: ${JSON.stringify(s)} is not in our language; fix the test`);
  }
  const e = spec.engines?.() ?? engines;
  try {
    const stats = await runCase(e, xg, {
      name: spec.name,
      ours,
      xgrammar: xgCompiled,
      valid: spec.valid,
      ...(spec.fixedWalks ? { fixedWalks: spec.fixedWalks() } : {}),
      ...(spec.model ? { model: compileGrammar(spec.model, vocab) } : {}),
      classifiers: [...(spec.classifiers ?? []), baseClassifier],
      randomWalks: spec.randomWalks ?? 8,
      tokenizationWalks: spec.tokenizationWalks ?? 6,
      maxSteps: spec.maxSteps ?? 40,
      seed,
    });
    totals.merge(stats, spec.name);
    report.push(`${spec.name}: ${stats.summary()}`);
    return stats;
  } finally {
    xgCompiled.dispose();
  }
}

/** The assertions every case makes: no unexplained difference, real coverage, exact categories. */
function check(spec: CaseSpec, stats: DiffStats) {
  expect(stats.unexplained, `${spec.name}: unexplained differences between our masks and XGrammar's`).toEqual([]);
  const fixed = spec.fixedWalks?.().length ?? 0;
  expect(stats.walks).toBe((spec.randomWalks ?? 8) + (spec.tokenizationWalks ?? 6) + fixed);
  expect(stats.steps).toBeGreaterThanOrEqual(stats.walks * 3);
  expect(stats.tokensAccepted).toBeGreaterThan(stats.walks);
  expect(stats.completedWalks, `${spec.name}: walks that ended with a stop token`).toBeGreaterThanOrEqual(
    (spec.tokenizationWalks ?? 6) + fixed,
  );
  // Categories seen are exactly the expected ones (optional ones may be missing), with the expected ids.
  const expected: Partial<Record<Category, Expectation>> = { "padding-bits": opt(padding), ...spec.expect };
  const isOpt = (e: Expectation | undefined) => typeof e === "object" && !Array.isArray(e);
  const seen = CATEGORIES.filter((c) => stats.stepsWith(c) > 0);
  expect(seen, `${spec.name}: categories of explained differences`).toEqual(
    CATEGORIES.filter((c) => c in expected && (!isOpt(expected[c]) || seen.includes(c))),
  );
  for (const cat of seen) {
    const want = expected[cat]!;
    const c = typeof want === "object" && !Array.isArray(want) ? want.check : want;
    const ids = stats.ids(cat);
    if (typeof c === "function") c(ids);
    else expect(ids, `${spec.name}: ids explained as ${cat}`).toEqual(c);
  }
}

const subsetOf =
  (all: () => number[], min = 1) =>
  (ids: number[]) => {
    expect(ids.length).toBeGreaterThanOrEqual(min);
    const set = new Set(all());
    expect(ids.filter((id) => !set.has(id))).toEqual([]);
  };
/** XGrammar's negated classes let C0, C1 and F5-F7 through (not F8-FF): in Qwen3 the byte tokens 124, 125, 177-179. */
const INVALID_SEEN = [124, 125, 177, 178, 179];
const invalidUtf8 = (ids: number[]) => {
  expect(ids).toEqual(INVALID_SEEN);
  expect(ids.every((id) => INVALID_UTF8_IDS.includes(id))).toBe(true);
};
const padding = subsetOf(() => PADDING_IDS);
/** Continuation bytes 0x80-0xBF XGrammar allows after a lead byte where UTF-8 forbids them. */
const illFormed = (ids: number[]) => {
  expect(ids.length).toBeGreaterThan(0);
  for (const id of ids) expect(vocab.tokenBytes(id)[0]! & 0xc0, `${id} starts with a continuation byte`).toBe(0x80);
};
const specials = () => SPECIAL_IDS;

/** Continuation bytes XGrammar allows after these lead bytes, where UTF-8 forbids them (Table 3-7). */
const ILL_FORMED_AFTER: Record<number, [number, number]> = {
  0xe0: [0x80, 0x9f],
  0xed: [0xa0, 0xbf],
  0xf0: [0x80, 0x8f],
  0xf4: [0x90, 0xbf],
};

/** The ordinary token that is exactly this one byte. */
function byteToken(b: number): number {
  for (let id = 0; id < vocab.size; id++) {
    const t = vocab.tokenBytes(id);
    if (t.length === 1 && t[0] === b && vocab.kind(id) === TokenKind.Normal) return id;
  }
  throw new Error(`no single-byte token for 0x${b.toString(16)}`);
}

/** A token walk: strings cut at random (fixed seed), or the listed characters as one token per byte. */
function tokensOf(...parts: Array<string | { bytesOf: string }>): number[] {
  const rand = rng(7);
  return parts.flatMap((p) =>
    typeof p === "string" ? engines.tokenizations.random(p, rand) : [...Buffer.from(p.bytesOf, "utf8")].map(byteToken),
  );
}

async function runAndCheck(spec: CaseSpec, seed: number) {
  const stats = await runSpec(spec, seed);
  check(spec, stats);
  return stats;
}

// ---- (1) grammars from our IR, exported with toEbnf ----------------------------------------

const xmlValid = [
  "<tool_call>\n<function=read>\n<parameter=path>\n/etc/hosts\n</parameter>\n</function>\n</tool_call>",
  "<tool_call>\n<function=edit>\n<parameter=new_string>\n\n</parameter>\n<parameter=path>\n/a.ts\n</parameter>\n<parameter=old_string>\nlet x = <T>(a: T) => a; // </param\n</parameter>\n</function>\n</tool_call>",
  "<tool_call>\n<function=write>\n<parameter=path>/tmp/中文.txt</parameter><parameter=content>\n你好，世界 😀 <|im_start|> </parameter</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=read>\n<parameter=path>x</parameter></function>\n</tool_call>",
  "<tool_call>\n<function=write>\n<parameter=content>\n<tool_call>\n<function=read>\n</tool_call></parameter>\n<parameter=path>\nout.xml\n</parameter>\n</function>\n</tool_call>",
];

describe("XGrammar differential: IR grammars exported with toEbnf", () => {
  it("Qwen3-Coder XML tool calls (read/write/edit, exact </parameter> terminator)", async () => {
    await runAndCheck(
      {
        name: "xml tool calls",
        grammar: xmlToolCalls(FILE_TOOLS),
        valid: xmlValid,
        // A parameter value holding U+1F600, U+0800, U+D7FF and U+10FFFF, one token per byte: after
        // the lead bytes F0, E0, ED and F4 UTF-8 narrows the next byte, XGrammar does not.
        fixedWalks: () => [
          tokensOf(
            "<tool_call>\n<function=read>\n<parameter=path>",
            { bytesOf: "😀ࠀ\ud7ff\u{10ffff}" },
            "</parameter>\n</function>\n</tool_call>",
          ),
        ],
        randomWalks: 20,
        tokenizationWalks: 12,
        maxSteps: 60,
        expect: {
          "padding-bits": padding,
          // parameter values are free text: XGrammar lets the control tokens through as their text
          "special-token-as-text": specials,
          "invalid-utf8-bytes": invalidUtf8,
          "ill-formed-utf8": (ids) => {
            illFormed(ids);
            for (const [lo, hi] of Object.values(ILL_FORMED_AFTER))
              for (let b = lo; b <= hi; b++) expect(ids).toContain(byteToken(b));
          },
        },
      },
      101,
    );
  });

  it("until with self-overlapping terminators (abab, ]]>, aaa), exported with exactUtf8", async () => {
    await runAndCheck(
      {
        name: "until self-overlapping",
        grammar: seq(until("abab"), literal("|"), until("]]>"), literal(";"), optional(until("aaa"))),
        xgrammar: { exportOptions: { exactUtf8: true } },
        valid: [
          "abaabab|x]]]>;",
          "abab|]]>;aaa",
          "bbaabab|]]]]>;ba a aaa",
          "é😀abab|<|im_start|>]]>;",
          "aabaabab|]>]]>;baaa",
        ],
        fixedWalks: () => [tokensOf("abab|", { bytesOf: "😀ࠀ\ud7ff\u{10ffff}" }, "]]>;")],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        // exactUtf8 spells "any non-ASCII code point" as UTF-8 byte sequences: no invalid bytes, no
        // ill-formed sequences get through (the fixed walk splits characters into bytes to check).
        expect: { "special-token-as-text": specials },
      },
      102,
    );
  });

  it("until with non-ASCII and overlapping terminators (»», 中文中)", async () => {
    await runAndCheck(
      {
        name: "until non-ASCII terminators",
        grammar: seq(until("»»"), literal("|"), until("中文中"), literal(".")),
        valid: ["»»|中文中.", "a»b»»|中文文中文中.", "x»»|中中文中.", "😀 » x»»|<|vision_start|>中文x中文中."],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        // "any character but »" is not "any non-ASCII character", so toEbnf spells it as exact UTF-8
        // byte sequences: no invalid bytes get through, unlike the ASCII-only negated classes.
        expect: { "special-token-as-text": specials },
      },
      110,
    );
  });

  it("bounded until (maxLength)", async () => {
    await runAndCheck(
      {
        name: "bounded until",
        grammar: seq(literal("<a>"), until("</a>", { maxLength: 8 }), literal("\n"), until("<<!", { maxLength: 5 })),
        valid: ["<a>hello</a>\n<<<!", "<a>é中😀</a>\nab<<!", "<a></a\n</a>\n<<!", "<a><</a<</a>\n<!<<<!"],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 30,
        // at most 8 and 5 characters of text: too short for the text of a control token
        expect: { "invalid-utf8-bytes": invalidUtf8, "ill-formed-utf8": opt(illFormed) },
      },
      103,
    );
  });

  it("perm with separator, bounded repeats, alternations", async () => {
    await runAndCheck(
      {
        name: "perm/repeat/alt",
        grammar: seq(
          literal("{"),
          perm(
            [
              { node: seq(literal("a="), repeat(charClass(["0-9"]), 1, 3)), required: true },
              { node: seq(literal("b="), alt(literal("true"), literal("false"), literal("null"))), required: false },
              { node: seq(literal("c="), repeat(charClass(["a-z"]), 2, 5)), required: false },
              { node: seq(literal("d="), repeat(alt(literal("xy"), literal("z")), 0, 3)), required: true },
            ],
            literal(", "),
          ),
          literal("}"),
        ),
        valid: ["{a=1, d=}", "{d=xyz, c=abc, a=123, b=null}", "{b=true, a=0, d=zzz}", "{c=hello, d=xyxyxy, a=99}"],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        expect: {},
      },
      104,
    );
  });

  it("perm without separator (all optional), long bounded repeat", async () => {
    await runAndCheck(
      {
        name: "perm (no separator)/long repeat",
        grammar: seq(
          perm([
            { node: seq(literal("<x>"), repeat(charClass(["a-c"]), 0, 40), literal("</x>")), required: false },
            { node: literal("<y/>"), required: false },
            {
              node: seq(
                literal("<z>"),
                repeat(alt(literal("ab"), literal("abc"), literal("c")), 1, 6),
                literal("</z>"),
              ),
              required: false,
            },
          ]),
          literal("."),
        ),
        valid: [
          ".",
          "<y/><x></x>.",
          "<z>abcabab</z><x>abcabcabcabcabcabcabcabcabcabcabcabcabca</x><y/>.",
          "<x>cab</x><z>c</z>.",
        ],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        expect: {},
      },
      111,
    );
  });

  it("ASCII char classes, negated classes, escapes", async () => {
    const ident = seq(charClass(["A-Z", "a-z", "_"]), repeat(charClass(["A-Z", "a-z", "0-9", "_"]), 0, 12));
    const str = seq(
      literal('"'),
      star(alt(charClass(['"', "\\", [0, 0x1f]], true), seq(literal("\\"), charClass(['"', "\\", "n", "t"])))),
      literal('"'),
    );
    const arg = alt(ident, str, plus(charClass(["0-9"])));
    await runAndCheck(
      {
        name: "char classes",
        grammar: seq(ident, literal("("), optional(seq(arg, star(seq(literal(", "), arg)))), literal(")")),
        valid: ['f(x, "a\\"b", 42)', "g()", 'h_1("é✓ 😀\\n<|im_end|>\\t")', 'Sum(a1, b_2, "", 0, "\\\\")'],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        expect: {
          "special-token-as-text": specials,
          "invalid-utf8-bytes": invalidUtf8,
          "ill-formed-utf8": opt(illFormed),
        },
      },
      105,
    );
  });

  it("recursion via ref (nested expressions, maxRecursionDepth 3)", async () => {
    const grammar: Grammar = {
      root: ref("expr"),
      maxRecursionDepth: 3,
      rules: {
        expr: seq(ref("term"), star(seq(charClass(["+", "-"]), ref("term")))),
        term: alt(
          plus(charClass(["0-9"])),
          seq(literal("("), ref("expr"), literal(")")),
          seq(literal("["), optional(seq(ref("expr"), star(seq(literal(","), ref("expr"))))), literal("]")),
        ),
      },
    };
    await runAndCheck(
      {
        name: "recursion",
        grammar,
        valid: ["1+(2-3)", "((1))+[1,[2]]", "[]", "[(1+2),[3-[4]],5]-6", "(((7)))", "[[[1]]]"],
        randomWalks: 20,
        tokenizationWalks: 12,
        maxSteps: 40,
        expect: {},
      },
      106,
    );
  });

  it("non-ASCII classes (toEbnf's UTF-8 byte-sequence workaround) agree exactly", async () => {
    await runAndCheck(
      {
        name: "non-ASCII classes",
        grammar: seq(
          plus(charClass(["a-z", "à-ÿ", "α-ω", "一-龥"])),
          literal("="),
          repeat(charClass(["<", "é", [0x1f600, 0x1f64f], "\n"], true), 1, 12),
          literal("\n"),
        ),
        valid: ["héllo=wörld ✓ 中\n", "αβγ中文=a🚀b\n", "ÿ=x\n", "zè=日本語 ñ ü 🚀🌫\n"],
        fixedWalks: () => [tokensOf("x=", { bytesOf: "🚀ࠀ\ud7ff\u{10ffff}" }, "\n")],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 30,
        // No free text that could spell a control token ("<" is excluded), no invalid bytes, and
        // (fixed walk) no ill-formed continuation bytes: the classes are exact UTF-8 byte sequences.
        expect: {},
      },
      107,
    );
  });

  it("explained XGrammar bug: a non-ASCII class written directly reads as a byte class", async () => {
    // `[a-zà-ÿ]` in XGrammar 0.1.27 EBNF means {a-z} ∪ bytes 0xE0-0xFF, not the code points à-ÿ
    // (xgrammar #491/#848; the WASM build never got the fix). The classifier checks each differing
    // token against OUR engine on that byte reading (the model grammar below).
    const stats = await runAndCheck(
      {
        name: "non-ASCII class bug",
        grammar: seq(literal("<"), plus(charClass(["a-z", "à-ÿ"])), literal(">")),
        xgrammar: { ebnf: 'root ::= "<" [a-zà-ÿ]+ ">"\n' },
        model: seq(literal("<"), plus(alt(charClass(["a-z"]), byteClass([[0xe0, 0xff]]))), literal(">")),
        classifiers: [byteModelClassifier],
        valid: ["<abc>", "<hello>", "<x>"],
        randomWalks: 6,
        tokenizationWalks: 4,
        maxSteps: 12,
        expect: {
          "non-ascii-class-bug": (ids) => {
            // XGrammar allows the single-byte tokens 0xE0-0xFF (byte-level pieces "à".."ÿ": ids 156-187)…
            for (let b = 0xe0; b <= 0xff; b++) expect(ids).toContain(byteToken(b));
            // …and refuses real à-ÿ text such as "é" (UTF-8 C3 A9), which we allow.
            expect(ids).toContain(vocab.idOfPiece("Ã©")!);
            expect(ids.length).toBeGreaterThan(40);
          },
        },
      },
      108,
    );
    // Inside the class every step differs; only the first step ("<") and the steps after ">" agree.
    expect(stats.identicalSteps).toBeLessThanOrEqual(2 * stats.walks);
    expect(stats.stepsWith("non-ascii-class-bug")).toBe(stats.steps - stats.identicalSteps);
  });

  it("XGrammar's default stop tokens: <|im_end|> and the FIM end tokens are text to it, not stop tokens", async () => {
    // A separate TokenizerInfo with XGrammar's own stop-token detection (<|endoftext|> and "</s>").
    const ti = await xg.createTokenizerInfo(encoded);
    const comp = await xg.createCompiler(ti);
    const xgStops = new Set([128247, 151643]);
    try {
      const extra = EOG_IDS.filter((id) => !xgStops.has(id)); // 151645 <|im_end|>, 151662-151664
      expect(extra).toEqual([151645, 151662, 151663, 151664]);
      await runAndCheck(
        {
          name: "xml tool calls, XGrammar default stops",
          grammar: xmlToolCalls(FILE_TOOLS),
          valid: xmlValid,
          engines: () => ({ ...engines, xgStops }),
          xgCompiler: () => comp,
          randomWalks: 6,
          tokenizationWalks: 4,
          maxSteps: 40,
          expect: {
            // inside parameter values XGrammar takes our end-of-generation tokens as text too
            "special-token-as-text": [...SPECIAL_IDS, ...extra].sort((a, b) => a - b),
            // where the grammar may end we allow them as end of generation; XGrammar does not
            "stop-token-set": extra,
            "invalid-utf8-bytes": invalidUtf8,
            "ill-formed-utf8": opt(illFormed),
          },
        },
        109,
      );
    } finally {
      comp.dispose();
      ti.dispose();
    }
  });
});

// ---- (2) JSON schemas: our lowering, exported with toEbnf -----------------------------------

const json = (schema: unknown, options?: JsonSchemaOptions, maxRecursionDepth?: number): Grammar => ({
  root: jsonSchema(schema, options),
  ...(maxRecursionDepth !== undefined ? { maxRecursionDepth } : {}),
});
const jsonStrings = {
  "special-token-as-text": specials,
  "invalid-utf8-bytes": invalidUtf8,
  "ill-formed-utf8": opt(illFormed),
};

describe("XGrammar differential: JSON schemas lowered by us, exported with toEbnf", () => {
  it("strings with escapes, enums, nested object with required/optional properties (single whitespace)", async () => {
    await runAndCheck(
      {
        name: "json: tool args",
        grammar: json({
          type: "object",
          properties: {
            path: { type: "string" },
            mode: { enum: ["r", "w", "a+"] },
            opts: {
              type: "object",
              properties: { recursive: { type: "boolean" }, depth: { type: "integer" } },
              required: ["recursive"],
            },
          },
          required: ["path"],
        }),
        valid: [
          '{"path": "a\\"b\\\\c\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t", "mode": "a+"}',
          '{"opts": {"depth": -12,"recursive": false},"path": "中文 <|im_start|> 😀"}',
          '{"mode": "r", "path": "", "opts": {"recursive": true}}',
        ],
        randomWalks: 20,
        tokenizationWalks: 12,
        maxSteps: 40,
        expect: jsonStrings,
      },
      201,
    );
  });

  it("numbers and bounded integers (compact)", async () => {
    await runAndCheck(
      {
        name: "json: numbers",
        grammar: json(
          {
            type: "object",
            properties: {
              x: { type: "number" },
              y: { type: "number", minimum: 0 },
              n: { type: "integer", minimum: -5, maximum: 120 },
            },
            required: ["x", "n"],
          },
          { whitespace: "compact" },
        ),
        valid: [
          '{"x":-1.5e+3,"n":-5}',
          '{"n":120,"y":0.25,"x":0}',
          '{"x":12345678901234567890,"y":0E-0,"n":99}',
          '{"y":7,"n":0,"x":-0.0}',
        ],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 30,
        expect: {},
      },
      202,
    );
  });

  it("arrays with minItems/maxItems, nested arrays, bounded strings", async () => {
    await runAndCheck(
      {
        name: "json: arrays",
        grammar: json({
          type: "object",
          properties: {
            tags: { type: "array", items: { type: "string", maxLength: 4 }, minItems: 1, maxItems: 3 },
            matrix: { type: "array", items: { type: "array", items: { type: "integer" }, maxItems: 2 }, maxItems: 2 },
          },
          required: ["tags"],
        }),
        valid: [
          '{"tags": ["a", "bcde", "é\\n"]}',
          '{"matrix": [[1, 2],[]], "tags": [""]}',
          '{"tags": ["\\u0041"],"matrix": []}',
        ],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        // strings of at most 4 characters cannot hold the text of a control token
        expect: { "invalid-utf8-bytes": invalidUtf8, "ill-formed-utf8": opt(illFormed) },
      },
      203,
    );
  });

  it("anyOf, nullable, null, type lists", async () => {
    await runAndCheck(
      {
        name: "json: anyOf/nullable",
        grammar: json({
          type: "object",
          properties: {
            v: { anyOf: [{ type: "string" }, { type: "integer" }, { type: "boolean" }] },
            w: { type: "string", nullable: true },
            z: { type: "null" },
            e: { type: ["integer", "null"] },
          },
          required: ["v", "w"],
        }),
        valid: [
          '{"v": "x", "w": null}',
          '{"w": "y","v": 42, "z": null}',
          '{"e": null, "v": true, "w": "<tool_call>"}',
          '{"v": -0,"w": "", "e": 7}',
        ],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        expect: jsonStrings,
      },
      204,
    );
  });

  it("patterns and a recursive $ref (maxRecursionDepth 2)", async () => {
    await runAndCheck(
      {
        name: "json: pattern/$ref",
        grammar: json(
          {
            $defs: {
              node: {
                type: "object",
                properties: {
                  id: { type: "string", pattern: "^[a-z0-9]+(-[a-z0-9]+)*$" },
                  kids: { type: "array", items: { $ref: "#/$defs/node" }, maxItems: 2 },
                },
                required: ["id"],
              },
            },
            $ref: "#/$defs/node",
          },
          { whitespace: "compact" },
          2,
        ),
        valid: ['{"id":"a-1"}', '{"kids":[{"id":"x"},{"id":"y-2-z","kids":[]}],"id":"root"}', '{"id":"\\u0061b"}'],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        expect: {},
      },
      206,
    );
  });

  it('whitespace "any"', async () => {
    await runAndCheck(
      {
        name: "json: any whitespace",
        grammar: json(
          {
            type: "object",
            properties: { a: { type: "array", items: { type: "boolean" } }, b: { type: "null" } },
            required: ["a"],
          },
          { whitespace: "any" },
        ),
        valid: ['{ "a" : [ true ,false ] }', '{\n  "b": null,\n  "a": []\n}', '{"a":[true]\r\n,\t"b"\n:null}'],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        expect: {},
      },
      205,
    );
  });
});

// ---- (3) XGrammar's own JSON-schema compiler ------------------------------------------------
// Options chosen so its language is ours: one line, separators "," and ":" (= our "compact"), or
// any whitespace up to 32 characters per gap (= our "any"); strict mode (no extra properties).
// Its objects keep the schema's property order while ours accept any order, so these schemas have
// at most one property per object; its bounded strings (min/maxLength) allow raw controls and no
// escapes, so there are none. What remains differs in three named ways (checked classifiers):
// `-0` (ours accept it), lone surrogate \u escapes (XGrammar accepts them), \r in whitespace (ours).

describe("XGrammar differential: XGrammar's own JSON-schema compiler", () => {
  it("object with one string property (compact)", async () => {
    const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    await runAndCheck(
      {
        name: "xgrammar schema: string property",
        grammar: json(schema, { whitespace: "compact" }),
        xgrammar: { jsonSchema: schema, anyWhitespace: false },
        classifiers: [xgJsonSchemaClassifier],
        valid: [
          '{"path":"a\\"b\\\\c\\u00e9\\ud83d\\ude00 中文"}',
          '{"path":"<|im_start|>\\n\\t\\/"}',
          '{"path":""}',
          '{"path":"\\uD83D\\uDE00x\\uDBFF\\uDFFF"}',
        ],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        expect: {
          ...jsonStrings,
          "json-lone-surrogate-escape": (ids) => {
            expect(ids).toContain(vocab.idOfPiece('"')!); // closing the string right after a high surrogate
            expect(ids).toContain(vocab.idOfPiece("ude")!); // a low surrogate with no high one before it
          },
        },
      },
      301,
    );
  });

  it("array of integer | null | boolean with maxItems (compact)", async () => {
    const schema = {
      type: "array",
      items: { anyOf: [{ type: "integer" }, { type: "null" }, { type: "boolean" }] },
      maxItems: 4,
    };
    await runAndCheck(
      {
        name: "xgrammar schema: array",
        grammar: json(schema, { whitespace: "compact" }),
        xgrammar: { jsonSchema: schema, anyWhitespace: false },
        classifiers: [xgJsonSchemaClassifier],
        valid: ["[-1,null,true,0]", "[]", "[-20,-3]", "[false,123456789,-7,null]"],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 30,
        expect: { "json-minus-zero": (ids) => expect(ids).toContain(vocab.idOfPiece("0")!) },
      },
      302,
    );
  });

  it("nested single-property objects, enum, number array (compact)", async () => {
    const schema = {
      type: "object",
      properties: {
        cfg: { type: "object", properties: { mode: { enum: ["r", "w", "a+", 1, null, true] } }, required: ["mode"] },
      },
    };
    const schema2 = {
      type: "object",
      properties: { scale: { type: "array", items: { type: "number" }, minItems: 1, maxItems: 3 } },
      required: ["scale"],
    };
    await runAndCheck(
      {
        name: "xgrammar schema: nested/enum",
        grammar: json(schema, { whitespace: "compact" }),
        xgrammar: { jsonSchema: schema, anyWhitespace: false },
        classifiers: [xgJsonSchemaClassifier],
        valid: ['{"cfg":{"mode":"a+"}}', "{}", '{"cfg":{"mode":null}}', '{"cfg":{"mode":1}}'],
        randomWalks: 12,
        tokenizationWalks: 6,
        maxSteps: 30,
        expect: {},
      },
      303,
    );
    await runAndCheck(
      {
        name: "xgrammar schema: numbers",
        grammar: json(schema2, { whitespace: "compact" }),
        xgrammar: { jsonSchema: schema2, anyWhitespace: false },
        classifiers: [xgJsonSchemaClassifier],
        valid: ['{"scale":[-0.5,1e10,3]}', '{"scale":[0]}', '{"scale":[-0,12.75E-3]}'],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 30,
        expect: { "json-number-bound": (ids) => expect(ids).toContain(vocab.idOfPiece("9")!) },
      },
      304,
    );
  });

  it("any whitespace (max 32 per gap)", async () => {
    const schema = {
      type: "object",
      properties: { ids: { type: "array", items: { type: "integer" }, maxItems: 3 } },
      required: ["ids"],
    };
    await runAndCheck(
      {
        name: "xgrammar schema: any whitespace",
        grammar: json(schema, { whitespace: "any" }),
        xgrammar: { jsonSchema: schema, anyWhitespace: true, maxWhitespaceCnt: 32 },
        classifiers: [xgJsonSchemaClassifier],
        valid: ['{ "ids" : [ 1 , -2 ] }', '{\n  "ids": [\n    3\n  ]\n}', '{"ids":[]}', '{\t"ids":\t[-30,0,7]\n}'],
        randomWalks: 20,
        tokenizationWalks: 10,
        maxSteps: 40,
        expect: {
          "json-minus-zero": (ids) => expect(ids).toContain(vocab.idOfPiece("0")!),
          "json-whitespace-cr": (ids) => expect(ids).toContain(vocab.idOfPiece("č")!), // "\r" in byte-level spelling
        },
      },
      305,
    );
  });
});

describe("xgrammar-diff classifiers", () => {
  it("lone surrogate escapes", () => {
    expect(hasLoneSurrogateEscape('"\\ud83d\\ude00"')).toBe(false);
    expect(hasLoneSurrogateEscape('"\\ud83d\\ud')).toBe(false);
    expect(hasLoneSurrogateEscape('"\\ud83d\\u')).toBe(false);
    expect(hasLoneSurrogateEscape('"\\ud83d\\')).toBe(false);
    expect(hasLoneSurrogateEscape('"\\ud83d')).toBe(false);
    expect(hasLoneSurrogateEscape('"\\ud83d\\u0041')).toBe(true);
    expect(hasLoneSurrogateEscape('"\\ud83d\\ud8')).toBe(true);
    expect(hasLoneSurrogateEscape('"\\ud83d"')).toBe(true);
    expect(hasLoneSurrogateEscape('"\\ud83d\\n')).toBe(true);
    expect(hasLoneSurrogateEscape('"\\ude00')).toBe(true);
    expect(hasLoneSurrogateEscape('"\\udc')).toBe(true);
    expect(hasLoneSurrogateEscape('"\\ud')).toBe(false);
    expect(hasLoneSurrogateEscape('"\\\\ude00')).toBe(false);
    expect(hasLoneSurrogateEscape('"\\ud83')).toBe(false);
  });

  it("\\r outside JSON strings", () => {
    expect(crOnlyOutsideStrings('{"a":1', ",\r\n")).toBe(true);
    expect(crOnlyOutsideStrings('{"a":"x', "\r")).toBe(false);
    expect(crOnlyOutsideStrings('{"a":"x\\"', "\r")).toBe(false);
    expect(crOnlyOutsideStrings('{"a":"x\\\\', '"\r')).toBe(true);
  });

  it("well-formed UTF-8 prefixes", () => {
    const ok = (...b: number[]) => isWellFormedUtf8Prefix(Uint8Array.from(b));
    expect(ok(0xf0, 0x9f, 0x98, 0x80)).toBe(true);
    expect(ok(0xf0)).toBe(true);
    expect(ok(0xf0, 0x8f)).toBe(false); // overlong
    expect(ok(0xe0, 0x9f)).toBe(false); // overlong
    expect(ok(0xed, 0xa0)).toBe(false); // surrogate
    expect(ok(0xf4, 0x90)).toBe(false); // above U+10FFFF
    expect(ok(0xc0, 0x80)).toBe(false);
    expect(ok(0x80)).toBe(false);
  });
});

// Raw text (an XML parameter's value) is the string grammar of its schema cut at the value's close.
// 1. Its lowering is the string grammar itself, no larger than the JSON string's: the product with
//    the close's automaton is built natively over bytes (an until node with a body), not multiplied
//    out in the IR (where `{"anyOf": [{"maxLength": 2}, {"minLength": 4}]}` lowered to 37,000 nodes
//    for qwen3-coder's close against 136 for the JSON string, and took seconds to compile).
// 2. The native product accepts exactly what the regular expression the exports write accepts
//    (raw-text-product.ts, the product built part by part in TS): complete texts and beginnings,
//    on generated texts full of the close's pieces, padding newlines and the schemas' characters.
//    The verdicts against ajv and the parser, in every dialect, are the keyword × dialect matrix's.
import { describe, expect, it } from "vitest";
import { dialects, getDialect } from "../../src/index.js";
import type { Grammar, GrammarNode } from "../../src/grammar/ir.js";
import { jsonSchemaToIR } from "../../src/grammar/json-schema/index.js";
import { countNodes } from "../../src/grammar/json-schema/nodes.js";
import { CloseAutomaton } from "../../src/grammar/json-schema/raw-close.js";
import { expandUntilBodies } from "../../src/grammar/export/until-body.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { timeoutForMeasured } from "../support/timeouts.js";

const SCHEMAS: Array<[string, Record<string, unknown>]> = [
  ["anyOf maxLength 2 | minLength 4", { type: "string", anyOf: [{ maxLength: 2 }, { minLength: 4 }] }],
  ['pattern "a+"', { type: "string", pattern: "a+" }],
  ['pattern "a+b"', { type: "string", pattern: "a+b" }],
  ['pattern "^[0-9]{4}$"', { type: "string", pattern: "^[0-9]{4}$" }],
  ['pattern "^https?://.+$"', { type: "string", pattern: "^https?://.+$" }],
  ["minLength 2, maxLength 6", { type: "string", minLength: 2, maxLength: 6 }],
  ["enum", { type: "string", enum: ["red", "green", "blue", "a\n", "\n"] }],
  ['pattern "^<.*>$"', { type: "string", pattern: "^<.*>$" }],
  ['pattern "^(</?[a-z]+>)*$"', { type: "string", pattern: "^(</?[a-z]+>)*$" }],
  ["anyOf maxLength 3 | pattern ^<", { type: "string", anyOf: [{ maxLength: 3 }, { pattern: "^<" }] }],
  ["pattern with a newline", { type: "string", pattern: "^a?\\n" }],
];

const XML = dialects.filter((d) => getDialect(d).call.kind === "xml");
const closeOf = (d: string) => getDialect(d).call as unknown as { valueClose: string; trimNewline: boolean };
// Each XML dialect's close once (minimax-m2 writes seed-oss's), and a short close met more often.
const RAWS = [
  ...XML.map((d) => ({ name: d, close: closeOf(d).valueClose, trimNewline: closeOf(d).trimNewline })).filter(
    (r, i, all) => all.findIndex((o) => o.close === r.close && o.trimNewline === r.trimNewline) === i,
  ),
  { name: "</p> with padding", close: "</p>", trimNewline: true },
  { name: "</p>", close: "</p>", trimNewline: false },
];

const size = (g: { root: GrammarNode; rules: Record<string, GrammarNode> }) =>
  countNodes(g.root) + Object.values(g.rules).reduce((n, r) => n + countNodes(r), 0);

describe("the raw-text lowering is the string grammar", () => {
  it.each(SCHEMAS)("%s: the JSON string's grammar nodes at most (and the until around them)", (_n, schema) => {
    const json = size(jsonSchemaToIR(schema));
    for (const r of XML) {
      const raw = { close: closeOf(r).valueClose, trimNewline: closeOf(r).trimNewline };
      expect({ dialect: r, nodes: size(jsonSchemaToIR(schema, { syntax: "raw", raw })) }).toEqual({
        dialect: r,
        nodes: expect.toSatisfy((n: number) => n <= json + 1),
      });
    }
  });
});

/** A deterministic generator (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Texts of a raw value and its close: the close's prefixes, the close, newlines, the schemas' characters. */
function texts(close: string, count: number, seed: number): string[] {
  const r = rng(seed);
  const pieces = [
    ...Array.from({ length: close.length + 1 }, (_, i) => close.slice(0, i)),
    "\n",
    "\n\n",
    "a",
    "aa",
    "ab",
    "b",
    "0",
    "1234",
    "<",
    ">",
    "</",
    "<x>",
    "é",
    "😀",
    "https://",
    "red",
    " ",
  ];
  const pick = () => pieces[Math.floor(r() * pieces.length)]!;
  const out = ["", close, `\n${close}`, `\n\n${close}`, `a${close}`, `\na\n${close}`];
  while (out.length < count) {
    let t = "";
    const n = Math.floor(r() * 7);
    for (let i = 0; i < n; i++) t += pick();
    const end = r();
    out.push(end < 0.7 ? t + close : end < 0.85 ? t : `${t}${close}${pick()}`);
  }
  return out;
}

// The slowest case, qwen3-coder's close with pattern "a+" (the exported expression's compile most of
// it), took 35 s on 2 cores at load average 11 (15 s at 7).
const DIFFERENTIAL_TIMEOUT = timeoutForMeasured(35_000);

describe("the native product accepts what the exported regular expression accepts", () => {
  for (const raw of RAWS)
    it.each(SCHEMAS)(
      `${raw.name}: %s`,
      (_n, schema) => {
        const g = jsonSchemaToIR(schema, { syntax: "raw", raw: { close: raw.close, trimNewline: raw.trimNewline } });
        const regex: Grammar = expandUntilBodies(g);
        const native = grammarAcceptor(g);
        const exported = grammarAcceptor(regex);
        try {
          const wrong: string[] = [];
          const all = texts(raw.close, 600, 31);
          for (const t of all) {
            for (const complete of [true, false])
              if (native(t, complete) !== exported(t, complete))
                wrong.push(
                  `${JSON.stringify(t)} ${complete ? "complete" : "beginning"}: native ${native(t, complete)}`,
                );
          }
          expect(wrong).toEqual([]);
          // both verdicts are met, complete texts and beginnings
          expect(new Set(all.map((t) => native(t)))).toEqual(new Set([true, false]));
        } finally {
          native.dispose();
          exported.dispose();
        }
      },
      DIFFERENTIAL_TIMEOUT,
    );
});

describe("the close's automaton", () => {
  it.each(RAWS.map((r) => [r.name, r] as const))("%s: one character steps as a class of it does", (_n, raw) => {
    const a = new CloseAutomaton({ close: raw.close, trimNewline: raw.trimNewline });
    const cps = [...new Set([...raw.close, "\n", "a", "<", "é"].map((c) => c.codePointAt(0)!))];
    const k = [...raw.close].length;
    for (let first = 0; first < 3; first++)
      for (let q = -1; q < k; q++)
        for (const cp of cps) {
          const s = a.state(q, first);
          expect({ q, first, cp, to: a.stepChar(s, cp) }).toEqual({ q, first, cp, to: a.step(s, [[cp, cp]])[0]?.[1] });
        }
  });
});

describe("a counted repetition in the body keeps its count", () => {
  // 2,000 digits: past the native engine's count of copies a repetition may be built with
  for (const raw of RAWS.slice(0, 3))
    it(`${raw.name}: pattern "^[0-9]{2000}$" takes 2,000 digits, not 1,999 or 2,001`, () => {
      const g = jsonSchemaToIR(
        { type: "string", pattern: "^[0-9]{2000}$" },
        { syntax: "raw", raw: { close: raw.close, trimNewline: raw.trimNewline } },
      );
      const accepts = grammarAcceptor(g);
      try {
        const digits = (n: number) => "7".repeat(n) + raw.close;
        expect([1999, 2000, 2001].map((n) => accepts(digits(n)))).toEqual([false, true, false]);
        expect(accepts("7".repeat(2000), false)).toBe(true);
        expect(accepts("7".repeat(2001), false)).toBe(false);
      } finally {
        accepts.dispose();
      }
    });
});

describe("an until node with a body, written by hand", () => {
  const until = (body: GrammarNode, more: Record<string, unknown> = {}): GrammarNode =>
    ({ type: "until", terminator: "</p>", body, ...more }) as GrammarNode;
  const calls = (u: GrammarNode): Grammar => ({
    // the first use is built with the grammar, the second when a walk reaches it
    root: {
      type: "alt",
      items: [
        {
          type: "seq",
          items: [
            { type: "literal", text: "x" },
            { type: "ref", name: "r" },
          ],
        },
        {
          type: "seq",
          items: [
            { type: "literal", text: "z" },
            { type: "ref", name: "r" },
          ],
        },
        { type: "literal", text: "y" },
      ],
    },
    rules: { r: { type: "seq", items: [u, { type: "literal", text: "!" }] } },
  });

  it("a body whose every text holds the terminator accepts nothing: no beginning of it either, built first or later", () => {
    const dead = grammarAcceptor(calls(until({ type: "literal", text: "a</p>b" })));
    const live = grammarAcceptor(calls(until({ type: "literal", text: "a</pb" })));
    try {
      for (const t of ["x", "z"]) {
        expect({ t, dead: dead(t, false), live: live(t, false) }).toEqual({ t, dead: false, live: true });
        expect(live(`${t}a</pb</p>!`)).toBe(true);
      }
      expect([dead("y"), live("y")]).toEqual([true, true]);
    } finally {
      dead.dispose();
      live.dispose();
    }
  });

  it.each([
    ["length bounds", until({ type: "literal", text: "a" }, { maxLength: 3 }), /takes no length bounds/],
    [
      "a terminator whose first byte recurs",
      { ...until({ type: "literal", text: "a" }), terminator: "<a<" },
      /first byte/,
    ],
    [
      "an any-order set in the body",
      until({ type: "perm", items: [{ node: { type: "literal", text: "a" }, required: true }] }),
      /must be text/,
    ],
  ])("%s: refused by the compiler, naming the node", (_n, node, message) => {
    expect(() => grammarAcceptor(node as GrammarNode)).toThrow(message);
  });
});

// A grammar that accepts no string at all is found before any native work (src/grammar/productive.ts),
// named: compileGrammar, toEbnf and toLark throw EmptyGrammarError naming a rule that only leads back
// to itself; a JSON schema whose `$ref` recursion has no way out is an InvalidSchemaError naming that
// `$ref`, in every dialect, and the parser refuses such tools when it is made. The analysis agrees
// with the native compiler's own verdict ("the grammar accepts nothing") on random grammars.
import { describe, expect, it } from "vitest";
import { alt, literal, optional, perm, ref, repeat, seq } from "../../src/grammar/builders.js";
import { compileGrammar, compileGrammarAsync } from "../../src/grammar/compile.js";
import { EmptyGrammarError } from "../../src/grammar/errors.js";
import { toEbnf } from "../../src/grammar/export/ebnf.js";
import { toLark } from "../../src/grammar/export/lark.js";
import type { Grammar, GrammarNode } from "../../src/grammar/ir.js";
import { InvalidSchemaError, UnsupportedSchemaError, jsonSchemaToIR } from "../../src/grammar/json-schema/index.js";
import { Productivity } from "../../src/grammar/productive.js";
import { buildToolGrammar } from "../../src/dialects/grammar.js";
import { getDialect } from "../../src/dialects/index.js";
import { ToolCallStreamParser } from "../../src/parser/stream.js";
import { loadNative } from "../../src/native.js";
import { qwen3 } from "../support/vocabs.js";

const selfRef = { type: "object", properties: { x: { $ref: "#/properties/x" } }, required: ["x"] };
const tool = (parameters: unknown) => [{ type: "function" as const, function: { name: "f", parameters } }];

describe("grammars that accept nothing", () => {
  const loop: Grammar = { root: seq(literal("a"), ref("x")), rules: { x: seq(literal("["), ref("x"), literal("]")) } };

  it("compileGrammar, toEbnf and toLark throw EmptyGrammarError naming the rule", () => {
    for (const f of [() => compileGrammar(loop, qwen3()), () => toEbnf(loop), () => toLark(loop)]) {
      const e = (() => {
        try {
          f();
        } catch (err) {
          return err;
        }
      })();
      expect(e).toBeInstanceOf(EmptyGrammarError);
      expect((e as Error).message).toMatch(/^the grammar accepts nothing: .*\(rule "x" is one\)/);
    }
  });

  it("compileGrammarAsync rejects with the same EmptyGrammarError", async () => {
    const e = await compileGrammarAsync(loop, qwen3()).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(EmptyGrammarError);
    expect((e as Error).message).toMatch(/^the grammar accepts nothing: .*\(rule "x" is one\)/);
  });

  it("a recursion with a way out compiles; so does one only an optional part needs", () => {
    const list: Grammar = {
      root: ref("l"),
      rules: { l: alt(literal("x"), seq(literal("["), ref("l"), literal("]"))) },
    };
    expect(() => compileGrammar(list, qwen3())).not.toThrow();
    const unused: Grammar = { root: seq(literal("a"), optional(ref("x"))), rules: loop.rules };
    expect(() => compileGrammar(unused, qwen3())).not.toThrow();
    expect(() =>
      compileGrammar(
        perm([
          { node: ref("x"), required: false },
          { node: literal("b"), required: true },
        ]) as never,
        qwen3(),
      ),
    ).toThrow(/undefined rule/);
  });

  // The oracle: the native compiler builds the start state and says "the grammar accepts nothing"
  // exactly when no path reaches a string. Random grammars of 4 rules over refs, alternatives
  // (some of nothing), repeats and any-order sets.
  it("agrees with the native compiler on 2,000 random grammars", () => {
    let seed = 12345;
    const rnd = (n: number) => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n;
    };
    const names = ["a", "b", "c", "d"];
    const node = (depth: number): GrammarNode => {
      const k = Math.floor(rnd(depth > 2 ? 3 : 8));
      switch (k) {
        case 0:
          return literal(String.fromCharCode(97 + Math.floor(rnd(3))));
        case 1:
          return ref(names[Math.floor(rnd(4))]!);
        case 2:
          return alt();
        case 3:
          return seq(node(depth + 1), node(depth + 1));
        case 4:
          return alt(node(depth + 1), node(depth + 1));
        case 5:
          return repeat(node(depth + 1), Math.floor(rnd(2)), 2);
        case 6:
          return perm([
            { node: node(depth + 1), required: rnd(2) < 1 },
            { node: node(depth + 1), required: rnd(2) < 1 },
          ]);
        default:
          return seq(literal("("), node(depth + 1), literal(")"));
      }
    };
    const addon = loadNative();
    const vocab = qwen3();
    let empty = 0;
    for (let i = 0; i < 2000; i++) {
      const rules = Object.fromEntries(names.map((n) => [n, node(0)]));
      const g: Grammar = { root: node(0), rules, maxRecursionDepth: Math.floor(rnd(3)) };
      const ours = new Productivity(rules).accepts(g.root);
      let native = true;
      try {
        new addon.NativeGrammar(vocab.native, JSON.stringify(g), { precomputeStates: 1 }).dispose();
      } catch (e) {
        if (!/accepts nothing/.test((e as Error).message)) throw e;
        native = false;
      }
      if (!native) empty++;
      expect(ours, JSON.stringify(g)).toBe(native);
    }
    expect(empty).toBeGreaterThan(100); // the sample holds many of both
    expect(empty).toBeLessThan(1900);
  });
});

describe("schemas that match no value, named", () => {
  const cases: Array<[string, unknown, RegExp]> = [
    [
      "a property that is its own $ref",
      selfRef,
      /^P\.properties\.x\.\$ref: "\$ref": "#\/properties\/x" matches no value/,
    ],
    [
      "an anyOf whose only branch is the $ref",
      { type: "object", properties: { x: { anyOf: [{ $ref: "#/properties/x" }] } }, required: ["x"] },
      /^P\.properties\.x\.anyOf\[0\]\.\$ref: "\$ref": "#\/properties\/x" matches no value/,
    ],
    [
      "two $defs naming each other",
      { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
      /^P\.\$ref: "\$ref": "#\/\$defs\/a" matches no value/,
    ],
    ["the root naming itself", { $ref: "#" }, /^P\.\$ref: "\$ref": "#" matches no value/],
    [
      "a non-empty array of itself",
      { $defs: { n: { type: "array", items: { $ref: "#/$defs/n" }, minItems: 1 } }, $ref: "#/$defs/n" },
      /^P\.\$ref: "\$ref": "#\/\$defs\/n" matches no value/,
    ],
    [
      "the required $ref blamed, not an optional one",
      {
        type: "object",
        $defs: { a: { $ref: "#/$defs/a" }, b: { $ref: "#/$defs/b" } },
        properties: { x: { $ref: "#/$defs/a" }, y: { $ref: "#/$defs/b" } },
        required: ["y"],
      },
      /^P\.properties\.y\.\$ref: "\$ref": "#\/\$defs\/b" matches no value/,
    ],
    ["an empty enum", { type: "object", properties: { x: { enum: [] } }, required: ["x"] }, /enum.*non-empty array/],
    [
      "a required property that is false",
      { type: "object", properties: { x: false }, required: ["x"] },
      /"x" is required but its schema matches no value/,
    ],
    [
      "a string type next to an allOf of integers",
      { type: "object", properties: { x: { type: "string", allOf: [{ type: "integer" }] } }, required: ["x"] },
      /"x" is required but its schema matches no value/,
    ],
  ];
  it.each(cases)("%s", (_name, schema, message) => {
    expect(() => jsonSchemaToIR(schema, {}, "P")).toThrow(InvalidSchemaError);
    expect(() => jsonSchemaToIR(schema, {}, "P")).toThrow(message);
  });

  it("recursions with a way out are lowered", () => {
    for (const schema of [
      { type: "object", properties: { x: { $ref: "#/properties/x" } } },
      { $defs: { n: { type: "array", items: { $ref: "#/$defs/n" } } }, $ref: "#/$defs/n" },
      { $defs: { n: { type: "object", properties: { next: { $ref: "#/$defs/n" } } } }, $ref: "#/$defs/n" },
    ])
      expect(() => jsonSchemaToIR(schema, {}, "P")).not.toThrow();
  });
});

describe("every dialect refuses such tools, in the grammar and in the parser", () => {
  const dialects = ["hermes", "qwen3-coder", "lfm2", "gpt-oss", "mistral", "glm-4.5"];
  const bad: Array<[string, unknown, new (...a: never[]) => Error]> = [
    [
      "a required self-$ref'd object",
      { type: "object", properties: { x: { type: "object", $ref: "#/properties/x" } }, required: ["x"] },
      InvalidSchemaError,
    ],
    ["an empty enum", { type: "object", properties: { x: { enum: [] } }, required: ["x"] }, InvalidSchemaError],
    ["a required false", { type: "object", properties: { x: false }, required: ["x"] }, InvalidSchemaError],
    ["not", { type: "object", properties: { x: { not: {} } }, required: ["x"] }, UnsupportedSchemaError],
  ];
  for (const d of dialects)
    it.each(bad)(`${d}: %s`, (_name, parameters, cls) => {
      const o = { dialect: getDialect(d), tools: tool(parameters), toolChoice: "required" as const };
      expect(() => compileGrammar(buildToolGrammar(o), qwen3())).toThrow(cls);
      expect(() => new ToolCallStreamParser(o)).toThrow(cls);
    });

  it("an optional false parameter is left out of XML and Python calls: a call that writes it is invalid", () => {
    for (const d of ["qwen3-coder", "lfm2"]) {
      const o = {
        dialect: getDialect(d),
        tools: tool({ type: "object", properties: { x: false, y: { type: "integer" } } }),
      };
      expect(() => compileGrammar(buildToolGrammar(o), qwen3())).not.toThrow();
      const text =
        d === "lfm2"
          ? "<|tool_call_start|>[f(x=1)]<|tool_call_end|>"
          : "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>";
      const p = new ToolCallStreamParser(o);
      p.feed(text);
      const r = p.end("stop");
      expect(r.toolCalls).toEqual([]);
      expect(r.incomplete[0]?.reason).toMatch(/false: no value is allowed/);
    }
  });
});

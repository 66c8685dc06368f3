// A grammar is built as walks reach it (native/core/nfa_check.cpp, NfaBuilder::Impl::deferTails):
// rules, any-order sets and the tails of sequences wait for the first walk that enters them. That
// must change no mask and no error: over walks of every client tool set (test/fixtures/client-tools)
// in every dialect, each step's mask, whether the output may end, and the forced bytes equal those of
// the same grammar built eagerly ("eager": true, the builder before deferral); and a malformed node,
// or a grammar past a limit, is refused at compile time wherever it stands, with the eager build's
// message.
import { describe, expect, it } from "vitest";
import { functionTools, readClientToolFixtures } from "../../scripts/corpus/client-tools.mjs";
import {
  buildToolGrammar,
  compileGrammar,
  dialects,
  type Grammar,
  type GrammarMatcher,
  jsonSchemaToIR,
  lowerJsonSchemas,
} from "../../src/index.js";
import { loadNative } from "../../src/native.js";
import { timeoutForMeasured } from "../support/timeouts.js";
import { qwen3 } from "../support/vocabs.js";
import { walkStart } from "../support/walks.js";

const FIXTURES = readClientToolFixtures();
/** Tokens per walk. */
const WALK_TOKENS = 40;
/**
 * Per set and dialect, walks start at the answer's start and at the call trigger; and from the
 * k-th tool's name in every STRIDE-th dialect from the k-th on, so each tool's arguments are walked
 * in a few dialects and every dialect walks a share of the tools.
 */
const STRIDE = 4;
// Measured on 2 cores: a tool set in every dialect took at most 22 s (playwright's) at load average
// 10, and 44–98 s (playwright's, qwen-code's) at load 9–14 beside other heavy jobs.
const SET_TIMEOUT_MS = timeoutForMeasured(98_000);

/** The set's function tools that compile alone in every dialect (the corpus's refusals left out, as bench:corpus does). */
function compilable(id: string) {
  const fixture = FIXTURES.find(([name]) => name === id)![1];
  return functionTools(fixture).filter((t) =>
    dialects.every((dialect) => {
      try {
        lowerJsonSchemas(buildToolGrammar({ dialect, tools: [t], toolChoice: "auto" }));
        return true;
      } catch {
        return false;
      }
    }),
  );
}

/** Steps `a` and `b` through `tokens`, comparing what each offers at every step; the first difference, or null. */
function differ(a: GrammarMatcher, b: GrammarMatcher, tokens: ArrayLike<number>): string | null {
  const ma = a.allocateBitmask(),
    mb = b.allocateBitmask();
  for (let i = 0; ; i++) {
    a.fillNextTokenBitmask(ma);
    b.fillNextTokenBitmask(mb);
    const word = ma.findIndex((w, k) => w !== mb[k]);
    if (word >= 0) return `step ${i}: masks differ at word ${word} (${ma[word]} vs ${mb[word]})`;
    if (a.isComplete() !== b.isComplete()) return `step ${i}: isComplete ${a.isComplete()} vs ${b.isComplete()}`;
    if (Buffer.compare(a.forcedBytes(64), b.forcedBytes(64)) !== 0) return `step ${i}: forced bytes differ`;
    if (i === tokens.length) return null;
    const ta = a.acceptToken(tokens[i]!),
      tb = b.acceptToken(tokens[i]!);
    if (ta !== tb) return `step ${i}: token ${tokens[i]} accepted ${ta} vs ${tb}`;
    if (!ta) return null;
  }
}

describe("a grammar built as walks reach it", () => {
  it("builds less at compile time than the eager build", () => {
    const tools = compilable("claude-code-2.1.197");
    const g = buildToolGrammar({ dialect: "hermes", tools, toolChoice: "auto" });
    // The start state's mask alone (no background precompute to walk on): what the compile built.
    const lazy = compileGrammar(g, qwen3(), { precomputeStates: 1 });
    const eager = compileGrammar({ ...g, eager: true } as Grammar, qwen3(), { precomputeStates: 1 });
    expect(lazy.memoryBytes).toBeLessThan(eager.memoryBytes / 2);
    lazy.dispose();
    eager.dispose();
  });

  for (const [id] of FIXTURES)
    it(
      `gives the eager build's masks over walks of ${id} in every dialect`,
      () => {
        const tools = compilable(id);
        const vocab = qwen3();
        const failures: string[] = [];
        let steps = 0;
        for (const [d, dialect] of dialects.entries()) {
          const g = buildToolGrammar({ dialect, tools, toolChoice: "auto" });
          const lazy = compileGrammar(g, vocab).createMatcher();
          const eager = compileGrammar({ ...g, eager: true } as Grammar, vocab).createMatcher();
          const options = { dialect, tools, toolChoice: "auto" as const };
          const trigger = walkStart(options);
          const named = tools.filter((_, k) => (k + d) % STRIDE === 0).map((t) => walkStart(options, t.function.name));
          for (const [k, head] of ["", trigger, ...named].entries()) {
            // A call's head stands at the answer's start, or (the generic dialect's envelope) after the trigger.
            lazy.reset();
            const start = lazy.acceptString(head) ? head : trigger + head;
            lazy.reset();
            if (!lazy.acceptString(start)) throw new Error(`${dialect}: the grammar refuses ${JSON.stringify(start)}`);
            const [walk] = lazy.randomWalks({ seed: k, maxTokens: WALK_TOKENS, endProbability: 0.1 });
            lazy.reset();
            eager.reset();
            const both = lazy.acceptString(start) && eager.acceptString(start);
            const diff = both ? differ(lazy, eager, walk!.tokens) : "the eager build refuses the start";
            if (diff) failures.push(`${dialect}, from ${JSON.stringify(start)}: ${diff}`);
            steps += walk!.tokens.length;
          }
          lazy.dispose();
          eager.dispose();
        }
        expect(failures).toEqual([]);
        expect(steps).toBeGreaterThan(((dialects.length * tools.length) / STRIDE) * 4);
      },
      SET_TIMEOUT_MS,
    );

  const lit = (text: string) => ({ type: "literal", text });

  it("allows no step into a part that accepts nothing, though the part waits behind a placeholder", () => {
    // After "a", "b" leads only on to "yy" and then a class of surrogates (no UTF-8 text): "c" is the
    // one way on. (The any-order set makes the part after "b" large enough to wait.)
    const surrogates = { type: "charClass", ranges: [[0xd800, 0xdfff]] };
    const rest = { type: "perm", items: [{ node: lit("x"), required: true }] };
    const g = {
      root: { type: "seq", items: [lit("a"), { type: "ref", name: "r" }] },
      rules: { r: { type: "alt", items: [{ type: "seq", items: [lit("b"), lit("yy"), surrogates, rest] }, lit("c")] } },
    } as unknown as Grammar;
    for (const grammar of [g, { ...g, eager: true } as Grammar]) {
      const m = compileGrammar(grammar, qwen3()).createMatcher();
      expect(m.acceptString("a")).toBe(true);
      expect(m.acceptString("b")).toBe(false);
      expect(m.acceptString("c")).toBe(true);
      m.dispose();
    }
  });
  it("builds an intersection the same where its rule is reached through a placeholder", () => {
    // A host name (its pattern ∩ at most 253 characters: an intersection whose items refer to small
    // rules) in a rule used twice, and in a recursive rule: the later uses wait behind placeholders,
    // whose product is built when the compile asks whether they match anything.
    const host = jsonSchemaToIR({ type: "string", format: "hostname" });
    const twice = { root: { type: "seq", items: [host.root, lit(","), host.root] }, rules: host.rules };
    const list = {
      root: { type: "ref", name: "list" },
      rules: {
        ...host.rules,
        list: {
          type: "alt",
          items: [host.root, { type: "seq", items: [host.root, lit(","), { type: "ref", name: "list" }] }],
        },
      },
    };
    const name = `"${"a".repeat(63)}.b"`;
    for (const g of [twice, list] as unknown as Grammar[]) {
      const lazy = compileGrammar(g, qwen3()).createMatcher();
      const eager = compileGrammar({ ...g, eager: true } as Grammar, qwen3()).createMatcher();
      for (const m of [lazy, eager]) {
        expect(m.acceptString(`${name},${name}`)).toBe(true);
        expect(m.isComplete()).toBe(true);
        expect(m.acceptString(`,"${"a".repeat(64)}"`)).toBe(false);
        m.reset();
      }
      const [walk] = lazy.randomWalks({ seed: 1, maxTokens: WALK_TOKENS, endProbability: 0.05 });
      lazy.reset();
      expect(differ(lazy, eager, walk!.tokens)).toBeNull();
      lazy.dispose();
      eager.dispose();
    }
  });

  /** `bad` deep inside: after bytes, in a rule's sequence tail, in a choice: where a deferred build waits. */
  const deep = (bad: unknown) => ({
    root: { type: "seq", items: [lit("a"), { type: "ref", name: "r" }] },
    rules: {
      r: {
        type: "seq",
        items: [lit("b"), { type: "alt", items: [lit("c"), { type: "seq", items: [lit("d"), bad, lit("e")] }] }],
      },
    },
  });
  const until = (o: object) => ({ type: "until", terminator: "</p>", ...o });
  const BAD: Array<[string, unknown, object?]> = [
    ["a literal without text", { type: "literal" }],
    ["a literal's text not a string", { type: "literal", text: 5 }],
    ["a reversed range", { type: "charClass", ranges: [[5, 3]] }],
    ["ranges not an array", { type: "charClass", ranges: 3 }],
    ["a byte past 255", { type: "byteClass", ranges: [[0, 300]] }],
    ["a seq without items", { type: "seq" }],
    ["an alt's items not an array", { type: "alt", items: 3 }],
    ["a negative repeat bound", { type: "repeat", item: lit("x"), min: -1, max: 2 }],
    ["min above max", { type: "repeat", item: lit("x"), min: 3, max: 2 }],
    [
      "a repeat past 100,000 of what may be empty",
      { type: "repeat", item: { type: "repeat", item: lit("x"), min: 0, max: 1 }, min: 0, max: 200_000 },
    ],
    ["an empty terminator", until({ terminator: "" })],
    ["minLength above maxLength", until({ minLength: 5, maxLength: 2 })],
    ["a fractional maxLength", until({ maxLength: 2.5 })],
    ["trimNewline with a recurring first byte", until({ terminator: "aba", trimNewline: true })],
    [
      "a text past 100,000 characters, uncounted",
      { type: "text", exclude: "<", maxLength: 200_000 },
      { countAbove: 1e9 },
    ],
    ["an until with a body and a bound", until({ body: lit("x"), maxLength: 3 })],
    ["an until's body holding a token", until({ body: { type: "token", id: 151643 } })],
    ["an until with a body whose terminator's first byte recurs", until({ terminator: "<a<", body: lit("x") })],
    ["a token past the vocabulary", { type: "token", id: 1e9 }],
    ["a token id not a number", { type: "token", id: "x" }],
    ["an any-order item without a node", { type: "perm", items: [{ required: true }] }],
    ["an any-order item's node malformed", { type: "perm", items: [{ node: { type: "literal" }, required: true }] }],
    ["a ref to an undefined rule", { type: "ref", name: "missing" }],
    ["a ref's name not a string", { type: "ref", name: 3 }],
    ["an intersection without items", { type: "intersect", items: [] }],
    ["an intersection's item holding a token", { type: "intersect", items: [lit("x"), { type: "token", id: 5 }] }],
    [
      "an intersection whose product passes its limit",
      // any text then 700 x's, against exactly 700 characters: about 700 × 700 / 2 pairs of states
      {
        type: "intersect",
        items: [
          { type: "seq", items: [{ type: "text", exclude: "<" }, lit("x".repeat(700))] },
          {
            type: "seq",
            items: [{ type: "repeat", item: { type: "charClass", ranges: [[32, 126]] }, min: 700, max: 700 }],
          },
        ],
      },
    ],
    ["an unknown node type", { type: "nope" }],
    ["a node that is not an object", 5],
    [
      "a bounded text past the state limit",
      until({ terminator: "</parameter>", maxLength: 1000 }),
      { maxStates: 10_000 },
    ],
  ];

  /** The native compiler's answer to `grammar`: the error's message, or "compiled". */
  function compiled(grammar: object, options: object = {}): string {
    try {
      const g = new (loadNative().NativeGrammar)(qwen3().native, JSON.stringify(grammar), options);
      g.dispose();
      return "compiled";
    } catch (e) {
      return (e as Error).message;
    }
  }

  for (const [what, bad, extra = {}] of BAD)
    it(`refuses ${what} at compile time wherever it stands, as the eager build does`, () => {
      const { maxStates, ...fields } = extra as { maxStates?: number };
      const options = maxStates === undefined ? {} : { maxStates };
      const g = { ...deep(bad), ...fields };
      const eager = compiled({ ...g, eager: true }, options);
      expect(eager).not.toBe("compiled");
      expect(compiled(g, options)).toBe(eager);
    });

  it("refuses a grammar whose eager build passes the state limit, though a deferred one would not reach it", () => {
    // 50 choices of 40 bytes behind one byte: the eager build makes about 2,100 states at compile time.
    const many = { type: "alt", items: Array.from({ length: 50 }, (_, i) => lit(`${i}`.padStart(40, "x"))) };
    const g = { root: { type: "seq", items: [lit("a"), many] } };
    const eager = compiled({ ...g, eager: true }, { maxStates: 1000 });
    expect(eager).toMatch(/more than 1000 automaton states/);
    expect(compiled(g, { maxStates: 1000 })).toBe(eager);
    expect(compiled(g, { maxStates: 5000 })).toBe("compiled");
  });
});

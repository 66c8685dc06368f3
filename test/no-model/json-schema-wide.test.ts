// Objects with many properties (real tools have 40+): any order, each at most once, on the
// native engine, in a JSON dialect and an XML one; random walks parse as complete calls.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, compileGrammar } from "../../src/index.js";
import { fn } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";
import { walkCalls } from "../support/schema-walks.js";

const TYPES = [
  { type: "string", maxLength: 8 },
  { type: "integer" },
  { type: "boolean" },
  { type: "number" },
  { enum: ["a", "b"] },
];
const wide = (n: number, required: number) => {
  const properties = Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, TYPES[i % TYPES.length]]));
  return fn("wide", properties, Object.keys(properties).slice(0, required));
};

describe.each([40, 100])("an object of %i properties", (n) => {
  const tool = wide(n, 3);
  const matcher = (dialect: string) =>
    compileGrammar(buildToolGrammar({ dialect, tools: [tool], toolChoice: "required" }), qwen3()).createMatcher();
  const args = (keys: number[]) =>
    `{${keys.map((k) => `"p${k}": ${JSON.stringify([`v${k}`, k, true, k / 2, "a"][k % 5])}`).join(", ")}}`;
  const hermes = (keys: number[]) => `<tool_call>\n{"name": "wide", "arguments": ${args(keys)}}\n</tool_call>`;

  it("hermes: accepts the properties in any order, each at most once, the required ones all", () => {
    const m = matcher("hermes");
    const accepts = (text: string) => {
      m.reset();
      return m.acceptString(text) && m.isComplete();
    };
    const all = Array.from({ length: n }, (_, i) => i);
    expect(accepts(hermes(all))).toBe(true);
    expect(accepts(hermes([...all].reverse()))).toBe(true);
    expect(accepts(hermes([n - 1, 0, n - 2, 2, 1]))).toBe(true);
    expect(accepts(hermes([0, 1, 2, n - 1, n - 1]))).toBe(false); // a property twice
    expect(accepts(hermes([0, 1, n - 1]))).toBe(false); // p2 is required
    expect(accepts(hermes([0, 1, 2, n]))).toBe(false); // not declared
  });

  it("qwen3-coder: accepts the parameters in any order, each at most once", () => {
    const m = matcher("qwen3-coder");
    const xml = (keys: number[]) =>
      `<tool_call>\n<function=wide>\n${keys.map((k) => `<parameter=p${k}>\n${[`v${k}`, k, "true", k / 2, "a"][k % 5]}\n</parameter>\n`).join("")}</function>\n</tool_call>`;
    const accepts = (text: string) => {
      m.reset();
      return m.acceptString(text) && m.isComplete();
    };
    expect(accepts(xml([n - 1, 2, 0, 1]))).toBe(true);
    expect(accepts(xml([2, 1, 0, 2]))).toBe(false);
  });

  it.each(["hermes", "qwen3-coder"])(
    "%s: random walks parse as complete calls",
    (dialect) => {
      // one required property: a walk that must find three of 100 keys by chance rarely ends in 1,500 tokens
      const r = walkCalls(
        { dialect, tools: [wide(n, 1)], toolChoice: "required", parallelToolCalls: false, maxValueLength: 12 },
        40,
      );
      expect(r.failures).toEqual([]);
      expect(r.finished).toBeGreaterThan(30);
    },
    120_000,
  );
});

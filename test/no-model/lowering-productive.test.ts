// The lowering looks for an empty `$ref` recursion (the productivity blame) only where a schema
// made a `$ref` rule: every other keyword's lowering drops what matches nothing as it builds it.
// This checks that: every schema without a `$ref` that lowers (the JSON Schema Test Suite's
// schemas, the test tables', each captured client tool's parameters and each of their property
// schemas), in JSON and as an XML parameter's raw text, lowers to a grammar the productivity
// analysis says accepts something.
import { describe, expect, it } from "vitest";
import { functionTools, readClientToolFixtures } from "../../scripts/corpus/client-tools.mjs";
import { loadSuite } from "../../scripts/lib/json-schema-suite.mjs";
import type { GrammarNode, JsonSchemaOptions } from "../../src/grammar/ir.js";
import { lowerJsonSchemas } from "../../src/grammar/json-schema/index.js";
import { Productivity } from "../../src/grammar/productive.js";
import { ACCEPTANCE, PROPERTY_SCHEMAS } from "../support/json-schema-cases.js";

function holdsRef(x: unknown): boolean {
  if (x === null || typeof x !== "object") return false;
  if (Array.isArray(x)) return x.some(holdsRef);
  return Object.hasOwn(x, "$ref") || Object.values(x).some(holdsRef);
}

function schemas(): unknown[] {
  const out: unknown[] = [];
  for (const g of loadSuite()) out.push(g.schema);
  for (const c of ACCEPTANCE) out.push(c.schema);
  for (const c of PROPERTY_SCHEMAS) out.push(c.schema);
  for (const [, fixture] of readClientToolFixtures())
    for (const tool of functionTools(fixture)) {
      const params = tool.function.parameters as { properties?: Record<string, unknown> } | undefined;
      out.push(params);
      for (const p of Object.values(params?.properties ?? {})) out.push(p);
    }
  return out.filter((s) => s !== undefined && !holdsRef(s));
}

const RAW: JsonSchemaOptions = { syntax: "raw", raw: { close: "\n</parameter>", trimNewline: true } };

describe("a lowering without $ref never matches nothing unnoticed", () => {
  const all = schemas();

  it("has schemas to check", () => {
    expect(all.length).toBeGreaterThan(600);
  });

  for (const [name, options] of [
    ["JSON", {}],
    ["JSON, any whitespace", { whitespace: "any" }],
    ["raw text", RAW],
  ] as Array<[string, JsonSchemaOptions]>)
    it(`every one that lowers is productive (${name})`, () => {
      let lowered = 0;
      for (const schema of all) {
        let g: { root: GrammarNode; rules?: Record<string, GrammarNode> };
        try {
          g = lowerJsonSchemas({ root: { type: "jsonSchema", schema, options } });
        } catch {
          continue; // refused with its own error
        }
        lowered++;
        expect(new Productivity(g.rules ?? {}).accepts(g.root), JSON.stringify(schema).slice(0, 300)).toBe(true);
      }
      expect(lowered).toBeGreaterThan(options.syntax === "raw" ? 150 : 300);
    });
});

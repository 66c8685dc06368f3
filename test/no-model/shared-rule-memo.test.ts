// lowerJsonSchemas builds a shared rule (a string's characters, a format's classes) once per
// process and lets the next tool schemas, of this grammar and later ones, take it as built
// (processRuleMemo, value-rules.ts). Taking a rule
// must give the grammar each schema's own build gives, and leave every budget charge where it was:
// a format's repetitions are charged once per schema that uses it, with that schema's path.
import { describe, expect, it } from "vitest";
import { functionTools, readClientToolFixtures } from "../../scripts/corpus/client-tools.mjs";
import { buildToolGrammar } from "../../src/dialects/grammar.js";
import { dialects } from "../../src/dialects/index.js";
import { GrammarLimitError } from "../../src/grammar/errors.js";
import { lowerJsonSchemas, lowerJsonSchemasUnshared } from "../../src/grammar/json-schema/index.js";
import { patternRepetition, parsePattern } from "../../src/grammar/json-schema/pattern.js";
import { FORMATS } from "../../src/grammar/json-schema/formats.js";
import { COUNT_ABOVE, SCHEMA_LIMITS } from "../../src/grammar/schema-limits.js";
import { timeoutForMeasured } from "../support/timeouts.js";
import { fn } from "../support/tools.js";

const FIXTURES = readClientToolFixtures();

describe("shared rules taken as built (RuleMemo)", () => {
  it(
    "every client tool set lowers to the same grammar as with each schema's own rules, in every dialect",
    () => {
      let compared = 0;
      for (const [id, fixture] of FIXTURES)
        for (const dialect of dialects) {
          const grammar = buildToolGrammar({ dialect, tools: functionTools(fixture), toolChoice: "auto" });
          const shared = JSON.stringify(lowerJsonSchemas(grammar));
          const own = JSON.stringify(lowerJsonSchemasUnshared(grammar));
          expect(shared === own, `${id} in ${dialect}`).toBe(true);
          compared++;
        }
      expect(compared).toBe(FIXTURES.length * dialects.length);
    },
    timeoutForMeasured(7_400),
  ); // 126 lowerings of both kinds: 4.9–7.4 s at load average 12

  it("a format's repetitions are charged by each schema that uses it, naming the one past the limit", () => {
    const hostname = FORMATS.hostname!;
    const charge = (hostname.parts ?? [[hostname.source]])
      .flat()
      .reduce((n, s) => n + patternRepetition(parsePattern(s, "$"), "$"), 0);
    expect(charge).toBeGreaterThan(0);
    // Bounds counted COUNT_ABOVE each, leaving room for two hostname charges but not a third.
    const room = 2 * charge + Math.floor(charge / 2);
    const bounds = Math.floor((SCHEMA_LIMITS.repetitionTotal - room) / COUNT_ABOVE);
    const wide: Record<string, unknown> = Object.fromEntries(
      Array.from({ length: bounds }, (_, i) => [`s${i}`, { type: "string", maxLength: 5000 }]),
    );
    const fill = SCHEMA_LIMITS.repetitionTotal - room - bounds * COUNT_ABOVE; // charged as it is
    if (fill > 0) wide.fill = { type: "string", maxLength: fill };
    const host = { h: { type: "string", format: "hostname" } };
    const tools = [fn("wide", wide), fn("a", host), fn("b", host), fn("c", host)];
    for (const lower of [lowerJsonSchemas, lowerJsonSchemasUnshared]) {
      let error: unknown;
      try {
        lower(buildToolGrammar({ dialect: "hermes", tools, toolChoice: "auto" }));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GrammarLimitError);
      expect((error as GrammarLimitError).limit).toBe("repetition");
      expect((error as GrammarLimitError).path).toBe("tools[3].function.parameters.properties.h.format");
      // two of them fit
      expect(() =>
        lower(buildToolGrammar({ dialect: "hermes", tools: tools.slice(0, 3), toolChoice: "auto" })),
      ).not.toThrow();
    }
  });

  it("a schema that matches no value is refused naming its own $ref, after tools that share its rules", () => {
    const loop = { type: "object", properties: { x: { $ref: "#/properties/loop" } }, required: ["x"] };
    const str = { type: "string", format: "uri" };
    const tools = [
      fn("a", { u: str, s: { type: "string" } }),
      fn("b", { u: str, v: { type: "object", properties: { x: { $ref: "#/properties/v/properties/x" } } } }),
      {
        type: "function" as const,
        function: { name: "c", parameters: { type: "object", properties: { u: str, loop }, required: ["u", "loop"] } },
      },
    ];
    for (const dialect of ["hermes", "qwen3-coder", "lfm2"]) {
      const messages = [lowerJsonSchemas, lowerJsonSchemasUnshared].map((lower) => {
        try {
          lower(buildToolGrammar({ dialect, tools, toolChoice: "auto" }));
        } catch (e) {
          return `${(e as Error).name}: ${(e as Error).message}`;
        }
        return "no error";
      });
      expect(messages[0]).toMatch(
        /^InvalidSchemaError: tools\[2\]\.function\.parameters\.properties\.loop\.properties\.x\.\$ref: .*leads back to itself/,
      );
      expect(messages[0]).toBe(messages[1]);
    }
  });

  it("the rules kept for later lowerings are frozen: changing a lowered grammar in place throws", () => {
    const tools = [fn("a", { u: { type: "string", format: "uri" } })];
    const grammar = buildToolGrammar({ dialect: "hermes", tools, toolChoice: "auto" });
    const lowered = lowerJsonSchemas(grammar);
    const name = Object.keys(lowered.rules ?? {}).find((k) => k.includes("format.uri"));
    expect(name).toBeDefined();
    const rule = lowered.rules![name!]!;
    expect(Object.isFrozen(rule)).toBe(true);
    expect(() => {
      (rule as { type: string }).type = "literal";
    }).toThrow(TypeError);
    expect(JSON.stringify(lowerJsonSchemas(grammar))).toBe(JSON.stringify(lowerJsonSchemasUnshared(grammar)));
  });
});

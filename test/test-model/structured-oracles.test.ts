// Response formats against two oracles, on the random-weight test model (Qwen3's tokenizer,
// hermes): every schema of the JSON Schema Test Suite (draft4) that toolmask compiles, and every
// parameter schema of the captured client tools (test/fixtures/client-tools), each used as
// generate()'s `responseFormat`.
//   - no under-constraint: random walks of the grammar generate() masks with end in JSON that ajv
//     (with ajv-formats) finds valid;
//   - no over-constraint: valid instances (the suite's; for the client tools, json-schema-faker's
//     that ajv finds valid), written as a model writes JSON (compact, json.dumps-spaced, indented)
//     and tokenized by the model's own tokenizer (llama.cpp), then an end of generation, are
//     allowed by the mask at every token (replayEachThroughMask with masks).
// The only exclusions are the suite's listed deviations (scripts/lib/json-schema-suite-expected.mjs,
// docs/json-schema.md), each with its reason; test/no-model/json-schema-suite.test.ts fails when one
// stops happening.
import { generateSync } from "json-schema-faker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functionTools, readClientToolFixtures } from "../../scripts/corpus/client-tools.mjs";
import { KNOWN_REFUSED } from "../../scripts/corpus/known-refused.mjs";
import { canonical, groupName, loadSuite, pretty, spaced, testName } from "../../scripts/lib/json-schema-suite.mjs";
import { DEVIATIONS, REASONS, REFUSED } from "../../scripts/lib/json-schema-suite-expected.mjs";
import { replayEachThroughMask } from "../../src/bench/overconstraint.js";
import type { GenerateOptions } from "../../src/engine/generate.js";
import { prepareGeneration } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { CompiledGrammar } from "../../src/grammar/compile.js";
import { ajvWithFormats } from "../support/ajv-formats.js";
import { IM_END } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutForMeasured } from "../support/timeouts.js";

const WALKS = 8;
const messages = [{ role: "user" as const, content: "Answer in JSON." }];
const request = (schema: Record<string, unknown>): GenerateOptions => ({
  messages,
  responseFormat: { type: "json_schema", schema, name: "out" },
});

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false, parallel: 1, contextSize: 1024 });
});
afterAll(() => model?.dispose());

/** The finished random walks of the grammar generate() masks `options` with, as texts (the end token left off). */
async function walkTexts(options: GenerateOptions, count: number): Promise<{ texts: string[]; stuck: number }> {
  const prepared = await prepareGeneration(model, { ...options, mask: true });
  const grammar = prepared.request.grammar!;
  const m = new CompiledGrammar(grammar, model.vocabulary).createMatcher();
  grammar.dispose(); // the matcher holds the grammar
  try {
    const walks = m.randomWalks({
      count,
      seed: 5,
      maxTokens: 1500,
      leaveProbability: 0.9,
      shortProbability: 0.9,
      endProbability: 0.9,
      probes: 8,
    });
    const v = model.vocabulary;
    const texts = walks
      .filter((w) => w.terminated)
      .map((w) => Buffer.concat([...w.tokens.subarray(0, -1)].map((id) => v.tokenBytes(id))).toString("utf8"));
    return { texts, stuck: walks.filter((w) => w.stuck).length };
  } finally {
    m.dispose();
  }
}

/** The texts of `values` the model's tokenizer makes, each ended by <|im_end|>. */
async function tokenized(texts: string[]): Promise<number[][]> {
  return Promise.all(texts.map(async (t) => [...(await model.native.tokenizeText(t)), IM_END]));
}

/** What the mask refused among `texts` (token by token, then the end of generation), one line each. */
async function overConstrained(options: GenerateOptions, texts: string[]): Promise<string[]> {
  const replays = await replayEachThroughMask(model, options, await tokenized(texts), { masks: true });
  return replays.flatMap((r, i) =>
    r.refused === null && r.terminated
      ? []
      : [
          `${JSON.stringify(texts[i])}: ${
            r.refused
              ? `token ${r.refused.index} ${JSON.stringify(r.refused.piece)} refused${r.refused.byMask ? " by the mask" : ""} after ${JSON.stringify(r.refused.textBefore)}`
              : "not ended"
          }`,
        ],
  );
}

const ajv = ajvWithFormats("07");
const ajv2020 = ajvWithFormats("2020");

/** What ajv refuses among walk texts of `schema`, one line each. */
function underConstrained(texts: string[], valid: (v: unknown) => boolean): string[] {
  return texts.flatMap((t) => {
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch (e) {
      return [`not JSON: ${JSON.stringify(t)} (${(e as Error).message})`];
    }
    return valid(value) ? [] : [`ajv refuses ${JSON.stringify(t)}`];
  });
}

/** `schema` with every oneOf read as anyOf: the listed deviation oneOfAsAnyOf (a grammar cannot count matches). */
function oneOfAsAnyOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(oneOfAsAnyOf);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k === "oneOf" ? "anyOf" : k, oneOfAsAnyOf(v)] as const),
  );
}

const SUITE = loadSuite().filter((g) => !(groupName(g) in REFUSED));
/** Groups whose listed deviation lets the grammar accept a value JSON Schema refuses: ajv reads their oneOf as anyOf. */
const UNDER = new Set(
  Object.entries(DEVIATIONS)
    .filter(([, d]) => d.verdict === "under")
    .map(([name]) => name.slice(0, name.lastIndexOf(" / "))),
);

// Measured on 2 shared cores (npx vitest run test/test-model/structured-oracles.test.ts): every suite group
// under 1.6 s at load average 12-16; the slowest client tool (claude-code-2.1.328/ReportFindings) 2.7 s.
const GROUP_TIMEOUT = timeoutForMeasured(1_600);
const TOOL_TIMEOUT = timeoutForMeasured(2_700);

describe("the oracles", () => {
  it("report an instance the mask refuses, and a walk ajv refuses", async () => {
    const schema = { type: "object", properties: { n: { type: "integer", maximum: 3 } }, required: ["n"] };
    const options = request(schema);
    expect(await overConstrained(options, ['{"n": 2}'])).toEqual([]);
    const [refused] = await overConstrained(options, ['{"n": 4}', '{"n": 2']);
    expect(refused).toMatch(/^"\{\\"n\\": 4\}": token \d+ "4" refused by the mask after "\{\\"n\\": "$/);
    expect((await overConstrained(options, ['{"n": 2'])).length).toBe(1); // no end of generation before the close
    const { texts } = await walkTexts(options, WALKS);
    expect(underConstrained(texts, ajv.compile({ type: "array" })).length).toBe(texts.length);
  });
});

describe("JSON Schema Test Suite schemas as response formats", () => {
  it("every group toolmask compiles is here; the only under-constraint allowed is oneOfAsAnyOf", () => {
    expect(SUITE.length).toBe(56);
    expect([...UNDER].every((g) => DEVIATIONS[`${g} / both oneOf valid`]?.reason === "oneOfAsAnyOf")).toBe(true);
  });

  it.each(SUITE.map((g) => [groupName(g), g] as const))(
    "%s: walks are ajv-valid; valid instances pass the mask token by token",
    async (name, g) => {
      const options = request(g.schema as Record<string, unknown>);
      const { texts, stuck } = await walkTexts(options, WALKS);
      expect(stuck).toBe(0);
      expect(texts.length, "walks that finished").toBeGreaterThan(0);
      const valid = ajv.compile(UNDER.has(name) ? (oneOfAsAnyOf(g.schema) as object) : g.schema);
      expect(underConstrained(texts, valid)).toEqual([]);
      // valid instances but the listed over-constraints (each with its reason: REASONS)
      const instances = g.tests.filter((t) => t.valid && DEVIATIONS[testName(g, t)]?.verdict !== "over");
      const texts2 = instances.flatMap((t) => [...new Set([canonical(t.doc), spaced(t.doc), pretty(t.doc)])]);
      expect(await overConstrained(options, texts2)).toEqual([]);
      const excluded = g.tests.filter((t) => t.valid && DEVIATIONS[testName(g, t)]?.verdict === "over");
      for (const t of excluded) expect(REASONS[DEVIATIONS[testName(g, t)]!.reason], testName(g, t)).toBeDefined();
    },
    GROUP_TIMEOUT,
  );
});

/** The schema as ajv reads it: `$schema` left out (as client-tools.test.ts does). */
const forAjv = (schema: Record<string, unknown>) => {
  const { $schema: _, ...rest } = schema;
  return rest;
};

const TOOLS = readClientToolFixtures().flatMap(([id, fixture]) =>
  functionTools(fixture)
    .filter((t) => !(`${id}/${t.function.name}` in KNOWN_REFUSED))
    .map((t) => [`${id}/${t.function.name}`, t.function.parameters as Record<string, unknown>] as const),
);

describe("the client tools' parameter schemas as response formats", () => {
  it.each(TOOLS)(
    "%s: walks are ajv-valid; generated valid instances pass the mask token by token",
    async (_name, schema) => {
      const options = request(schema);
      const valid = ajv2020.compile(forAjv(schema));
      const { texts, stuck } = await walkTexts(options, WALKS);
      expect(stuck).toBe(0);
      expect(texts.length, "walks that finished").toBeGreaterThan(0);
      expect(underConstrained(texts, valid)).toEqual([]);
      const values: unknown[] = [];
      for (const optionals of [1, 0])
        for (let seed = 31; seed < 39 && values.length < (optionals ? 1 : 2); seed++) {
          const v = generateSync(
            forAjv(schema) as never,
            {
              seed,
              alwaysFakeOptionals: optionals === 1,
              optionalsProbability: optionals,
              // short arrays and strings: every token is a mask over 151,936 ids (3,307 tokens took 6 s)
              maxItems: 3,
              maxLength: 40,
            } as never,
          );
          if (valid(v)) values.push(v);
        }
      expect(values.length, "json-schema-faker wrote a valid instance").toBeGreaterThan(0);
      const texts2 = values.flatMap((v) => [...new Set([JSON.stringify(v), JSON.stringify(v, null, 2), pySpaced(v)])]);
      expect(await overConstrained(options, texts2)).toEqual([]);
    },
    TOOL_TIMEOUT,
  );
});

/** What Python's json.dumps writes (", " and ": " between items, non-ASCII escaped as \\uXXXX). */
function pySpaced(v: unknown): string {
  const str = (s: string) =>
    JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (Array.isArray(v)) return `[${v.map(pySpaced).join(", ")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${str(k)}: ${pySpaced(x)}`)
      .join(", ")}}`;
  return typeof v === "string" ? str(v) : JSON.stringify(v);
}

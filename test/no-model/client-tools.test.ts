// The tool schemas real clients send (test/fixtures/client-tools, captured by `npm run
// corpus:capture`): each tool set compiles in every dialect, but for the tools KNOWN_REFUSED names,
// which are refused in every dialect for the keyword it names. For each function tool, instances
// json-schema-faker generates (seeded) and mutations of them (test/support/instance-mutations.ts),
// written in the dialect's own call syntax, are complete calls for the parser and sentences of the
// set's grammar exactly where ajv (with ajv-formats) finds the value the text denotes valid.
// KNOWN_REFUSED: scripts/corpus/known-refused.mjs.
import { generateSync } from "json-schema-faker";
import { describe, expect, it } from "vitest";
import {
  type FunctionTool as Tool,
  functionTools,
  readClientToolFixtures,
} from "../../scripts/corpus/client-tools.mjs";
import { KNOWN_REFUSED } from "../../scripts/corpus/known-refused.mjs";
import { stripSchema } from "../../scripts/corpus/strip-prose.mjs";
import { writeCall, writeOutput, type WireArg } from "../../scripts/lib/dialect-writer.mjs";
import { isRawText } from "../../src/dialects/call-grammar.js";
import {
  buildToolGrammar,
  compileGrammar,
  dialects,
  getDialect,
  parseToolCalls,
  resolveRequest,
} from "../../src/index.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { ajvWithFormats, type Validator as AjvLike } from "../support/ajv-formats.js";
import { instanceMutations, type Json, sampleMutations } from "../support/instance-mutations.js";
import { timeoutForMeasured } from "../support/timeouts.js";
import { qwen3 } from "../support/vocabs.js";

type Validator = ReturnType<AjvLike["compile"]>;
const ajv = ajvWithFormats("2020");

/**
 * Generated instances per tool: one with every optional member (written in every dialect), one with
 * the required ones only (written in DIALECTS_PER_SAMPLE dialects, as a mutation is).
 */
const FAKER_RUNS = [
  { alwaysFakeOptionals: true, optionalsProbability: 1 },
  { alwaysFakeOptionals: false, optionalsProbability: 0 },
] as const;
/** Seeds tried per run for an instance ajv finds valid. */
const FAKER_SEEDS = 8;
/** Mutations tried per tool (sampleMutations: every kind first). */
const MUTATIONS_PER_TOOL = 8;
/**
 * A sampled case is written in this many dialects, rotating through `dialects` (a set's k-th
 * sampled case in dialects k, k + STRIDE, k + 2·STRIDE, modulo their count), so every dialect
 * meets a share of every set's mutations and the run stays bounded (each tool's first parse in a
 * dialect compiles its value grammars: most of the time is per tool and dialect, not per case).
 */
const DIALECTS_PER_SAMPLE = 3;
const STRIDE = Math.floor(dialects.length / DIALECTS_PER_SAMPLE);
const SEED = 31;
// Measured with 6 test runs sharing 2 cores (load average 10–13): a set in one dialect took at most
// 10.3 s, the refusals in one dialect at most 1.7 s (the first, loading Qwen3's vocabulary).
const SET_TIMEOUT_MS = timeoutForMeasured(11_000);
const REFUSALS_TIMEOUT_MS = timeoutForMeasured(2_000);

const FIXTURES = readClientToolFixtures();

/** The keyword a refusal names: the last step of its path. */
function refusal(dialect: string, tools: Tool[]): string | undefined {
  try {
    compileGrammar(buildToolGrammar({ dialect, tools, toolChoice: "required" }), qwen3()).dispose();
    return undefined;
  } catch (e) {
    const p = (e as { path?: string }).path;
    if (typeof p !== "string") throw e;
    return p.slice(p.lastIndexOf(".") + 1);
  }
}

/** The schema as ajv reads it: `$schema` left out (draft-07 and 2020-12 mean the same for every keyword these schemas use). */
const forAjv = (schema: Record<string, unknown>) => {
  const { $schema: _, ...rest } = schema;
  return rest;
};

/**
 * The call `name(args)` as `dialect` writes it, and the arguments the text denotes: in an XML
 * dialect a raw-text parameter holds its string as it is, and any other value as its JSON text
 * (which the text then denotes as a string); JSON elsewhere.
 */
function written(
  dialect: string,
  tool: Tool,
  args: Record<string, Json>,
): { text: string; denotes: Record<string, Json> } {
  const spec = getDialect(dialect);
  const params = tool.function.parameters;
  const props = (params.properties ?? {}) as Record<string, unknown>;
  const denotes: Record<string, Json> = {};
  const wire: WireArg[] = Object.entries(args).map(([k, v]) => {
    const json = JSON.stringify(v);
    if (spec.call.kind === "xml" && isRawText(props[k] ?? {}, params)) {
      const raw = typeof v === "string" ? v : json;
      denotes[k] = raw;
      return [k, JSON.stringify(raw), raw];
    }
    denotes[k] = v;
    return [k, json];
  });
  return { text: writeOutput(spec, [writeCall(spec, tool.function.name, wire)]), denotes };
}

interface Case {
  tool: Tool;
  valid: Validator;
  what: string;
  args: Record<string, Json>;
  /** The dialects the case is written in: all, or DIALECTS_PER_SAMPLE of them. */
  dialects: readonly string[];
}

/** Per tool: the generated instances ajv finds valid, then sampled mutations of them; instances faker got wrong are counted apart. */
function casesOf(tools: Tool[]) {
  const cases: Case[] = [];
  const fakerInvalid: string[] = [];
  let sampled = 0;
  const rotation = () => {
    const k = sampled++;
    return Array.from({ length: DIALECTS_PER_SAMPLE }, (_, j) => dialects[(k + j * STRIDE) % dialects.length]!);
  };
  for (const tool of tools) {
    const params = tool.function.parameters;
    const valid = ajv.compile(forAjv(params));
    const instances: Json[] = [];
    FAKER_RUNS.forEach((options, i) => {
      // json-schema-faker writes a string of an allOf of patterns from one pattern alone (SendMessage's
      // `to`), so an instance may miss the others: the next seeds, a few at most
      let value: Json | undefined;
      for (let k = 0; k < FAKER_SEEDS && value === undefined; k++) {
        const v = generateSync(forAjv(params) as never, { seed: SEED + i + k * FAKER_RUNS.length, ...options }) as Json;
        if (valid(v)) value = v;
      }
      if (value === undefined) fakerInvalid.push(`${tool.function.name} #${i}`);
      else if (!instances.some((x) => JSON.stringify(x) === JSON.stringify(value))) instances.push(value);
    });
    instances.forEach((value, i) =>
      cases.push({
        tool,
        valid,
        what: `generated #${i}`,
        args: value as Record<string, Json>,
        dialects: i === 0 ? dialects : rotation(),
      }),
    );
    const mutations = instances.flatMap((value) => instanceMutations(params, value));
    for (const m of sampleMutations(mutations, MUTATIONS_PER_TOOL))
      if (m.value !== null && typeof m.value === "object" && !Array.isArray(m.value))
        cases.push({ tool, valid, what: m.what, args: m.value, dialects: rotation() });
  }
  return { cases, fakerInvalid };
}

const SETS = FIXTURES.map(([id, fixture]) => {
  const all = functionTools(fixture);
  const names = all.map((t) => t.function.name);
  const refused = all.filter((t) => `${id}/${t.function.name}` in KNOWN_REFUSED);
  const tools = all.filter((t) => !refused.includes(t));
  return { id, fixture, all, names, refused, tools, ...casesOf(tools) };
});

describe("client tool corpus", () => {
  it("every fixture names its package, version and capture date; tool names are unique; KNOWN_REFUSED names captured tools", () => {
    for (const { id, fixture, names } of SETS) {
      expect(fixture.package, id).toMatch(/^@?[a-z0-9@/._-]+$/);
      expect(fixture.version, id).toMatch(/^\d+\.\d+\.\d+$/);
      expect(fixture.captured, id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(new Set(names).size, `${id}: ${names.join(", ")}`).toBe(names.length);
    }
    // forAjv's premise: no keyword whose meaning draft-07 and 2020-12 differ on
    const drafted = SETS.filter(({ all }) =>
      /"(additionalItems|dependencies|\$recursiveRef)"|"items":\[/.test(JSON.stringify(all)),
    );
    expect(drafted.map(({ id }) => id)).toEqual([]);
    const captured = new Set(SETS.flatMap(({ id, names }) => names.map((n) => `${id}/${n}`)));
    expect(Object.keys(KNOWN_REFUSED).filter((k) => !captured.has(k))).toEqual([]);
  });

  it("holds no prose: every schema is its own stripSchema, and a property named description stays", () => {
    for (const { id, all } of SETS)
      for (const t of all)
        expect(stripSchema(t.function.parameters), `${id}/${t.function.name}`).toEqual(t.function.parameters);
    const agent = SETS.find((s) => s.id === "claude-code-2.1.328")!.all.find((t) => t.function.name === "Agent")!;
    expect(agent.function.parameters.properties).toHaveProperty("description", { type: "string" });
    expect(stripSchema({ properties: { description: { type: "string", description: "x" } }, title: "t" })).toEqual({
      properties: { description: { type: "string" } },
    });
  });

  it("keeps the tools that are not plain functions as entries (Codex's namespace, custom and hosted tools)", () => {
    const kinds = SETS.flatMap(({ id, fixture }) =>
      fixture.tools.filter((t) => t.type !== "function").map((t) => `${id}: ${t.type} ${t.name ?? ""}`.trim()),
    );
    expect(kinds).toEqual([
      "codex-0.171.0-gpt-5.5: custom apply_patch",
      "codex-0.171.0-gpt-5.5: tool_search",
      "codex-0.171.0-gpt-5.5: web_search",
      "codex-0.171.0: namespace multi_agent_v1",
      "codex-0.171.0: web_search",
    ]);
  });

  it("json-schema-faker writes schema-valid instances for every tool (within FAKER_SEEDS seeds)", () => {
    expect(SETS.flatMap(({ id, fakerInvalid }) => fakerInvalid.map((w) => `${id}/${w}`))).toEqual([]);
  });

  it.each(dialects)(
    "%s: the known refusals only, each for its keyword",
    (dialect) => {
      const refused = SETS.flatMap((set) => set.refused.map((t) => [`${set.id}/${t.function.name}`, t] as const));
      const got = Object.fromEntries(refused.map(([key, t]) => [key, refusal(dialect, [t])]));
      expect(got).toEqual(Object.fromEntries(refused.map(([key]) => [key, KNOWN_REFUSED[key]])));
    },
    REFUSALS_TIMEOUT_MS,
  );

  describe.each(SETS.map((s) => [s.id, s] as const))("%s", (_id, set) => {
    it.each(dialects)(
      "%s: the tool set compiles; generated and mutated calls as ajv decides",
      (dialect) => {
        if (refusal(dialect, set.tools) !== undefined) {
          const each = set.tools
            .map((t) => [t.function.name, refusal(dialect, [t])])
            .filter(([, k]) => k !== undefined);
          expect(Object.fromEntries(each), "refused, and not in KNOWN_REFUSED").toEqual({});
        }
        const accepts = grammarAcceptor(buildToolGrammar({ dialect, tools: set.tools, toolChoice: "required" }));
        const wrong: unknown[] = [];
        let checked = 0;
        let request: ReturnType<typeof resolveRequest> | undefined; // once for every case
        try {
          for (const c of set.cases) {
            if (!c.dialects.includes(dialect)) continue;
            checked++;
            const { text, denotes } = written(dialect, c.tool, c.args);
            const expected = c.valid(denotes);
            request ??= resolveRequest({ dialect, tools: set.tools });
            const r = parseToolCalls(text, request);
            const parsed = r.toolCalls.length === 1 && r.incomplete.length === 0;
            const args = parsed ? JSON.parse(r.toolCalls[0]!.function.arguments) : undefined;
            const grammar = accepts(text);
            const readBack = !parsed || JSON.stringify(args) === JSON.stringify(denotes);
            if (parsed !== expected || grammar !== expected || !readBack)
              wrong.push({ tool: c.tool.function.name, what: c.what, text, ajv: expected, parsed, grammar, args });
          }
        } finally {
          accepts.dispose();
        }
        expect(wrong.slice(0, 5), `${wrong.length} of ${checked} cases differ from ajv`).toEqual([]);
      },
      SET_TIMEOUT_MS,
    );
  });
});

// The mask on llama.cpp's backend sampling path (graph ops, here on the CPU backend) picks exactly
// the tokens the CPU sampler picks, for the same seed and options.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generate, type GenerateOptions } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { testModelPath } from "../support/test-model.js";

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { enum: ["Paris", "Rome"] } }, required: ["city"] },
    },
  },
  {
    type: "function",
    function: {
      name: "search",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    },
  },
];

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
});

const cases: Array<[string, Partial<GenerateOptions>]> = [
  [
    "XML call, default sampling chain",
    { dialect: "qwen3-coder", toolChoice: "required", logitBias: { 151657: 100, 151645: 110 } },
  ],
  [
    "JSON, hot and unfiltered",
    { dialect: "hermes", temperature: 2, topK: 0, topP: 1, minP: 0, logitBias: { 198: -100, 271: -100, 151657: 8 } },
  ],
  ["JSON, greedy", { dialect: "hermes", temperature: 0, logitBias: { 198: -100, 271: -100, 151657: 8 } }],
  [
    "XML, top-k/top-p/min-p",
    {
      dialect: "qwen3-coder",
      temperature: 1.2,
      topK: 20,
      topP: 0.9,
      minP: 0.02,
      logitBias: { 198: -100, 271: -100, 151657: 6 },
    },
  ],
];

// Every way the mask can travel into the graph (native/llama/mask_backend.cpp); the native side
// reads the choice when a generation builds its sampler.
describe.each(["packed", "dense", "resident"])("mask path: backend (%s input) == cpu", (representation) => {
  beforeEach(() => {
    process.env.TOOLMASK_BACKEND_MASK = representation;
  });
  afterEach(() => {
    delete process.env.TOOLMASK_BACKEND_MASK;
  });

  for (const [name, o] of cases) {
    it(name, async () => {
      for (const seed of [1, 2, 3]) {
        const base = { messages: [{ role: "user", content: "Weather?" }], tools, seed, maxTokens: 40, ...o };
        const cpu = await generate(model, { ...base, maskPath: "cpu" });
        const backend = await generate(model, { ...base, maskPath: "backend" });
        expect(cpu.maskPath).toBe("cpu");
        expect(backend.maskPath).toBe("backend");
        expect(backend.tokens).toEqual(cpu.tokens);
        // Only the resident representation keeps a table (and says so).
        expect(backend.maskTable !== undefined).toBe(representation === "resident");
      }
    });
  }

  it("keeps a masked call whole on the backend path", async () => {
    const r = await generate(model, {
      messages: [{ role: "user", content: "Weather?" }],
      tools,
      dialect: "qwen3-coder",
      seed: 9,
      toolChoice: { type: "function", function: { name: "get_weather" } },
      maxTokens: 60,
      logitBias: { 151657: 100, 151645: 110 },
      maskPath: "backend",
    });
    expect(r.finishReason).toBe("tool_calls");
    expect(r.incomplete).toEqual([]);
    expect(r.message.tool_calls!.map((c) => c.function.name)).toEqual(["get_weather"]);
    expect(["Paris", "Rome"]).toContain(JSON.parse(r.message.tool_calls![0]!.function.arguments).city);
  });
});

// The resident table (native/llama/mask_resident.hpp): its memory as reported, its growth, several
// sequences with their own tables in one batch, and a wrong row index on purpose (a test hook).
describe("resident mask table", () => {
  const xml = cases[0]![1];
  const request = (seed: number, o: Partial<GenerateOptions> = xml): GenerateOptions => ({
    messages: [{ role: "user", content: "Weather?" }],
    tools,
    seed,
    maxTokens: 40,
    ...o,
  });
  const hooks = ["TOOLMASK_BACKEND_MASK", "TOOLMASK_TEST_ROW_OFFSET", "TOOLMASK_TEST_TABLE_ROWS"];
  afterEach(() => {
    for (const h of hooks) delete process.env[h];
  });
  const resident = async (options: GenerateOptions, env: Record<string, string> = {}) => {
    process.env.TOOLMASK_BACKEND_MASK = "resident";
    Object.assign(process.env, env);
    try {
      return await generate(model, { ...options, maskPath: "backend" });
    } finally {
      for (const h of hooks) delete process.env[h];
    }
  };

  it("reports its memory: rows × ⌈V/24⌉ F32 words, one row per state reached plus two reserved", async () => {
    const cpu = await generate(model, { ...request(1), maskPath: "cpu" });
    const r = await resident(request(1));
    expect(r.tokens).toEqual(cpu.tokens);
    expect(r.finishReason).toBe("tool_calls"); // the call's states were reached: many rows
    const t = r.maskTable!;
    const V = model.vocabulary.size;
    expect(t.rowBytes).toBe(Math.ceil(V / 24) * 4); // 25,280 bytes for Qwen3's 151,669 ids
    expect(t.rows).toBe(t.stateRows + t.budgetRows + 2);
    expect(t.stateRows).toBeGreaterThan(10);
    expect(t.bytes).toBe(t.rows * t.rowBytes);
    expect(t.allocatedBytes).toBe(t.capacity * t.rowBytes);
    expect(t.capacity).toBe(64); // the first table (kFirstRows) was enough: no growth
    expect(t.growths).toBe(0);
    // 24 bits per word: a third more than the ⌈V/32⌉ 32-bit words of the host's bitmask, at most.
    expect(t.rowBytes).toBeLessThanOrEqual(Math.ceil((Math.ceil(V / 32) * 4 * 4) / 3) + 4);
    expect(t.inputSteps).toBe(0);
  });

  it("grows from a 3-row table: the same tokens, through the ad-hoc row until the graph is rebuilt", async () => {
    for (const seed of [1, 2, 3]) {
      const cpu = await generate(model, { ...request(seed), maskPath: "cpu" });
      const r = await resident(request(seed), { TOOLMASK_TEST_TABLE_ROWS: "3" });
      expect(r.maskPath).toBe("backend");
      expect(r.tokens).toEqual(cpu.tokens);
      const t = r.maskTable!;
      expect(t.growths).toBeGreaterThan(0);
      expect(t.capacity).toBe(3 * 2 ** t.growths);
      expect(t.staleRows).toBeGreaterThan(0); // a reused graph read the old table's ad-hoc row
    }
  });

  it("several sequences with different grammars in one batch each gather their own rows", async () => {
    const json = cases[2]![1];
    const a = [request(1), request(2, json), request(3), request(3, json)];
    const cpu = [];
    for (const o of a) cpu.push(await generate(model, { ...o, maskPath: "cpu" }));
    process.env.TOOLMASK_BACKEND_MASK = "resident";
    const together = await Promise.all(a.map((o) => generate(model, { ...o, maskPath: "backend" })));
    expect(together.map((r) => r.tokens)).toEqual(cpu.map((r) => r.tokens));
    expect(together.every((r) => r.maskTable !== undefined)).toBe(true);
  });

  it("a wrong row index (TOOLMASK_TEST_ROW_OFFSET) is caught: a refused token, or other tokens", async () => {
    const cpu = await generate(model, { ...request(1), maskPath: "cpu" });
    // The hook at 0 changes nothing...
    expect((await resident(request(1), { TOOLMASK_TEST_ROW_OFFSET: "0" })).tokens).toEqual(cpu.tokens);
    // ...at 1 every step gathers the next row: the host's matcher refuses the token it led to.
    const wrong = await resident(request(1), { TOOLMASK_TEST_ROW_OFFSET: "1" }).then(
      (r) => r.tokens,
      (e: Error) => e.message,
    );
    expect(wrong).not.toEqual(cpu.tokens);
    expect(wrong).toMatch(/the sampler chain picked token \d+ that the grammar refuses/);
  });

  it("the token budget's steps take rows of their own: no call opened that cannot close, as on the host", async () => {
    // The trigger all but certain wherever the mask lets it through (token-budget.test.ts): with 4
    // tokens left no call fits, so only the budget-limited mask (not the state's own row) keeps it out.
    const TOOL_CALL = 151657;
    const o: Partial<GenerateOptions> = { dialect: "qwen3-coder", toolChoice: "auto", logitBias: { [TOOL_CALL]: 100 } };
    for (const seed of [1, 2]) {
      const options = { ...request(seed, o), maxTokens: 4 };
      const cpu = await generate(model, { ...options, maskPath: "cpu" });
      const r = await resident(options);
      expect(r.tokens).toEqual(cpu.tokens);
      expect(r.tokens).not.toContain(TOOL_CALL);
      const t = r.maskTable!;
      expect(t.budgetSteps).toBe(r.tokens.length); // every step: 4 tokens are within the horizon
      expect(t.budgetRows).toBeGreaterThan(0); // a limited mask takes a row once...
      expect(t.budgetRows).toBeLessThan(t.budgetSteps); // ...and keeps it while it stays the same
      expect(t.rows).toBe(2 + t.stateRows + t.budgetRows);
      expect((await resident({ ...options, maxTokens: 40 })).tokens[0]).toBe(TOOL_CALL); // room: opened at once
    }
  });
});

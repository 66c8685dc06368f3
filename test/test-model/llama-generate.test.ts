// generate() on the random-weight Qwen3 test model with real llama.cpp decoding. Random weights
// repeat a token forever and never close a call on their own: the mask is what makes calls whole.
// logitBias stands in for a model's wish to call a tool and to stop (<tool_call>, <|im_end|>);
// the mask decides where those wishes are allowed.
import { beforeAll, describe, expect, it } from "vitest";
import { generate, type GenerateOptions, type GenerateResult } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { buildToolGrammar } from "../../src/dialects/grammar.js";
import { compileGrammar } from "../../src/grammar/compile.js";
import { testModelPath } from "../support/test-model.js";
import { notStoppedOnAbort, watchEngineGenerations } from "../support/engine-generations.js";
import { until } from "../support/until.js";

const TOOL_CALL = 151657,
  IM_END = 151645;
// Stopping wins wherever the grammar allows it, so a masked answer ends right after its first call.
const WANTS_TO_CALL_AND_STOP = { [TOOL_CALL]: 100, [IM_END]: 110 };

// Enumerated values: the grammar bounds them, so a masked call always has an end to reach.
const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", enum: ["Paris", "Rome", "Oslo"] },
          days: { type: "integer", enum: [1, 2, 3] },
        },
        required: ["city"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "search",
      parameters: { type: "object", properties: { q: { enum: ["cats", "dogs"] } }, required: ["q"] },
    },
  },
];
const messages = [{ role: "user", content: "What is the weather in Paris?" }];

/** Why a finished answer is not a valid call set for these tools ("" when it is). */
function invalidity(r: GenerateResult, allowed = ["get_weather", "search"]): string {
  const calls = r.message.tool_calls ?? [];
  if (calls.length === 0) return `no call (finish ${r.finishReason}, text ${JSON.stringify(r.text.slice(0, 60))})`;
  if (r.incomplete.length > 0) return `incomplete: ${r.incomplete[0]!.reason}`;
  for (const c of calls) {
    if (!allowed.includes(c.function.name)) return `undeclared name ${c.function.name}`;
    const args = JSON.parse(c.function.arguments) as Record<string, unknown>;
    const required = c.function.name === "search" ? ["q"] : ["city"];
    for (const k of required) if (!(k in args)) return `missing ${k}`;
  }
  return "";
}

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
});

const run = (o: Partial<GenerateOptions>) => generate(model, { messages, tools, maxTokens: 120, ...o });

describe("generate with the mask (CPU sampler inside llama.cpp)", () => {
  it("Qwen3-Coder XML, toolChoice required: every seed ends in complete calls; unmasked, the same prompts never do", async () => {
    const masked: string[] = [];
    const unmasked: string[] = [];
    for (let seed = 1; seed <= 12; seed++) {
      const o = {
        dialect: "qwen3-coder",
        toolChoice: "required" as const,
        parallelToolCalls: seed % 2 === 0,
        seed,
        logitBias: WANTS_TO_CALL_AND_STOP,
      };
      const m = await run({ ...o, mask: true });
      masked.push(invalidity(m));
      expect(m.finishReason).toBe("tool_calls");
      const u = await run({ ...o, mask: false });
      unmasked.push(invalidity(u));
      // Unmasked and unable to stop: the call starts and never closes.
      const v = await run({ ...o, mask: false, logitBias: { [TOOL_CALL]: 100 }, maxTokens: 40 });
      unmasked.push(invalidity(v));
    }
    const valid = (xs: string[]) => xs.filter((x) => x === "").length;
    console.log(
      `qwen3-coder required: valid masked ${valid(masked)}/12, unmasked ${valid(unmasked)}/24 (${unmasked[0]}; ${unmasked[1]})`,
    );
    expect(masked).toEqual(Array(12).fill(""));
    expect(valid(unmasked)).toBe(0);
  });

  it("Hermes JSON: what finishes is complete and valid; what runs out of tokens is reported cut, never complete", async () => {
    // Ban whitespace-only tokens: unbounded JSON whitespace is a loop a repeating model never leaves.
    const bias: Record<number, number> = { ...WANTS_TO_CALL_AND_STOP };
    for (let id = 0; id < model.vocabulary.size; id++) {
      const b = model.vocabulary.tokenBytes(id);
      if (b.length > 0 && b.every((x) => x === 32 || x === 10 || x === 9 || x === 13)) bias[id] = -100;
    }
    let finished = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const named = seed % 3 === 0;
      const r = await run({
        dialect: "hermes",
        seed,
        logitBias: bias,
        parallelToolCalls: seed % 2 === 0,
        toolChoice: named ? { type: "function", function: { name: "search" } } : "required",
      });
      if (r.finishReason === "length") {
        expect(r.incomplete.length).toBeGreaterThan(0);
        expect(r.incomplete.every((c) => c.kind === "cut")).toBe(true);
      } else {
        finished++;
        expect(r.finishReason).toBe("tool_calls");
        expect(invalidity(r, named ? ["search"] : undefined)).toBe("");
      }
    }
    expect(finished).toBeGreaterThanOrEqual(5);
  });

  it("a maxTokens cut inside a call gives finishReason length and an incomplete call, never a call", async () => {
    // From the shortest call's length on (below it toolChoice "required" is refused: token-budget.test.ts).
    const shortest = compileGrammar(
      buildToolGrammar({ dialect: "qwen3-coder", tools, toolChoice: "required" }),
      model.vocabulary,
    )
      .createMatcher()
      .minTokensToFinish();
    for (const maxTokens of [shortest, shortest + 3, shortest + 7]) {
      const r = await run({
        dialect: "qwen3-coder",
        toolChoice: "required",
        seed: 5,
        logitBias: WANTS_TO_CALL_AND_STOP,
        maxTokens,
      });
      expect(r.finishReason).toBe("length");
      expect(r.message.tool_calls).toBeUndefined();
      expect(r.incomplete).toHaveLength(1);
      expect(r.incomplete[0]!.kind).toBe("cut");
      expect(r.usage.completion_tokens).toBe(maxTokens);
    }
  });

  it("the same seed gives the same tokens, masked or not; another seed gives others", async () => {
    const noWs: Record<number, number> = { 198: -100, 271: -100 };
    const o = { tools: undefined, temperature: 2, topK: 0, topP: 1, minP: 0, logitBias: noWs, maxTokens: 12 };
    const a = await run({ ...o, seed: 7 });
    const b = await run({ ...o, seed: 7 });
    const c = await run({ ...o, seed: 8 });
    expect(b.tokens).toEqual(a.tokens);
    expect(c.tokens).not.toEqual(a.tokens);
    const m1 = await run({
      dialect: "qwen3-coder",
      toolChoice: "required",
      seed: 3,
      logitBias: WANTS_TO_CALL_AND_STOP,
      temperature: 1.5,
    });
    const m2 = await run({
      dialect: "qwen3-coder",
      toolChoice: "required",
      seed: 3,
      logitBias: WANTS_TO_CALL_AND_STOP,
      temperature: 1.5,
    });
    expect(m2.tokens).toEqual(m1.tokens);
  });

  it("without tools the answer is content", async () => {
    const r = await run({
      tools: undefined,
      seed: 2,
      temperature: 1,
      logitBias: { 198: -100, 271: -100 },
      maxTokens: 16,
    });
    expect(r.message.tool_calls).toBeUndefined();
    expect(typeof r.message.content).toBe("string");
    expect(r.message.content!.length).toBeGreaterThan(0);
    expect(r.text).toContain(r.message.content!.trim());
    expect(r.usage.prompt_tokens).toBeGreaterThan(5);
    expect(r.timings.tokensPerSecond).toBeGreaterThan(0);
  });

  it("masks by token id and by position (the fast path for the first sampler) to the same tokens", async () => {
    const o = (seed: number) => ({
      dialect: "hermes",
      toolChoice: "auto" as const,
      seed,
      temperature: 2,
      topK: 0,
      topP: 1,
      minP: 0,
      maxTokens: 40,
      logitBias: { 198: -100, 271: -100, [TOOL_CALL]: 8 },
    });
    const fast = [];
    for (const seed of [1, 2, 3]) fast.push((await run(o(seed))).tokens);
    process.env.TOOLMASK_MASK_BY_ID = "1";
    try {
      const byId = [];
      for (const seed of [1, 2, 3]) byId.push((await run(o(seed))).tokens);
      expect(byId).toEqual(fast);
    } finally {
      delete process.env.TOOLMASK_MASK_BY_ID;
    }
    expect(new Set(fast.map((t) => t.join(","))).size).toBe(3);
  });

  it("measures the mask's cost per token only when masking", async () => {
    const o = { dialect: "qwen3-coder", toolChoice: "required" as const, seed: 1, logitBias: WANTS_TO_CALL_AND_STOP };
    const m = await run({ ...o, mask: true });
    const u = await run({ ...o, mask: false });
    expect(m.timings.maskMicrosPerToken).toBeGreaterThan(0);
    expect(u.timings.maskMicrosPerToken).toBe(0);
  });

  it("stops when the AbortSignal fires: the engine ends the generation within a token", async () => {
    const engine = watchEngineGenerations();
    try {
      const ctl = new AbortController();
      const q = run({ tools: undefined, maxTokens: 100_000, seed: 1, signal: ctl.signal });
      await until(() => engine.all.length === 1); // decoding in the engine (to the context's end, unstopped)
      ctl.abort();
      await expect(q).rejects.toThrow(/abort/i);
      // Settled by the time generate() rejects: "aborted", at most one token sampled after abort().
      expect(notStoppedOnAbort(engine.all[0]!)).toBeUndefined();
    } finally {
      engine.restore();
    }
  });

  it("runs generations on one model side by side without mixing their state", async () => {
    const o = (seed: number) => ({
      dialect: "qwen3-coder",
      toolChoice: "required" as const,
      seed,
      temperature: 1.5,
      logitBias: WANTS_TO_CALL_AND_STOP,
    });
    const alone = [await run(o(21)), await run(o(22))];
    const together = await Promise.all([run(o(21)), run(o(22))]);
    expect(together.map((r) => r.tokens)).toEqual(alone.map((r) => r.tokens));
  });

  it("renders tool results with the model's template and returns the thought when reasoning is on", async () => {
    const turn = [
      ...messages,
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_0", content: "sunny, 21 C" },
    ];
    const THINK = 151667;
    const first = await run({ seed: 1, maxTokens: 4 });
    const r = await run({
      messages: turn,
      seed: 1,
      maxTokens: 10,
      reasoning: true,
      logitBias: { [THINK]: 100, 198: -100, 271: -100 },
    });
    expect(r.usage.prompt_tokens).toBeGreaterThan(first.usage.prompt_tokens + 20);
    expect(r.text.startsWith("<think>")).toBe(true);
    expect(r.message.reasoning_content).toBeTruthy();
    expect(r.message.content).toBeNull();
    expect(r.finishReason).toBe("length");
  });

  it("ends at a stop string, without it, and stops decoding there", async () => {
    const o = {
      tools: undefined,
      seed: 2,
      temperature: 2,
      topK: 0,
      topP: 1,
      minP: 0,
      logitBias: { 198: -100, 271: -100 },
    };
    const free = await run({ ...o, maxTokens: 8 });
    const stop = free.text.slice(-4);
    const r = await run({ ...o, maxTokens: 100_000, stop: ["\u0000never", stop] });
    expect(r.finishReason).toBe("stop");
    expect(r.text).toBe(free.text.slice(0, free.text.indexOf(stop)));
    expect(r.usage.completion_tokens).toBeLessThan(100);
  });

  it("refuses a logit bias for a token the model does not have", async () => {
    await expect(run({ logitBias: { 999_999: 5 }, maskPath: "backend" })).rejects.toThrow(
      /token id 999999 is outside the model's vocabulary/,
    );
  });

  it("refuses a prompt longer than the context with what to do", async () => {
    const small = await loadModel({ path: testModelPath(), contextSize: 32 });
    await expect(generate(small, { messages, tools })).rejects.toThrow(
      /context holds 32; load the model with a larger contextSize/,
    );
    small.dispose();
  });
});

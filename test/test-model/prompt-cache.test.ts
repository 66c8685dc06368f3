// Prompt (prefix) caching in the engine (native/llama/prompt_cache.hpp) on the random-weight test
// model: a finished sequence's prompt cells stay in its slot, a new prompt goes to the idle slot
// whose cached tokens share the longest prefix with it (more than a tenth of the prompt; else the
// least recently used slot, empty ones first), the slot is trimmed and only the rest is decoded.
// What is reused gives the logits a decode from an empty cache gives (prompt_cache.hpp says why):
// output rows are decoded again, and the first chunk decoded holds at least 64 rows, or the whole
// of a 512-row block shorter than that. The mechanism is shown with token prompts given to the
// engine directly (the cached count is then known exactly); what a caller sees, through
// generate(). The tokens with and without the cache are compared; on this model greedy picks
// cannot flip from rounding (its smallest top-1/top-2 logit gap is 32.8, docs/decoding.md), so
// that shows a wrong or stale KV cell, and the logits themselves are compared bit for bit by
// scripts/oracles/batch-numerics/prefix-probe.cpp.
import { describe, expect, it } from "vitest";
import { generate, type GenerateOptions, type GenerateResult } from "../../src/engine/generate.js";
import { freshTestModels, nextTurn, runTokens, seededTokens } from "../support/engine-prompts.js";
import type { ChatMessage } from "../../src/templates/render.js";
import { timeoutFor } from "../support/timeouts.js";

/** A model of its own (its slots start empty). */
const fresh = freshTestModels();

const tokens = seededTokens;
const run = runTokens;
const next = nextTurn;

// Each test's prompts are a few hundred tokens, OUT tokens decoded per request.
const WORK = timeoutFor({ decode: 12 * 48, prompt: 12 * 700, requests: 12 });

describe("the engine reuses a slot's cached prefix", () => {
  it(
    "a prompt extending an earlier one reuses that prompt (its output is decoded again), with the same tokens",
    async () => {
      const m = await fresh(1);
      const p1 = tokens(1, 300);
      const r1 = await run(m, p1);
      expect(r1.promptCachedTokens).toBe(0);
      const p2 = next(p1, r1, tokens(2, 100));
      const r2 = await run(m, p2);
      expect(r2.promptTokens).toBe(p2.length);
      expect(r2.promptCachedTokens).toBe(p1.length);
      const without = await run(m, p2, { cachePrompt: false });
      expect(without.promptCachedTokens).toBe(0);
      expect(r2.tokens).toEqual(without.tokens);
    },
    WORK,
  );

  it(
    "a short addition is decoded with cached rows before it: 64 rows, as a fresh decode's chunk has",
    async () => {
      const m = await fresh(1);
      const p1 = tokens(3, 300);
      await run(m, p1);
      const p2 = [...p1, ...tokens(4, 10)];
      const r2 = await run(m, p2);
      expect(r2.promptCachedTokens).toBe(p2.length - 64);
      expect(r2.tokens).toEqual((await run(m, p2, { cachePrompt: false })).tokens);
      // A block of 512 rows, then one of 8: the 8 are decoded alone, as a fresh decode does.
      const long = tokens(5, 520);
      await run(m, long);
      expect((await run(m, long)).promptCachedTokens).toBe(512);
      // Rows decoded in a chunk of fewer than 64 (a prompt of 40) are not what a longer prompt's
      // 64-row chunk gives them: not reused.
      const small = tokens(6, 40);
      await run(m, small);
      expect((await run(m, [...small, ...tokens(7, 200)])).promptCachedTokens).toBe(0);
    },
    WORK,
  );

  it(
    "a diverging prompt reuses the common part; the old tail is removed, not reused",
    async () => {
      const m = await fresh(1);
      const p1 = tokens(8, 200);
      const r1 = await run(m, p1);
      const p2 = [...p1.slice(0, 120), ...tokens(9, 100)];
      const r2 = await run(m, p2);
      expect(r2.promptCachedTokens).toBe(120);
      // The slot now holds p2: p1 again shares 120 tokens with it, not 200.
      const r3 = await run(m, p1);
      expect(r3.promptCachedTokens).toBe(120);
      expect(r3.tokens).toEqual(r1.tokens);
      expect(r2.tokens).toEqual((await run(m, p2, { cachePrompt: false })).tokens);
    },
    WORK,
  );

  it(
    "a prompt wholly in the cache still decodes its last rows (64 of them), and gives the same tokens",
    async () => {
      const m = await fresh(1);
      const p = tokens(10, 250);
      const first = await run(m, p);
      const again = await run(m, p);
      expect(again.promptCachedTokens).toBe(p.length - 64);
      expect(again.tokens).toEqual(first.tokens);
      // A prompt shorter than what the slot holds.
      const prefix = p.slice(0, 100);
      const short = await run(m, prefix);
      expect(short.promptCachedTokens).toBe(100 - 64);
      expect(short.tokens).toEqual((await run(m, prefix, { cachePrompt: false })).tokens);
    },
    WORK,
  );

  it(
    "two conversations on two slots keep their own caches, run one after the other or at once",
    async () => {
      const m = await fresh(2);
      const a1 = tokens(11, 260),
        b1 = tokens(12, 240);
      const [ra1, rb1] = await Promise.all([run(m, a1), run(m, b1)]);
      const a2 = next(a1, ra1, tokens(13, 80)),
        b2 = next(b1, rb1, tokens(14, 90));
      const [ra2, rb2] = await Promise.all([run(m, a2), run(m, b2)]);
      expect(ra2.promptCachedTokens).toBe(a1.length);
      expect(rb2.promptCachedTokens).toBe(b1.length);
      const a3 = next(a2, ra2, tokens(15, 70));
      const ra3 = await run(m, a3);
      const b3 = next(b2, rb2, tokens(16, 70));
      const rb3 = await run(m, b3);
      expect(ra3.promptCachedTokens).toBe(a2.length);
      expect(rb3.promptCachedTokens).toBe(b2.length);
      expect(ra3.tokens).toEqual((await run(m, a3, { cachePrompt: false })).tokens);
      expect(rb3.tokens).toEqual((await run(m, b3, { cachePrompt: false })).tokens);
    },
    WORK,
  );

  it(
    "an unrelated prompt evicts the least recently used slot; the other conversation stays cached",
    async () => {
      const m = await fresh(2);
      const a = tokens(17, 200),
        b = tokens(18, 200);
      const ra = await run(m, a);
      const rb = await run(m, b); // b is the more recent
      await run(m, tokens(19, 200)); // takes a's slot
      expect((await run(m, next(b, rb, tokens(20, 80)))).promptCachedTokens).toBe(b.length);
      expect((await run(m, next(a, ra, tokens(21, 80)))).promptCachedTokens).toBe(0);
    },
    WORK,
  );

  it(
    "a few shared tokens (a tenth of the prompt or less) take an empty slot rather than evict a conversation",
    async () => {
      const m = await fresh(2);
      const x = tokens(22, 200);
      const rx = await run(m, x);
      // 15 of 200 tokens shared with x: below the threshold, so the empty slot is taken.
      const y = await run(m, [...x.slice(0, 15), ...tokens(23, 185)]);
      expect(y.promptCachedTokens).toBe(0);
      expect((await run(m, next(x, rx, tokens(24, 80)))).promptCachedTokens).toBe(x.length);
      // Over a tenth: the slot is shared, trimmed to the common part.
      const z = await run(m, [...x.slice(0, 60), ...tokens(25, 140)]);
      expect(z.promptCachedTokens).toBe(60);
    },
    WORK,
  );

  it(
    "cachePrompt false neither reads the cache nor leaves its prompt there",
    async () => {
      const m = await fresh(1);
      const p = tokens(26, 150);
      expect((await run(m, p, { cachePrompt: false })).promptCachedTokens).toBe(0);
      expect((await run(m, p)).promptCachedTokens).toBe(0); // nothing was left
      expect((await run(m, p)).promptCachedTokens).toBe(p.length - 64);
      expect((await run(m, p, { cachePrompt: false })).promptCachedTokens).toBe(0); // there, but not read
      expect((await run(m, p)).promptCachedTokens).toBe(0); // and removed
    },
    WORK,
  );
});

describe("generate() with the prompt cache", () => {
  const TOOL_CALL = 151657,
    IM_END = 151645;
  const tools = [
    {
      type: "function",
      function: {
        name: "get_weather",
        parameters: {
          type: "object",
          properties: { city: { type: "string", enum: ["Paris", "Rome", "Oslo"] } },
          required: ["city"],
        },
      },
    },
  ];
  const system = `You answer briefly. ${"Keep to the point. ".repeat(40)}`;
  const opening = (i: number) => [
    { role: "system" as const, content: system },
    { role: "user" as const, content: `Question ${i}: what is the weather in city ${i}?` },
  ];
  const cached = (r: GenerateResult) => r.usage.prompt_tokens_details!.cached_tokens;
  const same = (r: GenerateResult) => ({ tokens: r.tokens, text: r.text, calls: r.message.tool_calls });

  it(
    "turn 2 of a conversation reuses turn 1 and gives the tokens it gives without the cache",
    async () => {
      const m = await fresh(2);
      for (let i = 0; i < 3; i++) {
        const o: Partial<GenerateOptions> = { temperature: 0, maxTokens: 24 };
        const m1 = opening(i);
        const t1 = await generate(m, { messages: m1, ...o });
        const m2 = [
          ...m1,
          { role: "assistant" as const, content: t1.text },
          { role: "user" as const, content: "And tomorrow?" },
        ];
        const t2 = await generate(m, { messages: m2, ...o });
        // Turn 1's prompt, up to where the template rewrites its end (Qwen3's closed thought), or
        // up to 64 rows from the end.
        expect(cached(t2)).toBeGreaterThanOrEqual(Math.min(t1.usage.prompt_tokens - 10, t2.usage.prompt_tokens - 64));
        expect(cached(t2)).toBeLessThanOrEqual(t2.usage.prompt_tokens - 64);
        const off = await generate(m, { messages: m2, ...o, cachePrompt: false });
        expect(cached(off)).toBe(0);
        expect(same(t2)).toEqual(same(off));
      }
    },
    WORK,
  );

  it(
    "a masked call, then the tool's result: the same call and tokens with and without the cache",
    async () => {
      const m = await fresh(1);
      const o: Partial<GenerateOptions> = {
        tools,
        dialect: "qwen3-coder",
        toolChoice: "required",
        logitBias: { [TOOL_CALL]: 100, [IM_END]: 110 },
        temperature: 0,
        maxTokens: 80,
      };
      const t1 = await generate(m, { messages: opening(1), ...o });
      const call = t1.message.tool_calls![0]!;
      const m2: ChatMessage[] = [
        ...opening(1),
        { role: "assistant", content: t1.message.content ?? "", tool_calls: [{ ...call }] },
        { role: "tool" as const, tool_call_id: call.id, content: "sunny" },
      ];
      const t2 = await generate(m, { messages: m2, ...o });
      expect(cached(t2)).toBeGreaterThan(0);
      const off = await generate(m, { messages: m2, ...o, cachePrompt: false });
      expect(same(t2)).toEqual(same(off));
    },
    WORK,
  );

  it(
    "only KV cells are shared: the grammar, sampler and seed of the request that left them do not carry over",
    async () => {
      const m = await fresh(1);
      const messages = opening(7);
      const masked: GenerateOptions = {
        messages,
        tools,
        dialect: "qwen3-coder",
        toolChoice: "required",
        logitBias: { [TOOL_CALL]: 100, [IM_END]: 110 },
        maxTokens: 60,
        temperature: 0,
      };
      const unmasked: GenerateOptions = { ...masked, mask: false, logitBias: {} };
      const sampled: GenerateOptions = { ...unmasked, temperature: 1, seed: 3 };
      const alone = {
        masked: await generate(m, { ...masked, cachePrompt: false }),
        unmasked: await generate(m, { ...unmasked, cachePrompt: false }),
        sampled: await generate(m, { ...sampled, cachePrompt: false }),
      };
      // The same prompt each time: each request after the first finds it whole in the cache.
      for (const [name, o] of [
        ["masked", masked],
        ["unmasked", unmasked],
        ["sampled", sampled],
        ["masked", masked],
        ["sampled", sampled],
      ] as const) {
        const r = await generate(m, o);
        expect(same(r), name).toEqual(same(alone[name]));
      }
      expect(alone.masked.message.tool_calls).toHaveLength(1);
      expect(alone.unmasked.message.tool_calls ?? []).toHaveLength(0);
    },
    WORK,
  );

  it("cachePrompt must be a boolean: a TypeError before any work", async () => {
    const m = await fresh(1);
    await expect(generate(m, { messages: opening(1), cachePrompt: "no" as never })).rejects.toThrow(
      new TypeError('cachePrompt must be true or false, got "no"'),
    );
    await expect(generate(m, { messages: opening(1), cache_prompt: false } as never)).rejects.toThrow(
      /unknown option "cache_prompt"; did you mean "cachePrompt"\?/,
    );
  });
});

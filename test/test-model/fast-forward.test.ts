// Fast-forward (GenerateOptions.fastForward, native/core/include/toolmask/fast_forward.hpp) on the random-weight
// test model: the text the grammar forces goes in as the model tokenizer's own tokens, without
// sampling, decoded with the sampled token in one forward pass. Every dialect: the forced runs are
// exactly what the tokenizer makes of their text, answers stay sentences of the grammar, maxTokens
// counts forced tokens, and several sequences decoded together get what each gets alone.
import { beforeAll, describe, expect, it } from "vitest";
import { dialects } from "../../src/dialects/index.js";
import { generate, prepareGeneration, runGeneration, type GenerateOptions } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { generateStream } from "../../src/engine/stream.js";
import type { NativeGenerationResult } from "../../src/native.js";
import { testModelPath } from "../support/test-model.js";
import { shortestCallTokens } from "../support/generation-checks.js";
import { type CallLike, withoutIds } from "../support/server-fixtures.js";
import { fetchWithin } from "../support/timeouts.js";

const IM_END = 151645;
const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: {
        type: "object",
        properties: { city: { type: "string", maxLength: 6 }, unit: { enum: ["celsius", "fahrenheit"] } },
        required: ["city", "unit"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "search_files",
      parameters: { type: "object", properties: { query: { type: "string", maxLength: 6 } }, required: ["query"] },
    },
  },
];

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false, parallel: 4 });
});

const request = (o: Partial<GenerateOptions>): GenerateOptions => ({
  messages: [{ role: "user", content: "Weather in Paris?" }],
  tools,
  toolChoice: "required",
  maxTokens: 80,
  temperature: 0.9,
  logitBias: { [IM_END]: 5 },
  ...o,
});

async function nativeRun(o: GenerateOptions): Promise<NativeGenerationResult> {
  return runGeneration(model, await prepareGeneration(model, o), undefined, () => {});
}

/** The maximal runs of fast-forwarded indices, each with the sampled token before it: [from, to]. */
function forcedRuns(r: NativeGenerationResult): Array<[number, number]> {
  const at = new Set(r.forcedAt);
  const runs: Array<[number, number]> = [];
  for (const i of r.forcedAt) {
    if (at.has(i - 1)) continue;
    let j = i;
    while (at.has(j + 1)) j++;
    runs.push([i - 1, j]);
  }
  return runs;
}

describe("fast-forward", () => {
  it("decodes forced text without sampling it: fewer forward passes than tokens; fastForward: false samples every token", async () => {
    const o = request({
      dialect: "qwen3-coder",
      toolChoice: { type: "function", function: { name: "search_files" } },
      seed: 3,
    });
    const on = await generate(model, o);
    const off = await generate(model, { ...o, fastForward: false });
    expect(on.decode.forcedTokens).toBeGreaterThan(0);
    expect(on.decode.steps + on.decode.forcedTokens).toBe(on.tokens.length);
    expect(on.decode.steps).toBeLessThan(on.tokens.length);
    expect(on.usage.completion_tokens).toBe(on.tokens.length);
    expect(off.decode).toEqual({ steps: off.tokens.length, forcedTokens: 0 });
    expect(on.message.tool_calls?.[0]?.function.name).toBe("search_files");
    // Unmasked, nothing is forced.
    const unmasked = await generate(model, { ...o, mask: false });
    expect(unmasked.decode.forcedTokens).toBe(0);
  });

  it("in every dialect, each forced run is the model tokenizer's own tokens for its text, and answers stay sentences of the grammar", async () => {
    let forced = 0,
      runs = 0;
    const dialectsWithForced = new Set<string>();
    for (const dialect of dialects)
      for (const seed of [1, 2]) {
        const r = await nativeRun(request({ dialect, seed }));
        expect(r.forcedTokens).toBe(r.forcedAt.length);
        expect(r.decodeSteps + r.forcedTokens).toBe(r.tokens.length);
        if (r.finishReason === "stop") expect(r.grammarComplete, `${dialect} seed ${seed}`).toBe(true);
        for (const [from, to] of forcedRuns(r)) {
          const ids = r.tokens.slice(from, to + 1);
          const bytes = Buffer.concat(ids.map((id) => model.vocabulary.tokenBytes(id)));
          expect(
            Array.from(await model.native.tokenizeText(bytes.toString())),
            `${dialect} seed ${seed}: ${JSON.stringify(bytes.toString())}`,
          ).toEqual(ids);
          runs++;
        }
        forced += r.forcedTokens;
        if (r.forcedTokens > 0) dialectsWithForced.add(dialect);
      }
    expect(runs).toBeGreaterThan(50);
    expect(forced).toBeGreaterThan(200);
    expect(dialectsWithForced.size).toBeGreaterThanOrEqual(10);
  });

  it("counts forced tokens toward maxTokens: never more tokens than asked for, and a cut is reported as one", async () => {
    let cutWithForced = 0;
    const shortest = shortestCallTokens(model, "qwen3-coder", tools);
    for (let maxTokens = shortest; maxTokens <= shortest + 40; maxTokens += 3) {
      const r = await generate(model, request({ dialect: "qwen3-coder", seed: maxTokens, maxTokens, logitBias: {} }));
      expect(r.tokens.length).toBeLessThanOrEqual(maxTokens);
      if (r.tokens.length === maxTokens && r.decode.forcedTokens > 0) cutWithForced++;
      expect(r.usage.completion_tokens).toBe(r.tokens.length);
      if (r.tokens.length === maxTokens && r.tokens.at(-1) !== IM_END) {
        expect(r.finishReason).toBe("length");
        // A call the cut left open is reported incomplete, never shipped as a call.
        if (r.text.includes("<tool_call>") && !r.text.includes("</tool_call>"))
          expect(r.incomplete.length).toBeGreaterThan(0);
      }
    }
    expect(cutWithForced).toBeGreaterThan(3);
  });

  it("streams forced text as deltas that add up to generate()'s answer", async () => {
    const o = request({ dialect: "qwen3-coder", seed: 5, logitBias: { 151657: 100, [IM_END]: 110 } });
    const whole = await generate(model, o);
    expect(whole.decode.forcedTokens).toBeGreaterThan(0);
    let args = "",
      last;
    for await (const c of generateStream(model, o)) {
      for (const t of c.delta.tool_calls ?? []) args += t.function.arguments ?? "";
      last = c;
    }
    expect(last!.result!.tokens).toEqual(whole.tokens);
    expect(JSON.parse(args)).toEqual(JSON.parse(whole.message.tool_calls![0]!.function.arguments));
  });

  it("gives several sequences decoded together what each gets alone, on both mask paths", async () => {
    const os = [1, 2, 3, 4].map((seed) => request({ dialect: seed % 2 ? "qwen3-coder" : "hermes", seed }));
    const solo = [];
    for (const o of os) solo.push((await generate(model, o)).tokens);
    const together = await Promise.all(os.map((o) => generate(model, o)));
    expect(together.map((r) => r.tokens)).toEqual(solo);
    expect(together.some((r) => r.decode.forcedTokens > 0)).toBe(true);
    const backend = await Promise.all(os.map((o) => generate(model, { ...o, maskPath: "backend" })));
    expect(backend.map((r) => r.tokens)).toEqual(solo);
  });

  it("stops at a stop string and on abort with fast-forward on", async () => {
    // Under auto a stop string ends the answer wherever it starts (under required it waits for the
    // first call: stop-before-call.test.ts).
    const o = request({ dialect: "qwen3-coder", toolChoice: "auto", seed: 2, logitBias: { 151657: 100 } });
    const whole = await generate(model, o);
    const at = whole.text.indexOf("<function=");
    expect(at).toBeGreaterThanOrEqual(0);
    const stopped = await generate(model, { ...o, stop: "<function=" });
    expect(stopped.text).toBe(whole.text.slice(0, at));
    const controller = new AbortController();
    const run = generate(model, { ...o, maxTokens: 2000, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(run).rejects.toThrow(/abort/i);
  });

  it("refuses a fastForward that is not a boolean", async () => {
    await expect(generate(model, request({ fastForward: "yes" as unknown as boolean }))).rejects.toThrow(
      /fastForward must be true or false/,
    );
  });
});

describe("fast-forward in the server", () => {
  it("answers as generate() does, with fast-forward on (the default) and with fastForward: false", async () => {
    const { startServer } = await import("../../src/server/index.js");
    const o = request({ dialect: "qwen3-coder", seed: 3, temperature: 0, logitBias: { 151657: 90, [IM_END]: 100 } });
    const body = {
      model: "m",
      messages: o.messages,
      tools,
      tool_choice: "required",
      max_tokens: o.maxTokens,
      temperature: 0,
      logit_bias: o.logitBias,
    };
    const answers: string[] = [];
    for (const fastForward of [true, false]) {
      const server = await startServer({ model, port: 0, dialect: "qwen3-coder", fastForward });
      try {
        const res = await fetchWithin({ decode: o.maxTokens ?? 512 }, `${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const j = (await res.json()) as {
          choices: Array<{ message: { tool_calls: CallLike[] } }>;
          usage: { completion_tokens: number };
        };
        expect(res.status, JSON.stringify(j)).toBe(200);
        const direct = await generate(model, { ...o, fastForward });
        // The server mints its own call ids (server-call-ids.test.ts): the calls, not their ids.
        expect(withoutIds(j.choices[0]!.message.tool_calls)).toEqual(withoutIds(direct.message.tool_calls));
        expect(j.usage.completion_tokens).toBe(direct.tokens.length);
        answers.push(JSON.stringify(direct.tokens));
      } finally {
        await server.close();
      }
    }
    expect(answers[0]).not.toBe(answers[1]); // forced text went in as other tokens than the model sampled
  });

  it("refuses a fastForward option that is not a boolean", async () => {
    const { startServer } = await import("../../src/server/index.js");
    await expect(startServer({ model, port: 0, fastForward: 1 as unknown as boolean })).rejects.toThrow(
      /fastForward must be true or false/,
    );
  });
});

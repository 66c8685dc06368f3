// generateStream() on the test model: the deltas add up to exactly what generate() returns for the
// same seed — a call only once it ended complete and valid, so a call cut by a stop string or by
// maxTokens is in no delta — and leaving the loop early stops decoding.
import { beforeAll, describe, expect, it } from "vitest";
import { generate, type GenerateOptions } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { generateStream, type StreamChunk } from "../../src/engine/stream.js";
import { testModelPath } from "../support/test-model.js";
import { notStoppedOnAbort, watchEngineGenerations } from "../support/engine-generations.js";

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { enum: ["Paris", "Rome"] } }, required: ["city"] },
    },
  },
];

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
});

async function collect(it: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

/** The calls of the chunks' deltas, assembled as an OpenAI client does (by index). */
function deltaCalls(chunks: StreamChunk[]) {
  const calls: Array<{ id: string; type: string; function: { name: string; arguments: string } }> = [];
  for (const c of chunks)
    for (const t of c.delta.tool_calls ?? []) {
      const known = calls[t.index];
      if (known) known.function.arguments += t.function.arguments ?? "";
      else
        calls[t.index] = {
          id: t.id ?? "",
          type: t.type ?? "",
          function: { name: t.function.name ?? "", arguments: t.function.arguments ?? "" },
        };
    }
  return calls;
}

describe("generateStream", () => {
  it("streams a call as OpenAI deltas that add up to generate()'s answer", async () => {
    for (const dialect of ["qwen3-coder", "hermes"]) {
      const o: GenerateOptions = {
        messages: [{ role: "user", content: "Weather?" }],
        tools,
        dialect,
        toolChoice: "required",
        seed: 4,
        maxTokens: 80,
        logitBias: { 151657: 100, 151645: 110, 198: -100, 271: -100 },
      };
      const whole = await generate(model, o);
      if (dialect === "qwen3-coder") expect(whole.message.tool_calls).toHaveLength(1);
      const chunks = await collect(generateStream(model, o));
      expect(chunks[0]!.delta.role).toBe("assistant");
      const last = chunks[chunks.length - 1]!;
      expect(last.finish_reason).toBe(whole.finishReason);
      expect(last.result!.tokens).toEqual(whole.tokens);
      let args = "";
      let name: string | undefined;
      for (const c of chunks)
        for (const t of c.delta.tool_calls ?? []) {
          name ??= t.function.name;
          args += t.function.arguments ?? "";
        }
      if (whole.message.tool_calls) {
        expect(name).toBe(whole.message.tool_calls[0]!.function.name);
        expect(JSON.parse(args)).toEqual(JSON.parse(whole.message.tool_calls[0]!.function.arguments));
      }
      const content = chunks.map((c) => c.delta.content ?? "").join("");
      expect(content).toBe(whole.message.content ?? "");
    }
  });

  it("a call reaches the deltas only once it ended complete and valid: the deltas hold the result's calls", async () => {
    const base: GenerateOptions = {
      messages: [{ role: "user", content: "Weather?" }],
      tools,
      dialect: "qwen3-coder",
      toolChoice: "required",
      seed: 4,
      maxTokens: 80,
      logitBias: { 151657: 100, 151645: 110, 198: -100, 271: -100 },
    };
    const cases: Array<[string, GenerateOptions]> = [
      ["whole calls", base],
      // The stop string is inside the call's markup (<parameter=city>): under required it waits for
      // the first call, which is made whole (stop-before-call.test.ts); maxTokens cuts one below.
      ["a stop string inside the first call", { ...base, stop: ["city"] }],
      ["maxTokens inside the call", { ...base, maxTokens: 18 }],
      ["one call allowed", { ...base, parallelToolCalls: false, logitBias: { 151657: 100, 198: -100, 271: -100 } }],
    ];
    const finishes: string[] = [];
    for (const [label, o] of cases) {
      const whole = await generate(model, o);
      const chunks = await collect(generateStream(model, o));
      const r = chunks.at(-1)!.result!;
      expect(r.tokens, label).toEqual(whole.tokens);
      expect(deltaCalls(chunks), label).toEqual(whole.message.tool_calls ?? []);
      expect(chunks.map((c) => c.delta.content ?? "").join(""), label).toBe(whole.message.content ?? "");
      // The parser's events still tell every call as it is read, and each one's verdict.
      const started = chunks.filter((c) => c.event?.type === "tool_call_start").length;
      const settled = chunks.filter((c) => /^tool_call_(end|error|dropped)$/.test(c.event?.type ?? "")).length;
      expect(settled, label).toBe(started);
      finishes.push(
        `${label}: ${whole.finishReason}, ${whole.message.tool_calls?.length ?? 0} calls, ${whole.incomplete.map((c) => c.kind).join(" ")}`,
      );
    }
    // Each case is what its label says: the cut ones cut a call the stream had begun.
    expect(finishes).toEqual([
      "whole calls: tool_calls, 1 calls, ",
      "a stop string inside the first call: tool_calls, 1 calls, ",
      "maxTokens inside the call: length, 0 calls, cut",
      expect.stringMatching(/^one call allowed: \w+, 1 calls, /),
    ]);
  });

  it("streams plain content as it is decoded", async () => {
    const o: GenerateOptions = {
      messages: [{ role: "user", content: "hi" }],
      seed: 2,
      temperature: 2,
      maxTokens: 12,
      logitBias: { 198: -100, 271: -100 },
    };
    const chunks = await collect(generateStream(model, o));
    const whole = await generate(model, o);
    expect(chunks.filter((c) => c.delta.content).length).toBeGreaterThan(1);
    expect(chunks.map((c) => c.delta.content ?? "").join("")).toBe(whole.message.content ?? "");
  });

  it("ends at a stop string as generate() does", async () => {
    const o: GenerateOptions = {
      messages: [{ role: "user", content: "hi" }],
      seed: 2,
      temperature: 2,
      topK: 0,
      topP: 1,
      minP: 0,
      maxTokens: 8,
      logitBias: { 198: -100, 271: -100 },
    };
    const stop = (await generate(model, o)).text.slice(-3);
    const whole = await generate(model, { ...o, maxTokens: 100_000, stop });
    const chunks = await collect(generateStream(model, { ...o, maxTokens: 100_000, stop }));
    expect(chunks.map((c) => c.delta.content ?? "").join("")).toBe(whole.message.content ?? "");
    expect(chunks[chunks.length - 1]!.finish_reason).toBe("stop");
    expect(whole.text).not.toContain(stop);
  });

  it("stops decoding when the consumer leaves the loop: the engine ends the generation within a token", async () => {
    const engine = watchEngineGenerations();
    try {
      let n = 0;
      for await (const c of generateStream(model, {
        messages: [{ role: "user", content: "hi" }],
        seed: 1,
        maxTokens: 100_000,
        logitBias: { 198: -100, 271: -100 },
      })) {
        if (c.delta.content && ++n === 3) break;
      }
      // Leaving the loop waited for the engine: the generation has settled "aborted" (unstopped, it
      // would run to the end of the context), at most one token sampled after the abort.
      expect(engine.running()).toBe(0);
      expect(engine.all.map(notStoppedOnAbort)).toEqual([undefined]);
    } finally {
      engine.restore();
    }
  });
});

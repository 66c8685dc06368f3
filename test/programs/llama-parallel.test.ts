// Several generations on one model run as sequences of ONE llama_context, decoded together in one
// batch per step. Measured (scripts/oracles/batch-numerics): batched logits are not bit-identical to solo
// ones on the CPU backend (max |Δlogit| 9e-4 on logits up to 72, from the different batch shapes),
// far below the gaps that decide a pick here, so each generation's tokens are what it gives alone.
// Masked outputs are checked against their OWN request's tools: no cross-talk between sequences.
import { beforeAll, describe, expect, it } from "vitest";
import {
  generate,
  prepareGeneration,
  runGeneration,
  type GenerateOptions,
  type GenerateResult,
} from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { generateStream } from "../../src/engine/stream.js";
import { loadNative } from "../../src/native.js";
import {
  callViolation,
  IM_END,
  requiredArgs,
  shortestCallTokens,
  TOOL_CALL,
  whitespaceTokenIds,
} from "../support/generation-checks.js";
import { testModelPath } from "../support/test-model.js";
import { notStoppedOnAbort, watchEngineGenerations } from "../support/engine-generations.js";
import { until } from "../support/until.js";

const weather = [
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
      parameters: { type: "object", properties: { q: { enum: ["cats", "dogs"] } }, required: ["q"] },
    },
  },
];
const users = [
  {
    type: "function",
    function: {
      name: "lookup_user",
      parameters: { type: "object", properties: { id: { type: "integer", enum: [7, 8, 9] } }, required: ["id"] },
    },
  },
  {
    type: "function",
    function: {
      name: "ban_user",
      parameters: {
        type: "object",
        properties: { id: { type: "integer", enum: [1, 2] }, why: { enum: ["spam"] } },
        required: ["id", "why"],
      },
    },
  },
];
// A named tool whose string value a random-weight model keeps writing: a cut call within a budget the call fits.
const notes = [
  {
    type: "function",
    function: {
      name: "note",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
  },
];
const NOTE = { type: "function", function: { name: "note" } } as const;
const CALL_AND_STOP = { [TOOL_CALL]: 100, [IM_END]: 110 };
const NO_NEWLINES = { 198: -100, 271: -100 };
const FREE_TEXT = { ...NO_NEWLINES, [TOOL_CALL]: -100, [IM_END]: -100 };
const ask = (content: string) => [{ role: "user", content }];

let model: LlamaModel;
let noWhitespace: Record<number, number>;
let noteTokens: number;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
  noteTokens = shortestCallTokens(model, "qwen3-coder", notes, NOTE) + 6;
  noWhitespace = Object.fromEntries(whitespaceTokenIds(model).map((id) => [id, -100]));
});

/** Eight requests of every kind: masked or not, two dialects, two disjoint tool sets, CPU and backend mask paths. */
function mixed(): GenerateOptions[] {
  return [
    {
      messages: ask("Weather in Paris?"),
      tools: weather,
      dialect: "qwen3-coder",
      toolChoice: "required",
      parallelToolCalls: false,
      seed: 1,
      logitBias: CALL_AND_STOP,
      maxTokens: 60,
    },
    {
      messages: ask("Find users"),
      tools: users,
      dialect: "hermes",
      toolChoice: "required",
      seed: 2,
      logitBias: { ...CALL_AND_STOP, ...noWhitespace },
      maxTokens: 60,
    },
    { messages: ask("hi"), seed: 3, temperature: 2, topK: 0, topP: 1, minP: 0, logitBias: FREE_TEXT, maxTokens: 25 },
    {
      messages: ask("Take a note"),
      tools: notes,
      dialect: "qwen3-coder",
      toolChoice: NOTE,
      seed: 4,
      logitBias: CALL_AND_STOP,
      maxTokens: noteTokens,
    },
    {
      messages: ask("Search dogs"),
      tools: weather,
      dialect: "hermes",
      toolChoice: "required",
      temperature: 0,
      logitBias: { ...CALL_AND_STOP, ...noWhitespace },
      maxTokens: 60,
    },
    {
      messages: ask("Weather in Rome?"),
      tools: weather,
      dialect: "qwen3-coder",
      toolChoice: "required",
      seed: 6,
      logitBias: CALL_AND_STOP,
      maskPath: "backend",
      maxTokens: 60,
    },
    {
      messages: ask("Who is user 8?"),
      tools: users,
      dialect: "qwen3-coder",
      toolChoice: "required",
      seed: 7,
      logitBias: { [TOOL_CALL]: 100 },
      mask: false,
      maxTokens: 30,
    },
    { messages: ask("Tell me a story"), seed: 8, temperature: 1, logitBias: FREE_TEXT, maxTokens: 50 },
  ];
}

function checkOwnTools(o: GenerateOptions, r: GenerateResult): void {
  if (o.mask === false || !o.tools) return;
  if (r.finishReason === "length") {
    expect(r.incomplete.every((c) => c.kind === "cut")).toBe(true);
    return;
  }
  expect(callViolation(r, o.toolChoice ?? "auto", requiredArgs(o.tools)), `${o.messages[0]!.content}: ${r.text}`).toBe(
    "",
  );
}

describe("several generations on one model share one context", () => {
  it("mixed concurrent requests (more than the slots) each give exactly what they give alone, valid against their own tools", async () => {
    expect(model.parallel).toBe(4);
    const alone: GenerateResult[] = [];
    for (const o of mixed()) alone.push(await generate(model, o));
    const engine = watchEngineGenerations();
    const together = await Promise.all(mixed().map((o) => generate(model, o))).finally(() => engine.restore());
    const cases = mixed();
    for (let i = 0; i < cases.length; i++) {
      expect(together[i]!.tokens, `request ${i}`).toEqual(alone[i]!.tokens);
      expect(together[i]!.finishReason).toBe(alone[i]!.finishReason);
      // Not the cached count: the runs alone left their prompts in the cache for these.
      const { prompt_tokens, completion_tokens } = alone[i]!.usage;
      expect(together[i]!.usage).toMatchObject({ prompt_tokens, completion_tokens });
      checkOwnTools(cases[i]!, together[i]!);
    }
    // The requests did what they were built to do, so the comparison covers every kind.
    expect(together.map((r) => r.finishReason)).toEqual([
      "tool_calls",
      "tool_calls",
      "length",
      "length",
      "tool_calls",
      "tool_calls",
      "length",
      "length",
    ]);
    expect(together[5]!.maskPath).toBe("backend");
    expect(together[0]!.maskPath).toBe("cpu");
    expect(together[6]!.maskPath).toBe("none");
    expect(together[1]!.message.tool_calls!.every((c) => ["lookup_user", "ban_user"].includes(c.function.name))).toBe(
      true,
    );
    // Eight requests on four sequences: one joined the engine while all four were taken, and waited.
    expect(Math.max(...engine.all.map((g) => g.runningAtStart))).toBeGreaterThanOrEqual(model.parallel);
  });

  it("queues past the slots; an abort mid-stream frees its slot for a queued request and leaves the others alone; dispose after", async () => {
    const two = await loadModel({ path: testModelPath(), parallel: 2 });
    const endless = (seed: number): GenerateOptions => ({
      messages: ask("hi"),
      seed,
      temperature: 1,
      logitBias: FREE_TEXT,
      maxTokens: 100_000,
    });
    const queuedOptions: GenerateOptions = {
      messages: ask("Weather?"),
      tools: weather,
      dialect: "qwen3-coder",
      toolChoice: "required",
      seed: 13,
      logitBias: CALL_AND_STOP,
      maxTokens: 40,
    };
    const soloQueued = await generate(two, queuedOptions);
    const soloB = await generate(two, { ...endless(12), maxTokens: 40 });

    const engine = watchEngineGenerations();
    const ctlA = new AbortController();
    const text = { a: "", b: "" };
    const chunksA = (async () => {
      for await (const c of generateStream(two, { ...endless(11), signal: ctlA.signal }))
        text.a += c.delta.content ?? "";
    })();
    let stopB = false;
    const streamB = (async () => {
      for await (const c of generateStream(two, endless(12))) {
        text.b += c.delta.content ?? "";
        if (stopB) break;
      }
    })();
    await until(() => text.a.length > 20 && text.b.length > 20);
    // Both slots are taken: these two wait.
    expect(engine.all.length).toBe(2); // A and B
    let queuedDone = false;
    const queued = generate(two, queuedOptions).then((r) => {
      queuedDone = true;
      return r;
    });
    const ctlE = new AbortController();
    const dropped = generate(two, { ...queuedOptions, signal: ctlE.signal });
    ctlE.abort();
    await expect(dropped).rejects.toThrow(/abort/i); // left the queue without a slot
    // It joined the engine once prepared (prompt tokenized, grammar compiled) and waits there for
    // a sequence: A and B hold both, and neither ends by itself before the context's end.
    await until(() => engine.all.length === 3);
    const [a, b, inQueue] = [11, 12, 13].map((seed) => engine.all.find((g) => g.seed === seed)!);
    await sleep(300);
    expect(queuedDone).toBe(false);
    expect(inQueue!.result).toBeUndefined();
    ctlA.abort();
    await expect(chunksA).rejects.toThrow(/abort/i);
    expect(notStoppedOnAbort(a!)).toBeUndefined(); // A: stopped within a token
    const q = await queued;
    expect(q.tokens).toEqual(soloQueued.tokens);
    // A's abort freed its sequence for it: it was served while B, endless, still ran beside it.
    expect(b!.result).toBeUndefined();
    expect(engine.all.length).toBe(3); // the dropped one never reached the engine
    // B ran beside A and then beside the queued request: the same text as alone.
    await until(() => text.b.length > soloB.text.length + 20);
    stopB = true;
    await streamB;
    engine.restore();
    expect(text.b.startsWith(soloB.message.content!)).toBe(true);

    const last = generate(two, { ...endless(14), maxTokens: 30 });
    two.dispose(); // a running generation finishes; new ones are refused
    expect((await last).usage.completion_tokens).toBe(30);
    await expect(generate(two, endless(15))).rejects.toThrow(/disposed/);
  });
});

describe("the token callback", () => {
  it("stops its generation when it throws, which then rejects with that error; the model keeps working", async () => {
    const o: GenerateOptions = { messages: ask("hi"), seed: 1, logitBias: FREE_TEXT, maxTokens: 100_000 };
    const handle = loadNative().llamaGenerate(model.native, (await prepareGeneration(model, o)).request, () => {
      throw new Error("consumer broke");
    });
    await expect(handle.done).rejects.toThrow("consumer broke");
    expect((await generate(model, { ...o, maxTokens: 5 })).usage.completion_tokens).toBe(5);
  });
});

describe("a long prompt", () => {
  it("is fed in chunks beside a running generation, which keeps getting a token every step", async () => {
    const long: GenerateOptions = {
      messages: ask("word ".repeat(2500)),
      seed: 5,
      temperature: 1,
      logitBias: FREE_TEXT,
      maxTokens: 5,
    };
    const alone = await generate(model, long);
    expect(alone.usage.prompt_tokens).toBeGreaterThan(2000); // more than 4 steps of 512 tokens

    const ctl = new AbortController();
    let streamed = 0;
    const running = runGeneration(
      model,
      await prepareGeneration(model, { messages: ask("hi"), seed: 1, logitBias: FREE_TEXT, maxTokens: 100_000 }),
      ctl.signal,
      (ids) => {
        streamed += ids.length;
      },
    );
    await until(() => streamed >= 3);
    // Not from the prompt cache (the run alone left this prompt there): the whole prompt is decoded.
    const prepared = await prepareGeneration(model, { ...long, cachePrompt: false });
    await sleep(50); // tokens decoded while the prompt was rendered reach JS before counting starts
    const before = streamed;
    let atFirstToken = -1;
    const r = await runGeneration(model, prepared, undefined, (ids) => {
      if (atFirstToken < 0 && ids.length > 0) atFirstToken = streamed;
    });
    ctl.abort();
    await expect(running).rejects.toThrow(/abort/i);
    expect(r.tokens).toEqual(alone.tokens);
    // One token per step for the running sequence while the prompt's chunks went through: a prompt
    // decoded in one piece would have let it through once.
    expect(atFirstToken - before).toBeGreaterThanOrEqual(4);
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Options a caller got wrong are said to be wrong (issue #12, defect 13): an unknown option name
// of generate(), generateStream() or loadModel() is a TypeError naming it and the closest known
// one; a logitBias key that is not a token id says keys are ids (and a piece's id when it is
// one); an unknown TOOLMASK_BACKEND_MASK is an error naming the values it takes; randomWalks
// bounds are printed as written.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { compileGrammar, generate, generateStream, literal, loadModel, type LlamaModel } from "../../src/index.js";
import { TOOL_CALL } from "../support/generation-checks.js";
import { testModelPath } from "../support/test-model.js";
import { qwen3 } from "../support/vocabs.js";

const messages = [{ role: "user" as const, content: "Hi" }];
let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
});
afterAll(() => model?.dispose());

const firstChunk = async (o: Record<string, unknown>) => {
  for await (const c of generateStream(model, o as never)) return c;
};

describe("unknown option names", () => {
  it.each([
    ["maxToken", "maxTokens"],
    ["toolchoice", "toolChoice"],
    ["temprature", "temperature"],
    ["logit_bias", "logitBias"],
  ])("generate({ %s }): a TypeError naming it and %s", async (name, closest) => {
    const err = await generate(model, { messages, maxTokens: 1, [name]: 1 } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toContain(`unknown option "${name}"`);
    expect((err as Error).message).toContain(`did you mean "${closest}"?`);
  });

  it("generateStream: the same TypeError, before any token", async () => {
    await expect(firstChunk({ messages, maxToken: 1 })).rejects.toThrow(
      /unknown option "maxToken".*did you mean "maxTokens"\?/,
    );
  });

  it("every known name is taken (the list is the GenerateOptions interface)", async () => {
    const r = await generate(model, {
      messages,
      tools: [],
      toolChoice: "auto",
      parallelToolCalls: true,
      maxTokens: 1,
      temperature: 0,
      topK: 1,
      topP: 1,
      minP: 0,
      seed: 1,
      stop: [],
      logitBias: {},
      repeatPenalty: 1,
      maxValueLength: 10,
      reasoning: false,
      mask: true,
      maskPath: "cpu",
      dialect: "hermes",
      signal: new AbortController().signal,
    });
    expect(r.usage.completion_tokens).toBe(1);
  });

  it('loadModel({ thread }): a TypeError naming it and "threads", before the weights load', async () => {
    await expect(loadModel({ path: testModelPath(), thread: 1 } as never)).rejects.toThrow(
      /loadModel: unknown option "thread"; did you mean "threads"\?/,
    );
  });
});

describe("logitBias keys are token ids", () => {
  it("a piece as key: a TypeError saying keys are ids, with the piece's id", async () => {
    await expect(generate(model, { messages, maxTokens: 1, logitBias: { "<tool_call>": 5 } as never })).rejects.toThrow(
      new RegExp(
        `logitBias keys are token ids.*"<tool_call>".*model\\.vocabulary\\.idOfPiece\\("<tool_call>"\\).*${TOOL_CALL}`,
      ),
    );
  });

  it("a key that is neither an id nor a piece: the same rule, no id to offer", async () => {
    const err = await generate(model, { messages, maxTokens: 1, logitBias: { "not a piece here": 5 } as never }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toMatch(/logitBias keys are token ids/);
    expect((err as Error).message).not.toMatch(/NaN/);
  });

  it("an id as key still biases that token", async () => {
    const r = await generate(model, { messages, maxTokens: 1, mask: false, logitBias: { [TOOL_CALL]: 100 } });
    expect(r.tokens).toEqual([TOOL_CALL]);
  });
});

describe("TOOLMASK_BACKEND_MASK", () => {
  afterEach(() => {
    delete process.env.TOOLMASK_BACKEND_MASK;
  });

  it("an unknown value with maskPath backend: an error naming the values it takes, nothing decoded", async () => {
    process.env.TOOLMASK_BACKEND_MASK = "pakced";
    await expect(generate(model, { messages, maxTokens: 1, maskPath: "backend" })).rejects.toThrow(
      /TOOLMASK_BACKEND_MASK="pakced" is not understood: use "dense", "packed", "resident", or unset it/,
    );
  });

  it.each(["dense", "packed", "resident", ""])("%j is taken", async (v) => {
    process.env.TOOLMASK_BACKEND_MASK = v;
    const r = await generate(model, {
      messages,
      maxTokens: 1,
      maskPath: "backend",
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      dialect: "hermes",
    });
    expect(r.maskPath).toBe("backend");
  });
});

describe("randomWalks bounds", () => {
  const m = () => compileGrammar(literal("a"), qwen3()).createMatcher();
  it.each([
    ["endProbability", 2, "between 0 and 1, got 2"],
    ["leaveProbability", -0.5, "between 0 and 1, got -0.5"],
    ["count", 2e9, "between 0 and 1000000000, got 2000000000"],
    ["probes", 1.5e6, "between 0 and 1000000, got 1500000"],
  ])("%s %s: the bounds as written", (key, value, text) => {
    expect(() => m().randomWalks({ [key]: value })).toThrow(`randomWalks: ${key} must be ${text}`);
  });
});

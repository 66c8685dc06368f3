// The token budget (native/core/grammar_budget.cpp) on the random-weight test model: with
// maxTokens known, a call is not opened that cannot close in the tokens left, an open call is
// never shortened to fit (a cut stays a cut: "length" + incomplete), and toolChoice "required" with
// a maxTokens below the shortest call is refused before decoding (generate() and the server).
import { beforeAll, describe, expect, it } from "vitest";
import { buildToolGrammar } from "../../src/dialects/grammar.js";
import { compileGrammar } from "../../src/grammar/compile.js";
import { generate, type GenerateOptions } from "../../src/engine/generate.js";
import { MaxTokensTooSmallError } from "../../src/engine/errors.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { testModelPath } from "../support/test-model.js";
import { fetchWithin } from "../support/timeouts.js";

const TOOL_CALL = 151657; // <tool_call>, the qwen3-coder trigger
const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];

let model: LlamaModel;
/** Tokens the shortest call takes, its trigger included: where toolChoice "required" starts. */
let callTokens: number;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false });
  const m = compileGrammar(
    buildToolGrammar({ dialect: "qwen3-coder", tools, toolChoice: "required" }),
    model.vocabulary,
  ).createMatcher();
  callTokens = m.minTokensToFinish();
});

// The trigger is all but certain wherever the mask lets it through.
const request = (o: Partial<GenerateOptions>): GenerateOptions => ({
  messages: [{ role: "user", content: "Weather in Paris?" }],
  tools,
  dialect: "qwen3-coder",
  toolChoice: "auto",
  temperature: 0.8,
  logitBias: { [TOOL_CALL]: 100 },
  ...o,
});

describe("token budget", () => {
  it("opens no call that cannot close within maxTokens; with room for one, the call is made", async () => {
    expect(callTokens).toBeGreaterThan(5);
    for (let seed = 0; seed < 4; seed++) {
      for (const maxTokens of [1, 2, callTokens - 1]) {
        const r = await generate(model, request({ seed, maxTokens }));
        expect(r.tokens, `seed ${seed}, maxTokens ${maxTokens}`).not.toContain(TOOL_CALL);
        expect(r.incomplete).toEqual([]);
        expect(r.message.tool_calls).toBeUndefined();
      }
      // One token more and the trigger is taken at once (the bias works: without the budget the
      // runs above would have opened it too).
      const fits = await generate(model, request({ seed, maxTokens: callTokens }));
      expect(fits.tokens[0]).toBe(TOOL_CALL);
      // Unmasked, the same bias opens the call and maxTokens cuts it.
      const unmasked = await generate(model, request({ seed, maxTokens: callTokens - 1, mask: false }));
      expect(unmasked.tokens[0]).toBe(TOOL_CALL);
    }
  });

  it("never shortens an open call to fit: a call opened with room to spare is cut as a cut", async () => {
    // Room for little more than the shortest call: the model writes a longer city and runs out.
    let cuts = 0;
    const toolChoice = { type: "function", function: { name: "get_weather" } } as const;
    for (let seed = 0; seed < 6; seed++) {
      const r = await generate(model, request({ seed, maxTokens: callTokens + 2, temperature: 1.2, toolChoice }));
      expect(r.tokens[0]).toBe(TOOL_CALL);
      if (r.finishReason === "length" && r.message.tool_calls === undefined) {
        expect(r.incomplete.length).toBe(1);
        cuts++;
      }
    }
    expect(cuts).toBeGreaterThan(0);
  });

  it('refuses toolChoice "required" (or a named tool) with a maxTokens below the shortest call, before decoding', async () => {
    for (const toolChoice of ["required", { type: "function", function: { name: "get_weather" } }] as const) {
      const err = await generate(model, request({ toolChoice, maxTokens: callTokens - 1 })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MaxTokensTooSmallError);
      expect((err as MaxTokensTooSmallError).neededTokens).toBe(callTokens);
      expect(String(err)).toMatch(/raise maxTokens to \d+ or more/);
      const ok = await generate(model, request({ toolChoice, maxTokens: callTokens, logitBias: {} }));
      expect(ok.usage.completion_tokens).toBeLessThanOrEqual(callTokens);
    }
    // auto may answer in text, however short maxTokens is.
    await expect(generate(model, request({ maxTokens: 1 }))).resolves.toBeDefined();
  });

  it('under toolChoice "required", text before the call is taken only while the call still fits after it', async () => {
    // The bias makes "\n" far likelier than the trigger: without the budget on the text before the
    // call, every token is "\n" and maxTokens ends the answer with no call and nothing incomplete.
    const NEWLINE = 198;
    for (const dialect of ["qwen3-coder", "hermes"]) {
      const m = compileGrammar(buildToolGrammar({ dialect, tools, toolChoice: "required" }), model.vocabulary);
      const least = m.createMatcher().minTokensToFinish();
      for (const extra of [0, 2, 6])
        for (let seed = 0; seed < 2; seed++) {
          const r = await generate(
            model,
            request({
              seed,
              dialect,
              toolChoice: "required",
              maxTokens: least + extra,
              maxValueLength: 4,
              logitBias: { [NEWLINE]: 100, [TOOL_CALL]: 60 },
            }),
          );
          const at = `${dialect}, maxTokens ${least + extra}, seed ${seed}`;
          // the newlines come first, as many as leave room for the call, then the call opens: it is
          // made, or (the bias on "\n" lengthens its value past the room left) reported cut
          expect(
            r.tokens.slice(0, extra).every((t) => t === NEWLINE),
            at,
          ).toBe(true);
          expect(r.tokens.indexOf(TOOL_CALL), at).toBe(extra);
          expect((r.message.tool_calls?.length ?? 0) + r.incomplete.length, at).toBe(1);
        }
    }
  });

  it("the server answers 400 max_tokens_too_small, then serves the next request", async () => {
    const { startServer } = await import("../../src/server/index.js");
    const server = await startServer({ model, port: 0, dialect: "qwen3-coder" });
    try {
      const post = (body: object) =>
        fetchWithin({ decode: 200 }, `${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const body = {
        model: "m",
        messages: [{ role: "user", content: "Weather?" }],
        tools,
        tool_choice: "required",
        max_tokens: callTokens - 1,
      };
      const res = await post(body);
      const j = (await res.json()) as { error: { code: string; param: string; message: string } };
      expect(res.status).toBe(400);
      expect(j.error).toMatchObject({ code: "max_tokens_too_small", param: "max_tokens" });
      expect(j.error.message).toMatch(/^max_tokens is \d+.*raise max_tokens/);
      const next = await post({ ...body, max_tokens: 200 });
      expect(next.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("the shortest-call search on a schema with bounded strings", () => {
  // Typed and bounded values make every token of a value lead to its own state: the search walks
  // the vocabulary from each. It stops at a fixed amount of work (native/core/grammar_budget.cpp)
  // and still gives a lower bound; it once ran for 10 s and grew the grammar by 800 MB here.
  const bounded = [
    {
      type: "function",
      function: {
        name: "configure",
        parameters: {
          type: "object",
          properties: {
            name: { type: "string", maxLength: 24 },
            size: { type: "integer" },
            mode: { enum: ["fast", "safe"] },
          },
          required: ["name", "mode"],
        },
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
  it.each(["qwen3-coder", "hermes"])(
    "%s: a lower bound on the call the model then makes, in bounded memory",
    async (dialect) => {
      const g = compileGrammar(
        buildToolGrammar({ dialect, tools: bounded, toolChoice: "required", maxValueLength: 20 }),
        model.vocabulary,
      );
      const bound = g.createMatcher().minTokensToFinish();
      expect(bound).toBeGreaterThan(5);
      expect(g.memoryBytes).toBeLessThan(64 * 2 ** 20);
      // Every call the model completes takes at least the bound (qwen3-coder: the end-of-turn bias
      // makes the random model close its values; hermes rarely closes one within 200 tokens).
      let completed = 0;
      for (const seed of [1, 2, 3]) {
        const r = await generate(model, {
          messages: [{ role: "user", content: "go" }],
          tools: bounded,
          dialect,
          toolChoice: "required",
          maxValueLength: 20,
          maxTokens: 200,
          seed,
          temperature: 1,
          logitBias: { 151657: 100, 151645: 110 },
        });
        if (r.finishReason !== "tool_calls") continue;
        completed++;
        expect(r.tokens.length).toBeGreaterThanOrEqual(bound);
      }
      if (dialect === "qwen3-coder") expect(completed).toBeGreaterThan(0);
    },
  );
});

// generate() and generateStream() with a response format on the random-weight test model (hermes,
// its template's dialect): every answer that ends is JSON ajv takes, given as `parsed` with the
// verdict "valid", the same whole and streamed; an answer cut by maxTokens is "length" with no
// value; a maxTokens below the shortest answer is refused before decoding; a schema the lowering
// refuses is refused with its path rooted at the response format; a thought comes first; beside
// tools under "auto" the answer is calls or the JSON. The logit bias makes the model stop where the
// grammar lets it (IM_END) and, where asked, open a call or a thought.
import { beforeAll, describe, expect, it } from "vitest";
import { generate, type GenerateOptions } from "../../src/engine/generate.js";
import { generateStream } from "../../src/engine/stream.js";
import { MaxTokensTooSmallError } from "../../src/engine/errors.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { ResponseFormatError, UnsupportedSchemaError } from "../../src/index.js";
import { ajvWithFormats } from "../support/ajv-formats.js";
import { IM_END, WANTS_TO_CALL } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutFor } from "../support/timeouts.js";

const THINK = 151667; // <think>
const PERSON = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 8 },
    age: { type: "integer", minimum: 0, maximum: 150 },
    when: { type: "string", format: "date" },
    tags: { type: "array", items: { enum: ["a", "b"] }, maxItems: 2 },
  },
  required: ["name", "age"],
  additionalProperties: false,
};
const ajv = ajvWithFormats("2020");
const valid = ajv.compile(PERSON);
const messages = [{ role: "user" as const, content: "Who?" }];
const request = (o: Partial<GenerateOptions>): GenerateOptions => ({
  messages,
  responseFormat: { type: "json_schema", schema: PERSON, name: "person", strict: true },
  maxTokens: 200,
  logitBias: { [IM_END]: 100 },
  ...o,
});
const SEEDS = [1, 2, 3, 4, 5, 6];

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), gpu: false });
});

/** generateStream's last result and its content deltas joined. */
async function streamed(o: GenerateOptions) {
  let content = "";
  let result: Awaited<ReturnType<typeof generate>> | undefined;
  for await (const chunk of generateStream(model, o)) {
    content += chunk.delta.content ?? "";
    if (chunk.result) result = chunk.result;
  }
  return { content, result: result! };
}

describe("generate({ responseFormat })", () => {
  it(
    "every answer that ends is JSON ajv takes, given as parsed; the same streamed",
    async () => {
      let ended = 0;
      for (const seed of SEEDS) {
        const r = await generate(model, request({ seed }));
        if (r.finishReason === "length") {
          expect([r.structured?.status, "parsed" in r]).toEqual(["cut", false]);
          continue;
        }
        ended++;
        expect([r.finishReason, r.structured]).toEqual(["stop", { status: "valid" }]);
        expect({ parsed: r.parsed, valid: valid(r.parsed) }).toEqual({ parsed: r.parsed, valid: true });
        expect(JSON.parse(r.message.content!)).toEqual(r.parsed);
        const s = await streamed(request({ seed }));
        expect([s.content, s.result.parsed, s.result.structured]).toEqual([r.message.content, r.parsed, r.structured]);
      }
      expect(ended).toBeGreaterThan(0);
    },
    timeoutFor({ decode: 200 * SEEDS.length * 2, requests: SEEDS.length * 2 }),
  );

  it(
    "json_object: an object; unmasked, the same verdict on whatever the model wrote",
    async () => {
      for (const seed of SEEDS.slice(0, 3)) {
        const r = await generate(model, request({ seed, responseFormat: { type: "json_object" } }));
        if (r.finishReason === "stop") expect(typeof r.parsed === "object" && !Array.isArray(r.parsed)).toBe(true);
        else expect("parsed" in r).toBe(false);
        const u = await generate(model, request({ seed, mask: false, maxTokens: 16 }));
        expect(u.structured?.status).not.toBe("valid");
        expect("parsed" in u).toBe(false);
      }
    },
    timeoutFor({ decode: 216 * 3, requests: 6 }),
  );

  it(
    'an answer cut by maxTokens is "length" with no parsed value, whole and streamed',
    async () => {
      // Room for the shortest object, not for what the model writes: it is cut inside the value.
      let cuts = 0;
      for (const seed of SEEDS) {
        const o = request({ seed, maxTokens: 14, logitBias: {}, temperature: 1.2 });
        const r = await generate(model, o);
        if (r.finishReason !== "length") continue;
        cuts++;
        expect([r.structured?.status, "parsed" in r]).toEqual(["cut", false]);
        const s = await streamed(o);
        expect([s.result.finishReason, s.result.structured?.status, "parsed" in s.result]).toEqual([
          "length",
          "cut",
          false,
        ]);
      }
      expect(cuts).toBeGreaterThan(0);
    },
    timeoutFor({ decode: 14 * SEEDS.length * 2, requests: SEEDS.length * 2 }),
  );

  it(
    "a maxTokens below the shortest answer is refused before decoding",
    async () => {
      const e = await generate(model, request({ maxTokens: 3 })).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(MaxTokensTooSmallError);
      expect((e as Error).message).toContain("the shortest answer the response format allows takes at least");
      const needed = (e as MaxTokensTooSmallError).neededTokens;
      const r = await generate(model, request({ maxTokens: needed, seed: 1 }));
      expect(r.usage.completion_tokens).toBeLessThanOrEqual(needed);
    },
    timeoutFor({ decode: 64, requests: 2 }),
  );

  it(
    "refusals: a schema keyword the lowering refuses, and a response format of the wrong shape",
    async () => {
      const schema = { type: "object", properties: { v: { type: "string", if: {} } } };
      const e = await generate(model, request({ responseFormat: { type: "json_schema", schema } })).catch(
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(UnsupportedSchemaError);
      expect((e as UnsupportedSchemaError).path).toBe("responseFormat.schema.properties.v.if");
      // unmasked too, before decoding (the parser is held to the schema)
      const unmasked = await generate(
        model,
        request({ mask: false, responseFormat: { type: "json_schema", schema } }),
      ).catch((x: unknown) => x);
      expect(unmasked).toBeInstanceOf(UnsupportedSchemaError);
      await expect(generate(model, request({ responseFormat: { type: "yaml" } as never }))).rejects.toBeInstanceOf(
        ResponseFormatError,
      );
    },
    timeoutFor({ decode: 0, requests: 2 }),
  );

  it(
    "with a thought: the thought comes first (the mask lets it open the answer), and a cut one is a cut",
    async () => {
      // The random model writes a thought on once it opens one (no bias closes it before <think>
      // comes again), so the answer is cut inside it; the order itself, a thought then the JSON, is
      // walked and parsed in test/no-model/response-format.test.ts.
      const long = await generate(
        model,
        request({ seed: 1, reasoning: true, maxTokens: 24, logitBias: { [THINK]: 100 } }),
      );
      expect([long.tokens[0], long.finishReason, long.structured?.status, "parsed" in long]).toEqual([
        THINK,
        "length",
        "cut",
        false,
      ]);
      expect(long.message.reasoning_content).toBeDefined();
    },
    timeoutFor({ decode: 24, requests: 1 }),
  );

  it(
    'beside tools under "auto": a call where the model wants one, else the JSON',
    async () => {
      const tools = [
        {
          type: "function",
          function: {
            name: "get_weather",
            parameters: { type: "object", properties: { city: { type: "string", maxLength: 6 } }, required: ["city"] },
          },
        },
      ];
      const call = await generate(model, request({ seed: 1, tools, toolChoice: "auto", logitBias: WANTS_TO_CALL }));
      expect(call.message.tool_calls?.map((c) => c.function.name)).toEqual(["get_weather"]);
      expect([call.structured, "parsed" in call]).toEqual([{ status: "calls" }, false]);
      for (const seed of SEEDS.slice(0, 3)) {
        const r = await generate(model, request({ seed, tools, toolChoice: "auto" }));
        expect(r.message.tool_calls).toBeUndefined();
        if (r.finishReason === "stop") expect(valid(r.parsed)).toBe(true);
      }
    },
    timeoutFor({ decode: 200 * 4, requests: 4 }),
  );
});

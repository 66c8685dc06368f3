// Structured outputs on a real model (Qwen2.5-Coder 0.5B from `npm run models`, greedy, on the CPU,
// no logit bias) through the real clients: openai's chat.completions.parse with zodResponseFormat
// (whole and streamed), responses.parse with zodTextFormat, the Anthropic SDK's messages.parse with
// zodOutputFormat (output_config.format; a schema without the bounds that SDK strips), the AI SDK's
// generateObject and streamObject (the openai-compatible provider with structured outputs on). Each answer ends by itself ("stop" /
// "completed" / "end_turn") and each object fits the schema (ajv, and each client's own zod check);
// the capital asked for is the one answered. A model that is not fetched is skipped with the line
// that fetches it, except under CI=true.
import { zodOutputFormat } from "@anthropic-ai/sdk/helpers/zod";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateObject, streamObject } from "ai";
import { zodResponseFormat, zodTextFormat } from "openai/helpers/zod";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ajvWithFormats } from "../support/ajv-formats.js";
import { CODER, coderEntry, useCoderServer } from "../support/real-coder.js";
import { anthropicClient, client } from "../support/server-fixtures.js";
import { timedFetch, timeoutFor, type Work } from "../support/timeouts.js";

const NAME = CODER;
const entry = coderEntry;
const inCi = process.env.CI === "true";
if (!entry.present && !inCi) console.warn(`structured-real: ${NAME} not fetched; run \`npm run models\``);

const City = z.object({
  city: z.string().max(40),
  country: z.string().max(40),
  population_millions: z.number().min(0).max(100),
});
const CITY = {
  type: "object",
  properties: {
    city: { type: "string", maxLength: 40 },
    country: { type: "string", maxLength: 40 },
    population_millions: { type: "number", minimum: 0, maximum: 100 },
  },
  required: ["city", "country", "population_millions"],
  additionalProperties: false,
};
const valid = ajvWithFormats("2020").compile(CITY);
const fits = (v: unknown) => ({ v, valid: valid(v) });
const PROMPT =
  "What is the capital of France? Answer as JSON with the city, its country and its population in millions.";
const messages = [{ role: "user" as const, content: PROMPT }];

/** One request: at most 120 tokens decoded on the real model. A test sends at most 2. */
const MAX = 120;
const REQUEST: Work = { decode: MAX, model: "qwen2.5-coder-0.5b" };
const BY_WORK = { timeout: timeoutFor({ ...REQUEST, decode: 2 * MAX, requests: 2 }) };

describe.skipIf(!entry.present && !inCi)(`structured outputs on ${NAME} through the real clients`, BY_WORK, () => {
  const served = useCoderServer();

  const expectParis = (v: z.infer<typeof City> | null | undefined) => {
    expect(fits(v)).toEqual({ v, valid: true });
    expect(v?.city).toMatch(/paris/i);
  };

  it("openai chat.completions.parse with zodResponseFormat, whole and streamed", async () => {
    const api = client(served.server.url, REQUEST);
    const ask = {
      model: NAME,
      messages,
      response_format: zodResponseFormat(City, "city"),
      max_tokens: MAX,
      temperature: 0,
    };
    const whole = await api.chat.completions.parse(ask);
    expect(whole.choices[0]!.finish_reason).toBe("stop");
    expectParis(whole.choices[0]!.message.parsed);
    const streamed = await api.chat.completions.stream(ask).finalChatCompletion();
    expect(streamed.choices[0]!.message.parsed).toEqual(whole.choices[0]!.message.parsed);
    console.log(`${NAME} chat.completions.parse: ${whole.choices[0]!.message.content}`);
  });

  it("openai responses.parse with zodTextFormat", async () => {
    const api = client(served.server.url, REQUEST);
    const r = await api.responses.parse({
      model: NAME,
      input: PROMPT,
      text: { format: zodTextFormat(City, "city") },
      max_output_tokens: MAX,
      temperature: 0,
    });
    expect(r.status).toBe("completed");
    expectParis(r.output_parsed);
  });

  // The SDK moves bounds it says Anthropic does not take (maxLength, minimum, maximum) out of the
  // schema it sends, into the description, and checks them itself: a schema without them here.
  const Place = z.object({ city: z.string(), country: z.string() });
  it("Anthropic messages.parse with zodOutputFormat (output_config.format)", async () => {
    const api = anthropicClient(served.server.url, REQUEST, "k");
    const m = await api.messages.parse({
      model: NAME,
      max_tokens: MAX,
      temperature: 0,
      messages,
      output_config: { format: zodOutputFormat(Place) },
    });
    expect(m.stop_reason).toBe("end_turn");
    expect(Place.safeParse(m.parsed_output).success).toBe(true);
    expect(m.parsed_output?.city).toMatch(/paris/i);
  });

  it("AI SDK generateObject and streamObject (openai-compatible, structured outputs on)", async () => {
    const provider = createOpenAICompatible({
      name: "toolmask",
      baseURL: `${served.server.url}/v1`,
      supportsStructuredOutputs: true,
      fetch: timedFetch(REQUEST),
    });
    const o = {
      model: provider(NAME),
      schema: City,
      prompt: PROMPT,
      maxOutputTokens: MAX,
      temperature: 0,
      maxRetries: 0,
    };
    const whole = await generateObject(o);
    expect(whole.finishReason).toBe("stop");
    expectParis(whole.object);
    const streamed = streamObject(o);
    let partials = 0;
    for await (const _ of streamed.partialObjectStream) partials++;
    expect(partials).toBeGreaterThan(0);
    expect(await streamed.object).toEqual(whole.object);
  });
});

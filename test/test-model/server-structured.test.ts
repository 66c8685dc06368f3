// Structured outputs on every route, through the real clients against a server of the
// random-weight test model (hermes, its template's dialect): chat completions' response_format
// (openai's chat.completions.parse with zodResponseFormat, and a plain json_schema), the Responses
// API's text.format (responses.parse with zodTextFormat), Messages' output_config.format
// (messages.parse with zodOutputFormat) — whole and streamed, the answer JSON that ajv takes. A cut
// answer is "length" / incomplete / max_tokens (the clients' parse refuses it); a max_tokens below
// the shortest answer, a schema the lowering refuses and a format of the wrong shape are 400s in
// each API's error shape, the schema's path spelled as the route's request spells it.
import Anthropic from "@anthropic-ai/sdk";
import { zodOutputFormat } from "@anthropic-ai/sdk/helpers/zod";
import OpenAI from "openai";
import { LengthFinishReasonError } from "openai/core/error";
import { zodResponseFormat, zodTextFormat } from "openai/helpers/zod";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateObject, streamObject } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { ajvWithFormats } from "../support/ajv-formats.js";
import { chatBothWays, messagesBothWays, responsesBothWays } from "../support/both-ways.js";
import { anthropicClient, client, IM_END } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import { timedFetch, timeoutFor, type Work } from "../support/timeouts.js";

/** A short answer whatever the model writes: keys forced, values few, whitespace bounded. */
const CHOICE = {
  type: "object",
  properties: { ok: { type: "boolean" }, n: { enum: [1, 2, 3] }, tag: { type: "string", pattern: "^[a-c]{1,3}$" } },
  required: ["ok", "n", "tag"],
  additionalProperties: false,
};
const Choice = z.object({
  ok: z.boolean(),
  n: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  tag: z.string().regex(/^[a-c]{1,3}$/),
});
const valid = ajvWithFormats("2020").compile(CHOICE);
const messages = [{ role: "user" as const, content: "Pick one." }];
const IF = { type: "object", properties: { v: { type: "string", if: {} } } };
const MESSAGE_OF_IF = '"if" is not supported; rewrite the condition as "anyOf" alternatives';

/** The most a request here decodes. */
const REQUEST: Work = { decode: 300 };
/** A test here makes at most 6 such requests (both ways of a request are two). */
const TIMEOUT = timeoutFor({ ...REQUEST, decode: REQUEST.decode * 6, requests: 6 });
let model: LlamaModel;
let server: ToolmaskServer;
let api: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0 });
  api = client(server.url, REQUEST);
  anthropic = anthropicClient(server.url, REQUEST);
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const jsonOf = (text: string | null | undefined) => JSON.parse(text ?? "null") as unknown;
const fits = (v: unknown) => ({ v, valid: valid(v) });

describe("chat completions response_format", () => {
  it("chat.completions.parse with zodResponseFormat: the parsed object fits the schema", {
    timeout: TIMEOUT,
  }, async () => {
    for (const seed of [1, 2, 3]) {
      const r = await api.chat.completions.parse({
        model: "m",
        messages,
        response_format: zodResponseFormat(Choice, "choice"),
        max_tokens: 300,
        seed,
      });
      const m = r.choices[0]!;
      expect(m.finish_reason).toBe("stop");
      expect(fits(m.message.parsed)).toEqual({ v: m.message.parsed, valid: true });
      expect(jsonOf(m.message.content)).toEqual(m.message.parsed);
    }
  });

  it("a plain json_schema and json_object, whole and streamed alike", { timeout: TIMEOUT }, async () => {
    for (const response_format of [
      { type: "json_schema", json_schema: { name: "choice", schema: CHOICE, strict: true } },
      { type: "json_object" },
    ] as const) {
      const w = await chatBothWays(api, { model: "m", messages, response_format, max_tokens: 300, seed: 4 });
      const c = w.choices[0]!;
      if (response_format.type === "json_schema") {
        expect(c.finish_reason).toBe("stop");
        expect(fits(jsonOf(c.message.content)).valid).toBe(true);
      } else if (c.finish_reason === "stop") {
        const value = jsonOf(c.message.content);
        expect(typeof value === "object" && value !== null && !Array.isArray(value)).toBe(true);
      } else expect(c.finish_reason).toBe("length"); // a free-form object's strings may run on
    }
  });

  it('a cut answer is "length", and parse() refuses it; max_tokens below the shortest answer is a 400', {
    timeout: TIMEOUT,
  }, async () => {
    const response_format = { type: "json_schema", json_schema: { name: "choice", schema: CHOICE } } as const;
    const tooSmall = await api.chat.completions
      .create({ model: "m", messages, response_format, max_tokens: 2 })
      .catch((e: unknown) => e);
    expect(tooSmall).toBeInstanceOf(OpenAI.BadRequestError);
    const e = tooSmall as InstanceType<typeof OpenAI.BadRequestError>;
    expect([e.param, e.code]).toEqual(["max_tokens", "max_tokens_too_small"]);
    expect(e.message).toContain("the shortest answer the response format allows takes at least");
    const needed = Number(/at least (\d+) tokens/.exec(e.message)![1]);
    // Room for the shortest answer only, and a model biased away from ending: cut inside the object.
    const cut = { model: "m", messages, response_format, max_tokens: needed, seed: 1, logit_bias: { [IM_END]: -100 } };
    const w = await chatBothWays(api, cut);
    expect(w.choices[0]!.finish_reason).toBe("length");
    await expect(api.chat.completions.parse(cut)).rejects.toBeInstanceOf(LengthFinishReasonError);
  });

  it("a schema the lowering refuses: a 400 naming response_format.json_schema.schema's path, streamed the same", {
    timeout: TIMEOUT,
  }, async () => {
    const response_format = { type: "json_schema", json_schema: { name: "x", schema: IF } } as const;
    const e = await chatBothWays(api, { model: "m", messages, response_format, max_tokens: 50 }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(OpenAI.BadRequestError);
    const b = e as InstanceType<typeof OpenAI.BadRequestError>;
    expect([b.status, b.param, b.code]).toEqual([400, "response_format", "invalid_response_format"]);
    expect(b.message).toBe(`400 response_format.json_schema.schema.properties.v.if: ${MESSAGE_OF_IF}`);
  });

  it("a response_format of the wrong shape is a 400 naming the field", { timeout: TIMEOUT }, async () => {
    const bad: Array<[unknown, string]> = [
      [{ type: "xml" }, "response_format.type"],
      ["json", "response_format"],
      [{ type: "json_schema" }, "response_format.json_schema"],
      [{ type: "json_schema", json_schema: { name: "x", schema: [] } }, "response_format.json_schema.schema"],
      [
        { type: "json_schema", json_schema: { name: "x", schema: {}, strict: "yes" } },
        "response_format.json_schema.strict",
      ],
      [{ type: "json_object", schema: CHOICE }, "response_format.schema"],
    ];
    for (const [response_format, param] of bad) {
      const e = await api.chat.completions
        .create({ model: "m", messages, response_format: response_format as never, max_tokens: 50 })
        .catch((x: unknown) => x);
      expect(e, JSON.stringify(response_format)).toBeInstanceOf(OpenAI.BadRequestError);
      expect((e as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    }
  });
});

describe("Responses text.format", () => {
  it("responses.parse with zodTextFormat; whole and streamed alike; the format echoed", {
    timeout: TIMEOUT,
  }, async () => {
    const r = await api.responses.parse({
      model: "m",
      input: "Pick one.",
      text: { format: zodTextFormat(Choice, "choice") },
      max_output_tokens: 300,
    });
    expect(r.status).toBe("completed");
    expect(fits(r.output_parsed)).toEqual({ v: r.output_parsed, valid: true });
    expect(r.text?.format?.type).toBe("json_schema");
    const format = { type: "json_schema", name: "choice", schema: CHOICE, strict: true } as const;
    const w = await responsesBothWays(api, {
      model: "m",
      input: "Pick one.",
      text: { format },
      max_output_tokens: 300,
    });
    expect(fits(jsonOf(w.output_text)).valid).toBe(true);
  });

  it("a schema the lowering refuses: a 400 naming text.format.schema's path; a wrong shape names the field", {
    timeout: TIMEOUT,
  }, async () => {
    const e = await responsesBothWays(api, {
      model: "m",
      input: "x",
      text: { format: { type: "json_schema", name: "x", schema: IF } },
      max_output_tokens: 50,
    }).catch((x: unknown) => x);
    const b = e as InstanceType<typeof OpenAI.BadRequestError>;
    expect([b.status, b.param, b.code]).toEqual([400, "text.format", "invalid_response_format"]);
    expect(b.message).toBe(`400 text.format.schema.properties.v.if: ${MESSAGE_OF_IF}`);
    const shape = await api.responses
      .create({ model: "m", input: "x", text: { format: { type: "json_schema", name: "x" } as never } })
      .catch((x: unknown) => x);
    expect((shape as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("text.format.schema");
  });
});

describe("Messages output_config.format", () => {
  it("messages.parse with zodOutputFormat; whole and streamed alike", { timeout: TIMEOUT }, async () => {
    const m = await anthropic.messages.parse({
      model: "m",
      max_tokens: 300,
      messages,
      // the SDK moves a pattern into the description: an enum stays a constraint
      output_config: { format: zodOutputFormat(z.object({ ok: z.boolean(), tag: z.enum(["a", "b", "c"]) })) },
    });
    expect(m.stop_reason).toBe("end_turn");
    expect([typeof m.parsed_output?.ok, ["a", "b", "c"].includes(m.parsed_output?.tag ?? "")]).toEqual([
      "boolean",
      true,
    ]);
    const w = await messagesBothWays(anthropic, {
      model: "m",
      max_tokens: 300,
      messages,
      output_config: { format: { type: "json_schema", schema: CHOICE } },
    });
    const text = w.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    expect(fits(jsonOf(text)).valid).toBe(true);
  });

  it("a schema the lowering refuses: a 400 in Anthropic's shape naming output_config.format.schema's path", {
    timeout: TIMEOUT,
  }, async () => {
    const e = await messagesBothWays(anthropic, {
      model: "m",
      max_tokens: 50,
      messages,
      output_config: { format: { type: "json_schema", schema: IF } },
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Anthropic.BadRequestError);
    const b = e as InstanceType<typeof Anthropic.BadRequestError>;
    expect(b.error).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: `output_config.format.schema.properties.v.if: ${MESSAGE_OF_IF}`,
      },
    });
    const shape = await anthropic.messages
      .create({ model: "m", max_tokens: 50, messages, output_config: { format: { type: "xml" } as never } })
      .catch((x: unknown) => x);
    expect(shape).toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe("the AI SDK (openai-compatible provider, structured outputs on)", () => {
  it("generateObject and streamObject: an object the schema takes", {
    timeout: timeoutFor({ decode: 600, requests: 2 }),
  }, async () => {
    const provider = createOpenAICompatible({
      name: "toolmask",
      baseURL: `${server.url}/v1`,
      supportsStructuredOutputs: true,
      fetch: timedFetch(REQUEST),
    });
    const schema = z.object({ ok: z.boolean(), tag: z.enum(["a", "b", "c"]) });
    const whole = await generateObject({ model: provider("m"), schema, prompt: "Pick one.", maxOutputTokens: 300 });
    expect(whole.finishReason).toBe("stop");
    expect(schema.safeParse(whole.object).success).toBe(true);
    const streamed = streamObject({ model: provider("m"), schema, prompt: "Pick one.", maxOutputTokens: 300 });
    let partials = 0;
    for await (const _ of streamed.partialObjectStream) partials++;
    expect(partials).toBeGreaterThan(0);
    expect(schema.safeParse(await streamed.object).success).toBe(true);
  });
});
